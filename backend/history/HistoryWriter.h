#pragma once
// The history's one writer (internal to the history library): its own connection on its own
// thread, queued jobs committed in batches, a committed mark for acknowledgements, and patience
// with a file another program holds locked.
#include <QHash>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QString>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace hips::store {

// A history another program keeps locked (an open transaction in a database browser or a
// `sqlite3` shell) is waited for this long in all, the writer saying so meanwhile; then writing fails.
constexpr std::chrono::minutes kMaxLockedWait{5};

// A connection name no other connection of this process has.
QString uniqueConnection(const char* role);

// A writer connection and its prepared statements, which must all go before the connection.
// A job that fails leaves the cause in `error` and returns false.
struct WriterSession {
    QSqlDatabase db;
    QHash<QString, QSqlQuery> statements;
    sqlite3* native = nullptr;
    sqlite3_stmt* insertMetric = nullptr;  // the hot path; see insertMetrics()
    QString error;
    bool busy = false;  // the last failure was SQLite's "database is locked" (another connection writes)

    // A cached prepared statement, or nullptr (and `error` set) if it cannot be prepared.
    QSqlQuery* prepared(const QString& sql);
    bool exec(QSqlQuery& q);
    bool exec(const QString& sql);
    // Binds `values` in order to the cached statement `sql` and runs it.
    bool run(const QString& sql, std::initializer_list<QVariant> values);
    // Metric rows go in through SQLite's own statement API on the same connection Qt Sql opened:
    // QSqlQuery's per-value QVariant binding, not SQLite, capped ingest at ~180,000 rows/s.
    void prepareHotPath();
    void finish();

private:
    bool failed(const QSqlError& e);
};

struct MetricRow {
    qint64 run;
    double t;
    QString source;
    int round;
    QString name;
    double value;
};

// The first failure (a statement, BEGIN or COMMIT) rolls its batch back and fails the writer:
// the committed mark stays where it was and every later job is dropped unrun. A file locked by
// another program is not a failure until it has been locked for kMaxLockedWait: the batch waits
// and is tried again, and the stall listener hears when the wait begins and when it ends.
class HistoryWriter {
public:
    // busyTimeoutMs: how long SQLite waits for a lock before the writer calls the file locked
    // (the store's kBusyTimeoutMs; tests shorten it).
    HistoryWriter(const QString& path, int busyTimeoutMs) : m_path(path), m_busyTimeoutMs(busyTimeoutMs) {}
    ~HistoryWriter();

    // Starts the thread and waits until its connection is open; returns an error text.
    QString start();
    // `before` (when given) runs first, outside the batch's transaction (it may take a while: an
    // fdatasync, RunStore::markAgentEvent), and an error it returns fails the batch as a failed
    // statement does.
    void post(std::function<bool(WriterSession&)> run, std::function<QString()> before = {});
    void postMetric(MetricRow row);
    // While held, the writer takes nothing from the queue: what is posted meanwhile (one agent
    // event's rows and its mark) goes into one commit.
    void hold(bool held);
    // Waits until everything posted so far is committed (true) or writing has failed (false),
    // asking `eachSecond` (without the writer's lock) every second it waits whether to go on
    // waiting: when it says no, returns false with the writes still queued.
    bool flush(const std::function<bool()>& eachSecond = {});
    // While another program holds the file locked, what the stall listener was told; else empty.
    QString lockedNotice();

    quint64 posted();
    quint64 committed();
    QString error();
    quint64 setListener(std::function<void(quint64)> listener);
    void clearListener(quint64 token);
    quint64 setErrorListener(std::function<void(const QString&)> listener);
    void clearErrorListener(quint64 token);
    // Called (under the writer's lock, on its thread) with what to tell the user when the file
    // has been locked by another program for its busy timeout, and again when writing goes on.
    quint64 setStallListener(std::function<void(const QString&)> listener);
    void clearStallListener(quint64 token);

private:
    struct Job {
        std::function<bool(WriterSession&)> run;  // empty for a batch of metric rows
        std::vector<MetricRow> metrics;
        std::function<QString()> before;
        size_t units() const { return run ? 1 : metrics.size(); }
    };
    enum class Outcome { Committed, Locked, Failed };

    QString openSession(WriterSession& session);
    static Outcome commitBatch(WriterSession& s, std::deque<Job>& batch);
    void loop(std::promise<QString>& opened);
    // After a batch: the marks, the listeners, and a locked batch put back at the queue's front.
    void settle(Outcome outcome, std::deque<Job>& batch, quint64 units, const QString& cause);

    QString m_path;
    int m_busyTimeoutMs;
    std::thread m_thread;
    std::mutex m_mutex;
    std::condition_variable m_wake, m_done;
    std::deque<Job> m_queue;
    quint64 m_posted = 0, m_committed = 0;
    bool m_held = false;
    std::function<void(quint64)> m_listener;
    quint64 m_listenerToken = 0;
    std::function<void(const QString&)> m_errorListener;
    quint64 m_errorListenerToken = 0;
    std::function<void(const QString&)> m_stallListener;
    quint64 m_stallListenerToken = 0;
    std::chrono::steady_clock::time_point m_lockedSince{};  // the epoch while not stalled
    QString m_lockedNotice;
    bool m_failed = false;
    QString m_error;
    bool m_stop = false;
};

}  // namespace hips::store
