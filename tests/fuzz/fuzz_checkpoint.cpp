// libFuzzer target: a resumed run's checkpoint as someone else may have left it (issue 44). Input:
// bytes 0-1 the description's length L, then checkpoint.json (L bytes), then the model file's
// bytes; "@sha" in the description becomes the model file's real SHA-256, so the fuzzer gets past
// the checksum to the values. readCheckpoint and checkpointRound may refuse, naming the file,
// never crash; what readCheckpoint accepts is a round of the run, a model of the size asked, and
// finite values only.
#include "Checkpoint.h"
#include "FuzzSupport.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <cmath>

using namespace hips;

namespace {

constexpr size_t kModelFloats = 16;

void writeFile(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(bytes) != bytes.size()) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static QTemporaryDir run;  // one run directory, its checkpoint written again for each input
    static const bool made = QDir(run.path()).mkpath(QStringLiteral("checkpoint"));
    if (!made) __builtin_trap();
    fuzz::Input in(data, size);
    const zmq::message_t meta = in.chunk16(), model = in.rest();
    const QByteArray modelBytes(static_cast<const char*>(model.data()), qsizetype(model.size()));
    QByteArray description(static_cast<const char*>(meta.data()), qsizetype(meta.size()));
    description.replace("@sha", QCryptographicHash::hash(modelBytes, QCryptographicHash::Sha256).toHex());
    const QDir dir(checkpointDirectory(run.path()));
    writeFile(dir.filePath(QStringLiteral("checkpoint.json")), description);
    writeFile(dir.filePath(QStringLiteral("model-1.f32")), modelBytes);

    TrainingSettings s;
    s.model = QStringLiteral("mlp");
    s.seed = 1;
    s.rounds = 100;
    QString error;
    const std::optional<Checkpoint> c = readCheckpoint(run.path(), s, kModelFloats, &error);
    if (c) {
        if (c->round < 1 || c->round > s.rounds || c->version < c->round || c->model.size() != kModelFloats) __builtin_trap();
        if (!c->optimizer.empty() && c->optimizer.size() != kModelFloats) __builtin_trap();
        for (const std::vector<float>* v : {&c->model, &c->optimizer})
            for (float x : *v)
                if (!std::isfinite(x)) __builtin_trap();
    } else if (error.isEmpty()) {
        __builtin_trap();  // a refusal says why
    }
    error.clear();
    const qint64 round = checkpointRound(run.path(), &error);
    if (round < 0 || round > qint64(1e9) || (round == 0 && error.isEmpty())) __builtin_trap();
    return 0;
}
