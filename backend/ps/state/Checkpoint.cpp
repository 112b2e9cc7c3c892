#include "Checkpoint.h"

#include "FedOptimizer.h"
#include "ModeRegistry.h"
#include "PrivateFiles.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <algorithm>
#include <cmath>
#include <cstring>

namespace hips {

namespace {

const QString kMeta = QStringLiteral("checkpoint.json");

QByteArray bytesOf(const std::vector<float>& v) {
    return QByteArray(reinterpret_cast<const char*>(v.data()), qsizetype(v.size() * sizeof(float)));
}

QString sha256(const QByteArray& bytes) {
    return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
}

// Key slicing: the global server of rank k > 0 keeps its shard's checkpoint beside rank 0's, in
// files marked ".shardk" (rank 0's names are those of a run with one global server).
QString shardMark(int shard) {
    return shard == 0 ? QString() : QStringLiteral(".shard%1").arg(shard);
}
// By model version, not round: a recovery point is kept at every version, and in ssgd or esync a
// round holds several; files named by round were overwritten under the description that named
// them, and a crash before the new description was in left one whose checksums no longer held.
QString fileName(const char* kind, qint64 version, int shard) {
    return QStringLiteral("%1-%2%3.f32").arg(QLatin1String(kind)).arg(version).arg(shardMark(shard));
}
// What writeFileAtomically adds to a file's name for its temporary (mkstemp's six characters).
const QString kTemporary = QStringLiteral("\\.tmp-[A-Za-z0-9]{6}");

// `previous`: the checkpoint before the newest, kept until the next is written.
QString metaName(int shard, bool previous = false) {
    return QStringLiteral("checkpoint%1%2.json").arg(shardMark(shard), previous ? QStringLiteral(".previous") : QString());
}

// Reads one float file the meta names, checked against its size and checksum: `expectFloats`
// exactly, or with `models`, none, one or two times that many (an optimizer's state: none for
// sgd, a velocity for momentum, m and v for Adam, Yogi and Adagrad).
std::optional<std::vector<float>> readFloats(const QDir& dir, const QJsonObject& entry, size_t expectFloats, QString* error,
                                             bool models = false) {
    const QString name = entry.value("file").toString();
    const double count = entry.value("floats").toDouble(-1);
    const double most = double(expectFloats) * (models ? 2 : 1);
    const qint64 floats = count >= 0 && count <= most ? qint64(count) : -1;  // (never a size from the file alone)
    const bool fits = size_t(floats) == expectFloats || (models && (floats == 0 || size_t(floats) == 2 * expectFloats));
    if (name.contains('/') || name.isEmpty() || floats < 0 || !fits) {
        *error = QStringLiteral("%1 names a file '%2' of %3 floats, expected %4%5")
                     .arg(dir.filePath(kMeta), name)
                     .arg(count)
                     .arg(expectFloats)
                     .arg(models ? QStringLiteral(" (or none, or twice as many)") : QString());
        return std::nullopt;
    }
    QFile f(dir.filePath(name));
    if (!QFileInfo(f).isFile()) {
        *error = QStringLiteral("%1 is not a regular file; the checkpoint is damaged, or not this run's").arg(f.fileName());
        return std::nullopt;
    }
    if (!f.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot read %1: %2").arg(f.fileName(), f.errorString());
        return std::nullopt;
    }
    const QByteArray bytes = f.read(floats * qint64(sizeof(float)) + 1);
    if (bytes.size() != floats * qint64(sizeof(float)) || sha256(bytes) != entry.value("sha256").toString()) {
        *error = QStringLiteral("%1 is not the file %2 describes (size or checksum differs); the checkpoint is damaged")
                     .arg(f.fileName(), kMeta);
        return std::nullopt;
    }
    std::vector<float> out(static_cast<size_t>(floats));
    std::memcpy(out.data(), bytes.constData(), size_t(bytes.size()));
    // A checksum says the file is what the description says, not that it makes sense: a model of
    // NaNs with its checksum made again would resume and train to nothing.
    if (!std::all_of(out.begin(), out.end(), [](float v) { return std::isfinite(v); })) {
        *error = QStringLiteral(
                     "%1 holds NaN or infinite values: the checkpoint is of a run that diverged, or damaged; start "
                     "the run afresh")
                     .arg(f.fileName());
        return std::nullopt;
    }
    return out;
}

// The models' worth of state this run's optimizer keeps after its first step (none before):
// ssgd's velocity and FedAvgM's momentum one, Adam's, Yogi's and Adagrad's m and v two, sgd none.
size_t optimizerModels(const TrainingSettings& s) {
    if (ModeRegistry::policy(s.mode).gradientEveryStep) return 1;
    const FedOptimizer::Kind kind = FedOptimizer::kindOf(s.serverOptimizer);
    return FedOptimizer::adaptive(kind) ? 2 : kind == FedOptimizer::Kind::Momentum ? 1 : 0;
}

// The description's round: a whole number of a run (1 to a billion); -1 otherwise.
qint64 roundOf(const QJsonObject& meta) {
    const double r = meta.value("round").toDouble(-1);
    return r >= 1 && r <= 1e9 && r == std::floor(r) ? qint64(r) : -1;
}

QJsonObject readMeta(const QString& runDir, QString* error, int shard = 0, bool previous = false) {
    QFile f(QDir(checkpointDirectory(runDir)).filePath(metaName(shard, previous)));
    if (QFileInfo(f).exists() && !QFileInfo(f).isFile()) {  // (a FIFO's open waited for a writer for ever)
        *error = QStringLiteral("%1 is not a regular file; the checkpoint is damaged, or not this run's").arg(f.fileName());
        return {};
    }
    if (!f.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral(
                     "%1 has no checkpoint (%2: %3); checkpoints are kept every training.checkpoint_every "
                     "rounds by the global server")
                     .arg(runDir, f.fileName(), f.errorString());
        return {};
    }
    QJsonParseError parse;
    const QJsonDocument doc = QJsonDocument::fromJson(f.read(1 << 20), &parse);
    if (!doc.isObject() || doc.object().value("format").toString() != QLatin1String("hips-checkpoint")) {
        *error = QStringLiteral("%1 is not a HiPS checkpoint description").arg(f.fileName());
        return {};
    }
    return doc.object();
}

// The model version a description names; -1 for none.
qint64 versionOf(const QJsonObject& meta) {
    const double v = meta.value("version").toDouble(-1);
    return v >= 0 && v <= 1e15 && v == std::floor(v) ? qint64(v) : -1;
}

// The rounds a global server's checkpoints can resume from: the newest, and the one before.
QList<qint64> roundsKept(const QString& runDir, int shard) {
    QList<qint64> rounds;
    QString ignored;
    for (const bool previous : {false, true})
        if (const qint64 r = roundOf(readMeta(runDir, &ignored, shard, previous)); r >= 1) rounds << r;
    return rounds;
}

}  // namespace

QString checkpointDirectory(const QString& runDir) {
    return QDir(runDir).filePath(QStringLiteral("checkpoint"));
}

QString writeCheckpoint(const QString& runDir, const Checkpoint& c, const TrainingSettings& s, int shard, bool keepPrevious) {
    const QString dirPath = checkpointDirectory(runDir);
    if (const QString e = makePrivateDirectory(dirPath); !e.isEmpty()) return e;
    const QDir dir(dirPath);
    QJsonObject meta{{"format", "hips-checkpoint"}, {"round", c.round}, {"version", c.version},
                     {"model_name", s.model},       {"mode", s.mode},   {"seed", s.seed}};
    for (const auto& [kind, values] : {std::pair{"model", &c.model}, std::pair{"optimizer", &c.optimizer}}) {
        const QByteArray bytes = bytesOf(*values);
        const QString name = fileName(kind, c.version, shard);
        if (const QString e = writeFileAtomically(dir.filePath(name), bytes); !e.isEmpty()) return e;
        meta.insert(QLatin1String(kind), QJsonObject{{"file", name}, {"floats", qint64(values->size())}, {"sha256", sha256(bytes)}});
    }
    // The newest before this one stays, described apart, until the next: global servers (key
    // slicing) stopped between their writes of a round still share the round before it. (Copied,
    // not moved: a crash between the two writes leaves both descriptions naming the old one.)
    QString unread;
    const QJsonObject before = readMeta(runDir, &unread, shard);
    if (keepPrevious && !before.isEmpty() && versionOf(before) != c.version)
        if (const QString e = writeFileAtomically(dir.filePath(metaName(shard, true)), QJsonDocument(before).toJson()); !e.isEmpty())
            return e;
    if (const QString e = writeFileAtomically(dir.filePath(metaName(shard)), QJsonDocument(meta).toJson()); !e.isEmpty()) return e;
    const qint64 previousVersion = keepPrevious ? versionOf(readMeta(runDir, &unread, shard, true)) : -1;
    // (And the temporaries of a writer killed before its rename, a model's worth each: nothing
    // else writes this shard's files, so any left are a dead writer's.)
    const QString shardFile = QRegularExpression::escape(shardMark(shard));
    const QRegularExpression floatFile(QStringLiteral("^(model|optimizer)-(\\d+)%1\\.f32(%2)?$").arg(shardFile, kTemporary));
    const QRegularExpression metaTemporary(
        QStringLiteral("^(%1|%2)%3$")
            .arg(QRegularExpression::escape(metaName(shard)), QRegularExpression::escape(metaName(shard, true)), kTemporary));
    for (const QString& name : dir.entryList(QDir::Files)) {
        const auto m = floatFile.match(name);
        const qint64 version = m.hasMatch() ? m.captured(2).toLongLong() : -1;
        const bool temporary = (m.hasMatch() && !m.captured(3).isEmpty()) || metaTemporary.match(name).hasMatch();
        if (temporary || (m.hasMatch() && version != c.version && version != previousVersion)) QFile::remove(dir.filePath(name));
    }
    return {};
}

std::optional<Checkpoint> readCheckpoint(const QString& runDir, const TrainingSettings& s, size_t modelFloats, QString* error, int shard,
                                         bool orInitial, qint64 round) {
    QJsonObject meta = readMeta(runDir, error, shard);
    if (meta.isEmpty()) return std::nullopt;
    QString unread;
    if (round > 0 && roundOf(meta) != round)
        if (const QJsonObject previous = readMeta(runDir, &unread, shard, true); roundOf(previous) == round) meta = previous;
    if (meta.value("model_name").toString() != s.model || meta.value("seed").toInt() != s.seed) {
        *error = QStringLiteral("the checkpoint in %1 is of model %2 with seed %3, this run trains %4 with seed %5")
                     .arg(runDir, meta.value("model_name").toString())
                     .arg(meta.value("seed").toInt())
                     .arg(s.model)
                     .arg(s.seed);
        return std::nullopt;
    }
    const QDir dir(checkpointDirectory(runDir));
    Checkpoint c;
    c.round = orInitial && meta.value("round").toDouble(-1) == 0 ? 0 : roundOf(meta);
    c.version = versionOf(meta);
    // A round's versions are round × its steps onwards (a checkpoint is kept at the first, a
    // recovery point at any): a version of a later round had the workers skip their state and
    // the run end "finished" after training a few rounds.
    const qint64 steps = s.globalStepsPerRound();
    if (c.round < (orInitial ? 0 : 1) || c.round > s.rounds || c.version < 0 || c.version / steps != c.round) {
        *error = QStringLiteral(
                     "%1 describes round %2 (model version %3), not a round of this run (%4 to %5) with its versions (%6 a "
                     "round); the checkpoint is damaged, or not this run's")
                     .arg(dir.filePath(metaName(shard)), meta.value("round").toVariant().toString(),
                          meta.value("version").toVariant().toString())
                     .arg(orInitial ? 0 : 1)
                     .arg(s.rounds)
                     .arg(steps);
        return std::nullopt;
    }
    auto model = readFloats(dir, meta.value("model").toObject(), modelFloats, error);
    if (!model) return std::nullopt;
    auto optimizer = readFloats(dir, meta.value("optimizer").toObject(), model->size(), error, true);
    if (!optimizer) return std::nullopt;
    // Another optimizer's state was dropped at the resume, unsaid: the moments began again at 0.
    if (const size_t models = optimizerModels(s); !optimizer->empty() && optimizer->size() != models * model->size()) {
        *error = QStringLiteral(
                     "%1 holds %2 models' worth of optimizer state, and this run's (mode %3, server_optimizer %4) keeps %5; the "
                     "checkpoint is of another run, or damaged")
                     .arg(dir.filePath(meta.value("optimizer").toObject().value("file").toString()))
                     .arg(optimizer->size() / std::max<size_t>(model->size(), 1))
                     .arg(s.mode, s.serverOptimizer)
                     .arg(models);
        return std::nullopt;
    }
    // Two models' worth is m then v (Adam, Yogi, Adagrad): a negative v's square root made the
    // first step's weights NaN, which went out to every worker.
    if (optimizer->size() == 2 * model->size() &&
        std::any_of(optimizer->begin() + std::ptrdiff_t(model->size()), optimizer->end(), [](float v) { return v < 0; })) {
        *error = QStringLiteral("%1's second moment holds negative values; the checkpoint is damaged")
                     .arg(dir.filePath(meta.value("optimizer").toObject().value("file").toString()));
        return std::nullopt;
    }
    c.model = std::move(*model);
    c.optimizer = std::move(*optimizer);
    return c;
}

bool hasCheckpoint(const QString& runDir, int shard) {
    return QFileInfo::exists(QDir(checkpointDirectory(runDir)).filePath(metaName(shard)));
}

// With several global servers (key slicing) each keeps its shard's checkpoint: a run resumes
// only from a round they all have.
qint64 checkpointRound(const QString& runDir, QString* error) {
    const QJsonObject meta = readMeta(runDir, error);
    if (meta.isEmpty()) return 0;
    const qint64 round = roundOf(meta);
    if (round < 1) {
        *error = QStringLiteral("%1 describes round %2, not a round of a run; the checkpoint is damaged")
                     .arg(QDir(checkpointDirectory(runDir)).filePath(metaName(0)), meta.value("round").toVariant().toString());
        return 0;
    }
    // The newest round every shard keeps (each keeps its newest and the one before).
    QList<qint64> common = roundsKept(runDir, 0);
    static const QRegularExpression shardMeta(QStringLiteral("^checkpoint\\.shard(\\d+)\\.json$"));
    for (const QString& name : QDir(checkpointDirectory(runDir)).entryList(QDir::Files)) {
        const auto m = shardMeta.match(name);
        if (!m.hasMatch()) continue;
        const QJsonObject other = readMeta(runDir, error, m.captured(1).toInt());
        if (other.isEmpty()) return 0;
        const QList<qint64> kept = roundsKept(runDir, m.captured(1).toInt());
        common.removeIf([&](qint64 r) { return !kept.contains(r); });
        if (common.isEmpty()) {
            *error = QStringLiteral(
                         "the global servers' checkpoints in %1 are of rounds %2 and %3, with no round in common (the run "
                         "stopped between their writes): there is no round to resume all of them from; start the run afresh")
                         .arg(checkpointDirectory(runDir))
                         .arg(round)
                         .arg(roundOf(other));
            return 0;
        }
    }
    return *std::max_element(common.begin(), common.end());
}

QString workerStatePath(const QString& runDir, const QString& nodeId, qint64 round, int part) {
    QString name = nodeId;
    name.replace('/', '-');
    const QString ofPart = part == 0 ? QString() : QStringLiteral("-part%1").arg(part);
    return QDir(checkpointDirectory(runDir)).filePath(QStringLiteral("%1-%2%3.state").arg(name).arg(round).arg(ofPart));
}

void removeOlderWorkerStates(const QString& runDir, const QString& nodeId, qint64 keepFrom) {
    QString prefix = nodeId;
    prefix.replace('/', '-');
    const QDir dir(checkpointDirectory(runDir));
    // (With the temporaries of this worker's writes killed before their rename: it is their only writer.)
    const QRegularExpression own(
        QStringLiteral("^%1-(\\d+)(-part\\d+)?\\.state(%2)?$").arg(QRegularExpression::escape(prefix), kTemporary));
    for (const QString& name : dir.entryList(QDir::Files)) {
        const auto m = own.match(name);
        if (m.hasMatch() && (m.captured(1).toLongLong() < keepFrom || !m.captured(3).isEmpty())) QFile::remove(dir.filePath(name));
    }
}

}  // namespace hips
