#pragma once
// The run history: one SQLite file (Qt Sql, QSQLITE driver) in WAL mode. Writes go through
// one writer thread with its own connection and are committed in batches; reads use the
// caller's connection. The schema carries a version table and is migrated in transactions.
// A file that is not SQLite, or is SQLite but not a HiPS history, is refused and never written.
#include "HistoryRecords.h"

#include <QList>
#include <functional>
#include <memory>
#include <optional>

class QSqlQuery;

namespace hips {

class RunStore {
public:
    static constexpr int kSchemaVersion = 2;

    // Opens (creating if absent) the history at `path`; on failure returns nullptr and sets *error.
    // Runs left 'running' by a controller that is no longer alive are marked 'interrupted'.
    static std::unique_ptr<RunStore> open(const QString& path, QString* error);
    static QString defaultPath();  // under the user's application data directory
    ~RunStore();

    // Writes (queued to the writer thread, committed in batches).
    qint64 beginRun(const QString& name, const QByteArray& topologyJson, const QJsonObject& settings);
    void appendMetric(qint64 run, double t, const QString& source, int round, const QString& name, double value);
    void appendTraffic(qint64 run, const TrafficRecord& row);
    void appendEvent(qint64 run, double t, const QString& level, const QString& source, const QString& message);
    void recordProcess(qint64 run, const ProcessRecord& process);  // inserts or replaces the node's row
    void finishRun(qint64 run, const QString& status, const QJsonObject& summary);
    void deleteRun(qint64 run);
    void flush();  // returns once everything queued before it is committed

    // Commit marks, for callers that must not acknowledge a write before it is durable:
    // a write is committed once committedMark() >= the postedMark() read right after it.
    // The listener runs on the writer thread after each commit, with the new committed mark.
    quint64 postedMark() const;
    quint64 committedMark() const;
    // Returns a token; clearCommitListener(token) removes the listener only if it is still that
    // one (a newer owner may have replaced it).
    quint64 setCommitListener(std::function<void(quint64 committed)> listener);
    void clearCommitListener(quint64 token);

    // Reads.
    QList<RunRecord> runs() const;
    QList<RunListEntry> runList() const;  // every run with its facts, in two queries
    std::optional<RunRecord> run(qint64 id) const;
    qint64 metricCount(qint64 run) const;
    RunFacts facts(qint64 run) const;
    QStringList eventMessages(qint64 run, const QString& level) const;  // "source: message", oldest first
    QByteArray topologyJson(qint64 run) const;
    QJsonObject settings(qint64 run) const;
    QList<MetricRecord> metrics(qint64 run) const;  // in time order
    QList<TrafficRecord> traffic(qint64 run) const;  // in time order
    QList<EventRecord> events(qint64 run) const;     // in time order
    QList<ProcessRecord> processes(qint64 run) const;  // by node id
    int schemaVersion() const;

private:
    struct Writer;
    RunStore() = default;
    QSqlQuery reader() const;  // a query on this store's read connection
    QString m_connection;
    std::unique_ptr<Writer> m_writer;
};

}  // namespace hips
