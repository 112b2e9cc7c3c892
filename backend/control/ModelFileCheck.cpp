#include "ModelFileCheck.h"

#include "LocalAgentLauncher.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>

namespace hips {

namespace {

QString trainerPath() { return QFileInfo(LocalAgentLauncher::agentPath()).absolutePath() + QStringLiteral("/hips-trainer"); }

}  // namespace

QString resolveModelFile(TrainingSettings* s) {
    if (!s->torchScript() || (!s->modelSha256.isEmpty() && !s->modelTensors.empty())) return {};
    QProcess trainer;
    trainer.start(trainerPath(), {QStringLiteral("model-info"), s->modelFile});
    if (!trainer.waitForStarted(10000))
        return QStringLiteral("cannot start %1 to read the model file (%2); build hips-trainer beside hips-agent")
            .arg(trainerPath(), trainer.errorString());
    if (!trainer.waitForFinished(120000)) {
        trainer.kill();
        trainer.waitForFinished(1000);
        return QStringLiteral("reading the model file %1 took over two minutes; check that it is a TorchScript file").arg(s->modelFile);
    }
    if (trainer.exitStatus() != QProcess::NormalExit || trainer.exitCode() != 0) {
        const QString why = QString::fromLocal8Bit(trainer.readAllStandardError()).trimmed();
        return why.isEmpty() ? QStringLiteral("hips-trainer could not read the model file %1").arg(s->modelFile) : why;
    }
    const QJsonObject info = QJsonDocument::fromJson(trainer.readAllStandardOutput()).object();
    s->modelSha256 = info.value(QStringLiteral("sha256")).toString();
    s->modelTensors.clear();
    for (const QJsonValue& n : info.value(QStringLiteral("tensors")).toArray()) s->modelTensors.push_back(size_t(n.toInteger()));
    if (s->modelSha256.size() != 64 || s->modelTensors.empty())
        return QStringLiteral("hips-trainer gave no sizes for the model file %1; run hips-trainer model-info %1 to see why").arg(s->modelFile);
    return {};
}

}  // namespace hips
