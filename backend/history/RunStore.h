#pragma once
// The run history: one SQLite file (Qt Sql, QSQLITE driver) in WAL mode. Writes go through
// one writer thread with its own connection and are committed in batches; reads use the
// caller's connection. The schema carries a version table and is created or migrated in one
// exclusive transaction. A file that is not SQLite, is damaged (PRAGMA quick_check), or is SQLite
// but not a HiPS history, is refused and never written. Every write is checked: the first failure
// rolls its batch back, stops the committed mark and fails the store (see writeError()).
#include "HistoryRecords.h"
#include "RunClock.h"

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <functional>
#include <memory>
#include <optional>

class QSqlQuery;

namespace hips {

namespace store {
class HistoryWriter;
// Several controllers may share one history: a connection waits this long for its turn to write.
inline constexpr int kBusyTimeoutMs = 30000;
}  // namespace store

// A trainer's "device" record as one line: "runs on cuda:0 (NVIDIA H100 80GB HBM3) with LibTorch 2.11.0 (CUDA 13.0)".
QString describeDeviceRecord(const QJsonObject& record);

class RunStore {
public:
    static constexpr int kSchemaVersion = 7;

    enum OpenMode {
        // Creates the file (0600, its new directories 0700) if absent, migrates an older schema,
        // and marks runs left 'running' by a controller that is no longer alive 'interrupted',
        // with an error event giving the reason and a final state for their processes.
        ReadWrite,
        // Never creates, writes or migrates: for `history list|show` and `report`, also on a
        // read-only mount or a 0444 file. Runs of dead controllers read as interrupted, as above.
        // Write calls are refused (writeError() says so).
        ReadOnly,
    };
    // Opens the history at `path`; on failure returns nullptr and sets *error. busyTimeoutMs: how
    // long a write waits for another program's lock before the store says the file is locked.
    static std::unique_ptr<RunStore> open(const QString& path, QString* error, OpenMode mode = ReadWrite,
                                          int busyTimeoutMs = store::kBusyTimeoutMs);
    static QString defaultPath();  // under the user's application data directory
    ~RunStore();

    // Writes (queued to the writer thread, committed in batches).
    qint64 beginRun(const QString& name, const QByteArray& topologyJson, const QJsonObject& settings, const QString& runDir = {});
    // The run goes on from the checkpoint of `round` (hips run --resume): it is 'running' again
    // under this controller, and an event says so. Its topology and settings are those it goes on
    // with (a resume may give it more rounds). What was recorded after that round stays until
    // the resumed run records a later round of its own (cutRunAfter), so that an attempt that
    // fails before then can leave the run as it was (restoreRun). `keptMetricsBytes`: the length of
    // the run directory's metrics.jsonl with the records up to `round` it keeps, which the history
    // holds (a controller that attaches before the new agents' first event takes the file up from
    // there; it cut it to nothing). The cut to come is kept with the run (pendingCut). Returns the
    // resume's time.
    double resumeRun(qint64 run, int round, const QByteArray& topologyJson, const QJsonObject& settings, qint64 keptMetricsBytes);
    // The rows of the rounds after `round` go: the resumed run trains them again.
    void cutRunAfter(qint64 run, int round);
    // The round a resume of `run` went back to while the rows past it from before the resume are
    // still there (resumeRun, until cutRunAfter or restoreRun): a controller that attaches to the
    // run cuts them at its first later round, as the resumed one would have.
    std::optional<int> pendingCut(qint64 run) const;
    // A resume that ended before its first round: the run's row as it was (`before`, with its
    // topology and settings), the resume's marker and rows gone (those from `resumedAt` on: the
    // run's clock would count the pause before them as running), and an error event that says why.
    void restoreRun(const RunRecord& before, double resumedAt, const QByteArray& topologyJson, const QJsonObject& settings,
                    const QString& why);
    // A controller took up the run again (hips attach): it is running again, under this process.
    void reattachRun(qint64 run, const QString& note);
    // The history holds `agent`'s events up to `seq`, and metrics.jsonl was `metricsBytes` long
    // then; committed with the rows of that event. `durable` (when given) is run first, on the
    // writer's thread: it makes that much of the file durable, and an error it returns fails the
    // history as a failed write does (a length is never committed ahead of the file's bytes).
    void markAgentEvent(qint64 run, const QString& agent, qint64 seq, qint64 metricsBytes, const std::function<QString()>& durable = {});
    void appendMetric(qint64 run, double t, const QString& source, int round, const QString& name, double value);
    void appendTraffic(qint64 run, const TrafficRecord& row);
    // A role's metric record as it came ({"kind", "node", "t", "round", fields}): numeric fields of
    // train/aggregate/eval/startup records become metric rows named "<kind>.<field>"; traffic
    // records become traffic rows, the cumulative bytes sent per link ("node>peer") and tier.
    void appendRecord(qint64 run, const QJsonObject& record);
    void appendEvent(qint64 run, double t, const QString& level, const QString& source, const QString& message);
    void recordProcess(qint64 run, const ProcessRecord& process);  // inserts or replaces the node's row
    void finishRun(qint64 run, const QString& status, const QJsonObject& summary);
    void deleteRun(qint64 run);
    void setRunLabels(qint64 run, const QString& name, const QString& tags, const QString& notes);
    // Returns once everything queued before it is committed (true), or the store has failed
    // and some of it never will be (false). It ends a group.
    // While it waits, `eachSecond` is asked every second (on this thread) whether to go on
    // waiting; when it says no, flush returns false and the writes stay queued.
    bool flush(const std::function<bool()>& eachSecond = {});
    // flush() for a person waiting on a click: at most `seconds`, then false with the writes
    // still queued (writeError() empty: the file is busy, they are stored once it is free).
    bool flushWithin(int seconds);
    // While another program holds the file locked, what the stall listener was told; else empty.
    QString lockedNotice() const;
    // What is written between the two goes into one commit (the rows of one agent event and its
    // mark: a controller that dies leaves all of them stored, or none).
    void beginGroup();
    void endGroup();

    // The first write failure, naming the cause and the file, e.g. "history: database or disk is
    // full (/home/u/history.sqlite)"; empty while every write succeeded. Once failed, the store
    // refuses all later writes (dropped whole, never half-written) and the committed mark stays.
    QString writeError() const;
    // The first read that failed (the file locked past the busy timeout, unreadable, not a history),
    // naming the cause and the file; empty while every read succeeded. A failed read yields nothing:
    // a caller that shows what it read checks this first ("no run 3" is no answer to a locked file).
    QString readError() const { return m_readError; }
    // Forgets the read failure: a window that reads again and again (the Studio's History) asks
    // anew each time, where a command reads once.
    void clearReadError() { m_readError.clear(); }
    // The listener runs once, on the writer thread, when writing fails, with writeError()'s
    // text. Like the commit listener it runs under the writer's lock: it must not call back
    // into the store (post to another thread instead). Tokens work as for the commit listener.
    quint64 setErrorListener(std::function<void(const QString& error)> listener);
    void clearErrorListener(quint64 token);
    // A history another program keeps locked is waited for (store::kMaxLockedWait) before writing
    // fails: the listener hears, as for errors, when the wait begins and when writing goes on.
    quint64 setStallListener(std::function<void(const QString& text)> listener);
    void clearStallListener(quint64 token);
    bool isReadOnly() const { return !m_writer; }
    const QString& path() const { return m_path; }

    // Commit marks, for callers that must not acknowledge a write before it is durable:
    // a write is committed once committedMark() >= the postedMark() read right after it.
    // The listener runs on the writer thread after each commit, with the new committed mark.
    quint64 postedMark() const;
    quint64 committedMark() const;
    // Returns a token; clearCommitListener(token) removes the listener only if it is still that
    // one (a newer owner may have replaced it).
    quint64 setCommitListener(std::function<void(quint64 committed)> listener);
    void clearCommitListener(quint64 token);

    // The reason event a run of a dead controller gets (see OpenMode).
    static QString interruptedReason(qint64 controllerPid);
    // Which process `pid` is, beyond its number: "BOOT_ID:START_TICKS" (the kernel's boot id and
    // the process's start time, field 22 of /proc/PID/stat); empty when it is gone or unreadable.
    // A controller's run stays 'running' only while its pid still has its token.
    static QString processToken(qint64 pid);

    // Reads.
    QList<RunRecord> runs() const;
    QList<RunListEntry> runList() const;  // every run with its facts, in two queries
    std::optional<RunRecord> run(qint64 id) const;
    qint64 metricCount(qint64 run) const;
    RunFacts facts(qint64 run) const;
    QStringList eventMessages(qint64 run, const QString& level) const;  // "source: message", oldest first
    QByteArray topologyJson(qint64 run) const;
    QString runDirectory(qint64 run) const;  // empty for runs recorded before it was kept
    std::optional<qint64> runOfDirectory(const QString& runDir) const;  // the newest run kept there
    QJsonObject settings(qint64 run) const;
    QList<MetricRecord> metrics(qint64 run) const;  // in time order
    QList<TrafficRecord> traffic(qint64 run) const;  // in time order
    QList<EventRecord> events(qint64 run) const;  // in time order
    // The run's own clock (RunClock.h), from its resumes and the rows before each, asked of the
    // tables rather than read whole: an hour's run has 100,000 rows.
    RunClock clock(qint64 run) const;
    // How long run `r` ran, in seconds: its controller's figure, else by its clock to its end (a
    // pause before a resume left out either way); -1 while it runs.
    double duration(const RunRecord& r) const;
    QList<ProcessRecord> processes(qint64 run) const;  // by node id
    struct AgentMark {
        qint64 seq = 0, metricsBytes = 0;
    };
    QHash<QString, AgentMark> agentMarks(qint64 run) const;  // by agent (host id)
    // The pid of the controller following `run`, if it is running and that process is alive.
    std::optional<qint64> liveController(qint64 run) const;
    int schemaVersion() const;

private:
    // A run left 'running' by a dead controller, as a read-only store presents it.
    struct StaleRun {
        qint64 pid = 0;
        double ended = 0;  // its last metric's time, 0 if none
        double reasonT = 0;  // the time of the reason event: after every row of the run
    };
    RunStore() = default;
    QString openForWriting();
    QString openForReading();
    QString findStaleRuns(QList<std::pair<qint64, StaleRun>>* stale) const;
    QString markInterrupted();
    void presentStale(RunRecord& run) const;
    QSqlQuery reader() const;  // a query on this store's read connection
    bool read(QSqlQuery& q, const QString& sql = {}) const;  // runs it (prepared: no sql); a failure is kept in m_readError
    mutable QString m_readError;
    QString m_path;
    int m_busyTimeoutMs = store::kBusyTimeoutMs;
    QString m_connection;
    std::unique_ptr<store::HistoryWriter> m_writer;  // null when opened ReadOnly
    QHash<qint64, StaleRun> m_stale;  // ReadOnly: runs that read as interrupted
};

}  // namespace hips
