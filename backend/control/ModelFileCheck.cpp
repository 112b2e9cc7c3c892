#include "ModelFileCheck.h"

#include "LocalAgentLauncher.h"
#include "ModeRegistry.h"

#include <QFileInfo>
#include <QHash>
#include <algorithm>
#include <mutex>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <sys/stat.h>

namespace hips {

namespace {

QString trainerPath() {
    return QFileInfo(LocalAgentLauncher::agentPath()).absolutePath() + QStringLiteral("/hips-trainer");
}

// A file as it is now: a change of its bytes changes one of these (a file saved again, or replaced).
struct FileIdentity {
    qint64 size = -1, device = 0, inode = 0, modifiedNs = 0, changedNs = 0;
    bool operator==(const FileIdentity& o) const {
        return size == o.size && device == o.device && inode == o.inode && modifiedNs == o.modifiedNs && changedNs == o.changedNs;
    }
};

FileIdentity identityOf(const QString& file) {
    struct stat st {};
    if (::stat(QFile::encodeName(file).constData(), &st) != 0) return {};
    return {qint64(st.st_size), qint64(st.st_dev), qint64(st.st_ino), qint64(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
            qint64(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec};
}

struct KnownModel {
    FileIdentity identity;
    QJsonObject info;
};
// By absolute path: what model-info said of it. (Never destroyed: a read on a pool thread may end
// while the process tears down its statics.)
std::mutex& knownMutex() {
    static auto* m = new std::mutex;
    return *m;
}
QHash<QString, KnownModel>& known() {
    static auto* k = new QHash<QString, KnownModel>;
    return *k;
}

QString askTrainer(const QString& file, QJsonObject* info);

// `hips-trainer model-info FILE`'s answer in *info, or what was read of the file as it is now;
// empty on success, else why not.
QString readModelInfo(const QString& file, QJsonObject* info) {
    const QString path = QFileInfo(file).absoluteFilePath();
    const FileIdentity before = identityOf(path);
    {
        std::lock_guard lock(knownMutex());
        if (const auto it = known().constFind(path); it != known().cend() && before.size >= 0 && it->identity == before) {
            *info = it->info;
            return {};
        }
    }
    if (QString e = askTrainer(file, info); !e.isEmpty()) return e;
    if (before.size >= 0 && identityOf(path) == before) {  // (not kept when the file changed while it was read)
        std::lock_guard lock(knownMutex());
        known().insert(path, KnownModel{before, *info});
    }
    return {};
}

QString askTrainer(const QString& file, QJsonObject* info) {
    QProcess trainer;
    trainer.start(trainerPath(), {QStringLiteral("model-info"), file});
    if (!trainer.waitForStarted(10000))
        return QStringLiteral("cannot start %1 to read the model file (%2); build hips-trainer beside hips-agent")
            .arg(trainerPath(), trainer.errorString());
    if (!trainer.waitForFinished(120000)) {
        trainer.kill();
        trainer.waitForFinished(1000);
        return QStringLiteral("reading the model file %1 took over two minutes; check that it is a TorchScript file").arg(file);
    }
    if (trainer.exitStatus() != QProcess::NormalExit || trainer.exitCode() != 0) {
        const QString why = QString::fromLocal8Bit(trainer.readAllStandardError()).trimmed();
        return why.isEmpty() ? QStringLiteral("hips-trainer could not read the model file %1").arg(file) : why;
    }
    *info = QJsonDocument::fromJson(trainer.readAllStandardOutput()).object();
    if (info->value(QStringLiteral("sha256")).toString().size() != 64 || info->value(QStringLiteral("tensors")).toArray().isEmpty())
        return QStringLiteral("hips-trainer gave no sizes for the model file %1; run hips-trainer model-info %1 to see why").arg(file);
    return {};
}

}  // namespace

// Read here whenever the file is here: a topology that names its SHA-256 and sizes (a run's
// topology.json, reused) may name a file since saved again, which every role would refuse.
bool readsModelFile(const TrainingSettings& s) {
    return s.torchScript() && (s.modelSha256.isEmpty() || s.modelTensors.empty() || QFileInfo::exists(s.modelFile));
}

QString resolveModelFile(TrainingSettings* s) {
    if (!readsModelFile(*s)) return {};
    QJsonObject info;
    if (QString e = readModelInfo(s->modelFile, &info); !e.isEmpty()) return e;
    // (A built-in model's are refused with the topology: ModeConflicts.)
    if (const qint64 buffers = info.value(QStringLiteral("buffer_tensors")).toInteger();
        buffers > 0 && ModeRegistry::policy(s->mode).gradientEveryStep)
        return QStringLiteral(
                   "mode %1 pushes gradients, and the TorchScript model %2 has %3 floating buffers (BatchNorm's running statistics, "
                   "say) that no gradient moves: the servers' model, and so every evaluation, would keep the file's values of them; "
                   "choose a mode that pushes models, such as fedavg, or a model without them")
            .arg(s->mode, s->modelFile)
            .arg(buffers);
    s->modelSha256 = info.value(QStringLiteral("sha256")).toString();
    s->modelTensors.clear();
    for (const QJsonValue& n : info.value(QStringLiteral("tensors")).toArray()) s->modelTensors.push_back(size_t(n.toInteger()));
    s->modelBufferTensors =
        int(std::clamp<qint64>(info.value(QStringLiteral("buffer_tensors")).toInteger(), 0, qint64(s->modelTensors.size())));
    return {};
}

QString describeModelFile(const QString& file, QString* text) {
    QJsonObject info;
    if (QString e = readModelInfo(file, &info); !e.isEmpty()) return e;
    const qint64 buffers = info.value(QStringLiteral("buffer_tensors")).toInteger();
    const qsizetype tensors = info.value(QStringLiteral("tensors")).toArray().size();
    *text = QStringLiteral("%1 trainable parameters in %2 tensors (and %3 floating buffers); SHA-256 %4…")
                .arg(info.value(QStringLiteral("parameters")).toInteger())
                .arg(tensors - buffers)
                .arg(buffers)
                .arg(info.value(QStringLiteral("sha256")).toString().left(16));
    return {};
}

}  // namespace hips
