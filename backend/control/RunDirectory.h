#pragma once
// The files of one run: topology.json, metrics.jsonl (every metric record, as received),
// logs/<party>-<role>.log (RoleLogFiles: each kept to kLogBytes, the older part in .log.1), summary.json. The master worker writes net.meta
// / net.params here. The directory is private (0700, its files 0600, whatever the umask). Every write is checked: whole files are replaced
// atomically, and a line that cannot be appended whole is taken back, so a file never ends in half a line that later text would be glued
// to.
#include "RoleLogFiles.h"

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <functional>
#include <memory>

namespace hips {

class RunDirectory {
public:
    RunDirectory();
    ~RunDirectory();
    RunDirectory(const RunDirectory&) = delete;
    RunDirectory& operator=(const RunDirectory&) = delete;

    // Creates the directory and topology.json; returns an error text, empty on success.
    QString create(const QString& path, const QByteArray& topologyJson);
    // Opens an existing run directory to go on from the checkpoint of `round` (hips run --resume):
    // metrics.jsonl keeps only the records of rounds up to it (and those of no round), which are
    // returned in *kept; topology.json becomes `topologyJson`, the topology it goes on with.
    QString reopen(const QString& path, int round, const QByteArray& topologyJson, QList<QJsonObject>* kept);
    // Opens the directory of a run under way whose controller died (hips attach): metrics.jsonl
    // is cut back to its first `metricsBytes`, what the history holds (the agents send the rest
    // again), whose records are handed to `kept` one at a time, read a line at a time (an hour's
    // run holds 100,000: a list of them was most of an attached controller's memory).
    QString reattach(const QString& path, qint64 metricsBytes, const std::function<void(const QJsonObject&)>& kept);
    const QString& path() const { return m_path; }
    qint64 metricsBytes() const;  // metrics.jsonl's length: its whole lines
    // What makes metrics.jsonl's lines so far durable (AppendFile::durability): the history runs it
    // before it commits a length of the file (hips attach cuts the file back to that length, and
    // the agents do not send again what the history holds). Empty without a file.
    const std::function<QString()>& metricsDurability() const { return m_metricsDurability; }

    // Each returns an error text naming the file and the cause ("cannot write …/metrics.jsonl:
    // no space left on device"), empty on success. After a failed append that file takes no
    // more lines (each later call returns its first error).
    QString appendMetric(const QByteArray& jsonLine);
    QString appendLog(const QString& node, const QString& line);
    QString writeSummary(const QJsonObject& summary);  // replaces summary.json atomically
    // Replaces topology.json atomically: where the roles run now (one moved to a standby host),
    // as hips attach reads it.
    QString writeTopology(const QByteArray& topologyJson);
    // privacy-reruns.json: the rounds a noising role's restart trained again ([[r, r], ...]),
    // kept as each is counted. topology.json takes them as the run ends; a controller killed
    // before lost them, and a resume or an attach under-counted what privacy spent.
    QString keepPrivacyReruns(const QList<std::pair<int, int>>& rounds);
    void forgetPrivacyReruns();  // topology.json holds them now
    static QList<std::pair<int, int>> privacyReruns(const QString& runDir, int rounds);

    QString error() const { return m_error; }  // the first write error, empty if none

    // runs/<yyyyMMdd-HHmmss>-<name>, made (empty) here: a run started in the same second gets
    // "-2", "-3", ... (two runs shared one directory); empty when none could be made.
    static QString freshDefaultPath(const QString& topologyName);
    // `name` with every character but letters, digits, '_', '.' and '-' made '_': a folder's and a
    // Slurm job's name (a space split an #SBATCH line; a newline began a command in the job script).
    static QString safeName(const QString& name);
    // The highest round of a record in `path`'s metrics.jsonl (0: none, or no such file).
    static int lastRoundRecorded(const QString& path);
    // A role's output file in logs/: "party1/worker0" → "party1-worker0.log".
    static QString logFileName(const QString& node) { return RoleLogFiles::fileName(node); }
    static constexpr qint64 kLogBytes = RoleLogFiles::kBytes;

private:
    QString note(const QString& error);  // keeps the first error; returns `error`
    QString openMetrics(const QString& path);
    QString m_path;
    QString m_error;
    std::unique_ptr<AppendFile> m_metrics;
    std::function<QString()> m_metricsDurability;
    RoleLogFiles m_logs;
};

}  // namespace hips
