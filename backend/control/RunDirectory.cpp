#include "RunDirectory.h"

#include "PrivateFiles.h"

#include <QDateTime>
#include <algorithm>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>

namespace hips {

RunDirectory::RunDirectory() = default;
RunDirectory::~RunDirectory() = default;

QString RunDirectory::safeName(const QString& name) {
    QString safe = name;
    safe.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_.-]")), QStringLiteral("_"));
    return safe;
}

QString RunDirectory::freshDefaultPath(const QString& topologyName) {
    const QString base =
        QStringLiteral("runs/%1-%2").arg(QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")), safeName(topologyName));
    if (!QDir().mkpath(QStringLiteral("runs"))) return {};
    for (int n = 1; n <= 1000; ++n) {  // (mkdir, not a look first: two processes may ask at once)
        const QString path = n == 1 ? base : QStringLiteral("%1-%2").arg(base).arg(n);
        if (QDir().mkdir(path, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner)) return path;
        if (!QFileInfo::exists(path)) return {};  // (not made, and not there: it cannot be)
    }
    return {};
}

QString RunDirectory::note(const QString& error) {
    if (m_error.isEmpty()) m_error = error;
    return error;
}

// The run directory (where a link of the user's may lead) and the folders it holds (never a
// link) are this user's alone: checked before a byte is written in them, and again when a run
// resumes or is attached to.
static QString checkRunFolders(const QString& path) {
    if (const QString e = checkOwnDirectory(path, true); !e.isEmpty()) return e;
    if (const QString e = checkFoldersAboveAreSafe(path); !e.isEmpty()) return e;
    for (const QString& p : {QDir(path).filePath(QStringLiteral("logs")), QDir(path).filePath(QStringLiteral("checkpoint"))})
        if (const QString e = checkOwnDirectory(p); !e.isEmpty()) return e;
    return {};
}

// A folder that holds a run already is not written over: the two runs' files would mix (its
// history entry would point at the new topology, its checkpoints stay beside the new ones).
QString RunDirectory::create(const QString& path, const QByteArray& topologyJson) {
    const QDir dir(path);
    if (const QString e = checkRunFolders(dir.absolutePath()); !e.isEmpty()) return note(e);
    for (const QString& name : {QStringLiteral("topology.json"), QStringLiteral("metrics.jsonl"), QStringLiteral("checkpoint")})
        if (QFileInfo::exists(dir.filePath(name)))
            return note(QStringLiteral("%1 holds a run already (its %2): give the new run another directory (--out), or resume that one "
                                       "(hips run --resume RUN)")
                            .arg(path, name));
    if (const QString e = makePrivateDirectory(dir.filePath(QStringLiteral("logs"))); !e.isEmpty())
        return note(QStringLiteral("cannot create the run directory %1 (%2); check permissions or pass --out").arg(path, e));
    m_path = dir.absolutePath();
    m_logs.setDirectory(dir.absoluteFilePath(QStringLiteral("logs")));
    if (const QString e = writeFileAtomically(dir.filePath(QStringLiteral("topology.json")), topologyJson); !e.isEmpty()) return note(e);
    return openMetrics(dir.filePath(QStringLiteral("metrics.jsonl")));
}

QString RunDirectory::reopen(const QString& path, int round, const QByteArray& topologyJson, QList<QJsonObject>* kept) {
    const QDir dir(path);
    if (const QString e = checkRunFolders(dir.absolutePath()); !e.isEmpty()) return note(e);
    m_path = dir.absolutePath();
    m_logs.setDirectory(dir.absoluteFilePath(QStringLiteral("logs")));
    if (const QString e = writeTopology(topologyJson); !e.isEmpty()) return e;
    forgetPrivacyReruns();  // (the resumed topology took them: resumeTarget)
    const QString metricsPath = dir.filePath(QStringLiteral("metrics.jsonl"));
    QFile old(metricsPath);
    if (old.exists() && !old.open(QIODevice::ReadOnly))
        return note(QStringLiteral("cannot read %1: %2").arg(metricsPath, old.errorString()));
    QByteArray keep;
    while (old.isOpen() && !old.atEnd()) {
        const QByteArray line = old.readLine().trimmed();
        const QJsonObject record = QJsonDocument::fromJson(line).object();
        if (record.isEmpty() || record.value(QStringLiteral("round")).toInt(-1) > round) continue;
        keep += line + '\n';
        kept->append(record);
    }
    if (const QString e = writeFileAtomically(metricsPath, keep); !e.isEmpty()) return note(e);
    if (const QString e = makePrivateDirectory(dir.filePath(QStringLiteral("logs"))); !e.isEmpty()) return note(e);
    return openMetrics(metricsPath);
}

int RunDirectory::lastRoundRecorded(const QString& path) {
    QFile metrics(QDir(path).filePath(QStringLiteral("metrics.jsonl")));
    if (!metrics.open(QIODevice::ReadOnly)) return 0;
    int last = 0;
    while (!metrics.atEnd())
        last = std::max(last, QJsonDocument::fromJson(metrics.readLine()).object().value(QStringLiteral("round")).toInt(0));
    return last;
}

QString RunDirectory::reattach(const QString& path, qint64 metricsBytes, const std::function<void(const QJsonObject&)>& kept) {
    const QDir dir(path);
    if (const QString e = checkRunFolders(dir.absolutePath()); !e.isEmpty()) return note(e);
    m_path = dir.absolutePath();
    m_logs.setDirectory(dir.absoluteFilePath(QStringLiteral("logs")));
    const QString metricsPath = dir.filePath(QStringLiteral("metrics.jsonl"));
    QFile old(metricsPath);
    if (!old.open(QIODevice::ReadWrite)) return note(QStringLiteral("cannot read %1: %2").arg(metricsPath, old.errorString()));
    // What the history holds, whole lines (after a power cut the file may be shorter than the
    // history says: it ends at its last whole line); later lines come again from the agents.
    qint64 stored = 0;
    while (stored < metricsBytes && !old.atEnd()) {
        // (readLine(n) reads at most n − 1 bytes: a line ending exactly at the mark, as the
        // history's always do, came back without its '\n' and was cut off.)
        const QByteArray line = old.readLine(metricsBytes - stored + 1);
        if (!line.endsWith('\n')) break;
        stored += line.size();
        if (const QJsonObject record = QJsonDocument::fromJson(line).object(); !record.isEmpty()) kept(record);
    }
    if (old.size() != stored && (!old.resize(stored) || !old.flush()))
        return note(QStringLiteral("cannot cut %1 back to what the history holds: %2").arg(metricsPath, old.errorString()));
    old.close();
    return openMetrics(metricsPath);
}

QString RunDirectory::openMetrics(const QString& path) {
    m_metrics = std::make_unique<AppendFile>(path);
    const QString error = m_metrics->open();
    m_metricsDurability = m_metrics->durability();
    return note(error);
}

qint64 RunDirectory::metricsBytes() const {
    return m_metrics ? m_metrics->size() : 0;
}

QString RunDirectory::appendMetric(const QByteArray& jsonLine) {
    if (!m_metrics) return note(QStringLiteral("no run directory to write metrics.jsonl in"));
    return note(m_metrics->append(jsonLine + '\n'));
}

QString RunDirectory::appendLog(const QString& node, const QString& line) {
    return note(m_logs.append(node, line));
}

QString RunDirectory::writeTopology(const QByteArray& topologyJson) {
    return note(writeFileAtomically(QDir(m_path).filePath(QStringLiteral("topology.json")), topologyJson));
}

static QString privacyRerunsPath(const QString& runDir) {
    return QDir(runDir).filePath(QStringLiteral("privacy-reruns.json"));
}

QString RunDirectory::keepPrivacyReruns(const QList<std::pair<int, int>>& rounds) {
    QJsonArray list;
    for (const auto& [first, last] : rounds) list.append(QJsonArray{first, last});
    return note(writeFileAtomically(privacyRerunsPath(m_path), QJsonDocument(list).toJson(QJsonDocument::Compact)));
}

void RunDirectory::forgetPrivacyReruns() {
    QFile::remove(privacyRerunsPath(m_path));
}

// (Read as topology.json's rerun_rounds are: pairs of rounds from 1 to `rounds`; anything else in
// the file is left out. Up to a pair per round and restart: 1 MiB is far more.)
QList<std::pair<int, int>> RunDirectory::privacyReruns(const QString& runDir, int rounds) {
    QFile f(privacyRerunsPath(runDir));
    QList<std::pair<int, int>> out;
    if (!f.open(QIODevice::ReadOnly) || f.size() > (1 << 20)) return out;
    for (const QJsonValue& v : QJsonDocument::fromJson(f.readAll()).array()) {
        const QJsonArray pair = v.toArray();
        const int first = pair.at(0).toInt(-1), last = pair.at(1).toInt(-1);
        if (pair.size() == 2 && first >= 1 && first <= last && last <= rounds) out.append({first, last});
    }
    return out;
}

QString RunDirectory::writeSummary(const QJsonObject& summary) {
    return note(writeFileAtomically(QDir(m_path).filePath(QStringLiteral("summary.json")), QJsonDocument(summary).toJson()));
}

}  // namespace hips
