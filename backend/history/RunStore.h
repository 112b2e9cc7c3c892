#pragma once
// The run history: one SQLite file (Qt Sql, QSQLITE driver) in WAL mode. Writes go through
// one writer thread with its own connection and are committed in batches; reads use the
// caller's connection. The schema carries a version table and is migrated in transactions.
// A file that is not SQLite, or is SQLite but not a HiPS history, is refused and never written.
#include <QJsonObject>
#include <QList>
#include <QString>
#include <functional>
#include <memory>
#include <optional>

class QSqlDatabase;

namespace hips {

struct RunRecord {
    qint64 id = 0;
    QString name, status;  // status: running, finished, failed, interrupted
    double started = 0, ended = 0;  // unix seconds; ended 0 while running
    QJsonObject summary;
};

// Figures of a run computed from its metric rows, so that an interrupted run has them too.
struct RunFacts {
    int rounds = 0;             // last round the global server applied
    double bestAccuracy = -1;   // -1: never evaluated
    double finalAccuracy = -1;  // accuracy at the last evaluated round
    double bytesAcross = 0;     // bytes sent across parties, all nodes
};

class RunStore {
public:
    static constexpr int kSchemaVersion = 1;

    // Opens (creating if absent) the history at `path`; on failure returns nullptr and sets *error.
    // Runs left 'running' by a controller that is no longer alive are marked 'interrupted'.
    static std::unique_ptr<RunStore> open(const QString& path, QString* error);
    static QString defaultPath();  // under the user's application data directory
    ~RunStore();

    // Writes (queued to the writer thread, committed in batches).
    qint64 beginRun(const QString& name, const QByteArray& topologyJson, const QJsonObject& settings);
    void appendMetric(qint64 run, double t, const QString& source, int round, const QString& name, double value);
    void appendEvent(qint64 run, double t, const QString& level, const QString& source, const QString& message);
    void finishRun(qint64 run, const QString& status, const QJsonObject& summary);
    void deleteRun(qint64 run);
    void flush();  // returns once everything queued before it is committed

    // Reads.
    QList<RunRecord> runs() const;
    std::optional<RunRecord> run(qint64 id) const;
    qint64 metricCount(qint64 run) const;
    RunFacts facts(qint64 run) const;
    QStringList eventMessages(qint64 run, const QString& level) const;  // "source: message", oldest first
    int schemaVersion() const;

private:
    struct Writer;
    RunStore() = default;
    QString m_connection;
    std::unique_ptr<Writer> m_writer;
};

}  // namespace hips
