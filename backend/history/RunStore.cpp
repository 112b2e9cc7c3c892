#include "RunStore.h"

#include "PrivateFiles.h"
#include "RunStoreSchema.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QJsonDocument>
#include <QSqlDatabase>
#include <QSqlDriver>
#include <QSqlError>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QUrl>
#include <QVariant>
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <csignal>
#include <deque>
#include <future>
#include <mutex>
#include <sqlite3.h>
#include <thread>
#include <unistd.h>

namespace hips {

using namespace store;

namespace {

std::atomic<int> g_connections{0};

QString uniqueConnection(const char* role) {
    return QStringLiteral("hips-history-%1-%2").arg(QLatin1String(role)).arg(g_connections.fetch_add(1));
}

// Several controllers may share one history: a connection waits this long for its turn to write.
constexpr int kBusyTimeoutMs = 30000;

double now() { return double(QDateTime::currentMSecsSinceEpoch()) / 1000.0; }

QString writeFailure(const QString& cause, const QString& path) {
    return QStringLiteral("history: %1 (%2)").arg(cause, path);
}

}  // namespace

// A writer connection and its prepared statements, which must all go before the connection.
// A job that fails leaves the cause in `error` and returns false.
struct WriterSession {
    QSqlDatabase db;
    QHash<QString, QSqlQuery> statements;
    sqlite3* native = nullptr;
    sqlite3_stmt* insertMetric = nullptr;  // the hot path; see insertMetrics()
    QString error;

    // A cached prepared statement, or nullptr (and `error` set) if it cannot be prepared.
    QSqlQuery* prepared(const QString& sql) {
        auto it = statements.find(sql);
        if (it == statements.end()) {
            QSqlQuery q(db);
            if (!q.prepare(sql)) {
                error = sqlErrorText(q.lastError());
                return nullptr;
            }
            it = statements.insert(sql, q);
        }
        return &*it;
    }
    bool exec(QSqlQuery& q) {
        if (q.exec()) return true;
        error = sqlErrorText(q.lastError());
        return false;
    }
    bool exec(const QString& sql) {
        QSqlQuery q(db);
        if (q.exec(sql)) return true;
        error = sqlErrorText(q.lastError());
        return false;
    }
    // Binds `values` in order to the cached statement `sql` and runs it.
    bool run(const QString& sql, std::initializer_list<QVariant> values) {
        QSqlQuery* q = prepared(sql);
        if (!q) return false;
        int i = 0;
        for (const QVariant& v : values) q->bindValue(i++, v);
        return exec(*q);
    }

    // Metric rows go in through SQLite's own statement API on the same connection Qt Sql opened:
    // QSqlQuery's per-value QVariant binding, not SQLite, capped ingest at ~180,000 rows/s.
    void prepareHotPath() {
        const QVariant handle = db.driver()->handle();
        if (!handle.isValid() || qstrcmp(handle.typeName(), "sqlite3*") != 0) return;
        native = *static_cast<sqlite3* const*>(handle.constData());
        if (native && sqlite3_prepare_v2(native, "INSERT INTO metrics VALUES (?,?,?,?,?,?)", -1, &insertMetric, nullptr) != SQLITE_OK)
            insertMetric = nullptr;  // the portable path then reports the cause
    }
    void finish() {
        sqlite3_finalize(insertMetric);
        insertMetric = nullptr;
        statements.clear();
    }
};

struct MetricRow {
    qint64 run;
    double t;
    QString source;
    int round;
    QString name;
    double value;
};

// Consecutive metric rows travel as one job (one lock and one wake-up per batch, not per row).
constexpr int kRowsPerJob = 500;

bool insertMetrics(WriterSession& s, const std::vector<MetricRow>& rows) {
    sqlite3_stmt* q = s.insertMetric;
    if (!q) {  // no native handle: the portable, slower path
        for (const MetricRow& r : rows)
            if (!s.run(QStringLiteral("INSERT INTO metrics VALUES (?,?,?,?,?,?)"),
                       {QVariant(r.run), QVariant(r.t), QVariant(r.source), QVariant(r.round), QVariant(r.name), QVariant(r.value)}))
                return false;
        return true;
    }
    for (const MetricRow& r : rows) {
        int rc = sqlite3_bind_int64(q, 1, r.run);
        if (rc == SQLITE_OK) rc = sqlite3_bind_double(q, 2, r.t);
        if (rc == SQLITE_OK) rc = sqlite3_bind_text16(q, 3, r.source.utf16(), int(r.source.size() * 2), SQLITE_STATIC);
        if (rc == SQLITE_OK) rc = sqlite3_bind_int(q, 4, r.round);
        if (rc == SQLITE_OK) rc = sqlite3_bind_text16(q, 5, r.name.utf16(), int(r.name.size() * 2), SQLITE_STATIC);
        if (rc == SQLITE_OK) rc = sqlite3_bind_double(q, 6, r.value);
        if (rc == SQLITE_OK) rc = sqlite3_step(q);
        if (rc != SQLITE_DONE) {
            s.error = QString::fromUtf8(sqlite3_errmsg(s.native));
            sqlite3_reset(q);
            return false;
        }
        sqlite3_reset(q);
    }
    return true;
}

// The one writer: its own connection on its own thread, queued jobs committed in batches.
// The first failure (a statement, BEGIN or COMMIT) rolls its batch back and fails the writer:
// the committed mark stays where it was and every later job is dropped unrun.
struct RunStore::Writer {
    struct Job {
        std::function<bool(WriterSession&)> run;  // empty for a batch of metric rows
        std::vector<MetricRow> metrics;
        size_t units() const { return run ? 1 : metrics.size(); }
    };

    explicit Writer(const QString& path) : m_path(path) {}
    ~Writer() {
        if (!m_thread.joinable()) return;
        {
            std::lock_guard lock(m_mutex);
            m_stop = true;
        }
        m_wake.notify_all();
        m_thread.join();
    }

    // Starts the thread and waits until its connection is open; returns an error text.
    QString start() {
        auto opened = std::make_shared<std::promise<QString>>();
        std::future<QString> result = opened->get_future();
        m_thread = std::thread([this, opened] { loop(*opened); });
        return result.get();
    }

    void post(std::function<bool(WriterSession&)> run) {
        {
            std::lock_guard lock(m_mutex);
            ++m_posted;  // counted even when dropped, so that its mark is never reported committed
            if (m_failed) return;
            m_queue.push_back(Job{std::move(run), {}});
        }
        m_wake.notify_one();
    }

    void postMetric(MetricRow row) {
        {
            std::lock_guard lock(m_mutex);
            ++m_posted;
            if (m_failed) return;
            if (m_queue.empty() || m_queue.back().run || m_queue.back().metrics.size() >= size_t(kRowsPerJob))
                m_queue.push_back(Job{{}, {}});
            m_queue.back().metrics.push_back(std::move(row));
        }
        m_wake.notify_one();
    }

    // While held, the writer takes nothing from the queue: what is posted meanwhile (one agent
    // event's rows and its mark) goes into one commit.
    void hold(bool held) {
        {
            std::lock_guard lock(m_mutex);
            m_held = held;
        }
        m_wake.notify_one();
    }

    bool flush() {
        hold(false);  // (a flush inside an event's rows must not wait for itself)
        std::unique_lock lock(m_mutex);
        const quint64 target = m_posted;
        m_done.wait(lock, [&] { return m_committed >= target || m_failed; });
        return m_committed >= target;
    }

    quint64 posted() {
        std::lock_guard lock(m_mutex);
        return m_posted;
    }
    quint64 committed() {
        std::lock_guard lock(m_mutex);
        return m_committed;
    }
    QString error() {
        std::lock_guard lock(m_mutex);
        return m_error;
    }
    quint64 setListener(std::function<void(quint64)> listener) {
        std::lock_guard lock(m_mutex);
        m_listener = std::move(listener);
        return ++m_listenerToken;
    }
    void clearListener(quint64 token) {
        std::lock_guard lock(m_mutex);
        if (token == m_listenerToken) m_listener = {};
    }
    quint64 setErrorListener(std::function<void(const QString&)> listener) {
        std::lock_guard lock(m_mutex);
        m_errorListener = std::move(listener);
        return ++m_errorListenerToken;
    }
    void clearErrorListener(quint64 token) {
        std::lock_guard lock(m_mutex);
        if (token == m_errorListenerToken) m_errorListener = {};
    }

private:
    // Opens the writer's connection; returns an error text.
    QString openSession(WriterSession& session) {
        QSqlDatabase& db = session.db;
        db.setDatabaseName(m_path);
        db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=%1").arg(kBusyTimeoutMs));
        if (!db.open()) return writeFailure(sqlErrorText(db.lastError()), m_path);
        QString sqlError;
        if (!exec(db, QStringLiteral("PRAGMA foreign_keys=ON"), &sqlError) ||
            // FULL: a commit is on disk before the commit listener hears of it, so an agent event
            // acknowledged after it survives a power cut too (NORMAL would only survive a crash).
            // It costs one fsync per batch: ingest speed is unchanged, the bench's 1,000 small
            // runs take ~2.2 s instead of ~1.8 s.
            !exec(db, QStringLiteral("PRAGMA synchronous=FULL"), &sqlError))
            return writeFailure(sqlError, m_path);
        session.prepareHotPath();
        return {};
    }

    // Runs one batch in one transaction; false (and session.error) if any of it failed.
    static bool commitBatch(WriterSession& s, std::deque<Job>& batch) {
        if (!s.exec(QStringLiteral("BEGIN IMMEDIATE"))) return false;
        for (Job& job : batch)
            if (!(job.run ? job.run(s) : insertMetrics(s, job.metrics))) return false;
        return s.exec(QStringLiteral("COMMIT"));
    }

    void loop(std::promise<QString>& opened) {
        const QString name = uniqueConnection("writer");
        {
            WriterSession session;
            session.db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
            const QString openError = openSession(session);
            if (!openError.isEmpty()) {
                std::lock_guard lock(m_mutex);
                m_failed = true;
                m_error = openError;
            }
            opened.set_value(openError);
            while (true) {
                std::deque<Job> batch;
                {
                    std::unique_lock lock(m_mutex);
                    m_wake.wait(lock, [&] { return m_stop || (!m_queue.empty() && !m_held); });
                    if (m_queue.empty() && m_stop) break;
                    batch.swap(m_queue);
                    if (m_failed) continue;  // dropped: nothing after a failure is written
                }
                quint64 units = 0;
                for (const Job& job : batch) units += job.units();
                const bool ok = commitBatch(session, batch);
                if (!ok) exec(session.db, QStringLiteral("ROLLBACK"), nullptr);  // SQLite may have rolled back already
                {
                    // The listeners run under the lock so that clearing one (setListener({}))
                    // waits for a call in progress: its owner may be about to go away.
                    std::lock_guard lock(m_mutex);
                    if (ok) {
                        m_committed += units;
                        if (m_listener) m_listener(m_committed);
                    } else {
                        m_failed = true;
                        m_error = writeFailure(session.error, m_path);
                        m_queue.clear();
                        if (m_errorListener) m_errorListener(m_error);
                    }
                }
                m_done.notify_all();
            }
            session.finish();
        }
        QSqlDatabase::removeDatabase(name);
    }

    QString m_path;
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
    bool m_failed = false;
    QString m_error;
    bool m_stop = false;
};

QString RunStore::defaultPath() {
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) + QStringLiteral("/hips-studio");
    return dir + QStringLiteral("/history.sqlite");
}

QString RunStore::interruptedReason(qint64 controllerPid) {
    return QStringLiteral("the controller (pid %1) ended without finishing the run (killed, crashed or the machine "
                          "stopped); while its agents keep it going (orphan_timeout_s), hips attach takes it up")
        .arg(controllerPid);
}

std::unique_ptr<RunStore> RunStore::open(const QString& path, QString* error, OpenMode mode) {
    std::unique_ptr<RunStore> store(new RunStore);
    store->m_path = path;
    const QString e = mode == ReadOnly ? store->openForReading() : store->openForWriting();
    if (!e.isEmpty()) {
        *error = e;
        return nullptr;
    }
    return store;
}

QString RunStore::openForWriting() {
    const QString& path = m_path;
    if (const QString e = checkFileKind(path); !e.isEmpty()) return e;
    // A new history holds private data: 0600 (SQLite gives its -wal and -shm the same mode),
    // in directories 0700, whatever the umask.
    if (const QString e = makePrivateDirectory(QFileInfo(path).absolutePath()); !e.isEmpty())
        return QStringLiteral("cannot create the history: %1").arg(e);
    if (const QString e = createPrivateFile(path); !e.isEmpty()) return QStringLiteral("cannot create the history: %1").arg(e);

    // Everything that refuses a file is found on a read-only connection, before any write.
    {
        const QString name = uniqueConnection("check");
        QString e;
        {
            QSqlDatabase check = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
            check.setDatabaseName(path);
            check.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY"));
            FileFacts facts;
            bool cantOpen = false;
            if (!check.open()) e = QStringLiteral("cannot open %1: %2").arg(path, sqlErrorText(check.lastError()));
            else e = inspect(check, path, &facts, &cantOpen);
            if (cantOpen) e += QStringLiteral(" (SQLite needs to create files beside it: is its directory read-only?)");
            check.close();
        }
        QSqlDatabase::removeDatabase(name);
        if (!e.isEmpty()) return e;
    }

    m_connection = uniqueConnection("reader");
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_connection);
    db.setDatabaseName(path);
    db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=%1").arg(kBusyTimeoutMs));
    if (!db.open()) return QStringLiteral("cannot open %1: %2").arg(path, sqlErrorText(db.lastError()));
    if (const QString e = switchToWal(db, path, kBusyTimeoutMs); !e.isEmpty()) return e;
    if (const QString e = createOrMigrate(db, path); !e.isEmpty()) return e;
    if (const QString e = markInterrupted(); !e.isEmpty()) return e;

    m_writer = std::make_unique<Writer>(path);
    return m_writer->start();
}

QString RunStore::openForReading() {
    const QString& path = m_path;
    if (!QFileInfo::exists(path)) return QStringLiteral("there is no history at %1 (a run creates it)").arg(path);
    if (const QString e = checkFileKind(path); !e.isEmpty()) return e;
    m_connection = uniqueConnection("reader");
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_connection);
    db.setDatabaseName(path);
    db.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY"));
    if (!db.open()) return QStringLiteral("cannot open %1: %2").arg(path, sqlErrorText(db.lastError()));
    FileFacts facts;
    bool cantOpen = false;
    QString e = inspect(db, path, &facts, &cantOpen);
    if (cantOpen) {
        // On a read-only mount SQLite cannot create the -shm a WAL file needs; nothing can write
        // there either, so the file is read as immutable (without locks).
        db.close();
        db.setDatabaseName(QUrl::fromLocalFile(QFileInfo(path).absoluteFilePath()).toString(QUrl::FullyEncoded) +
                           QStringLiteral("?immutable=1"));
        db.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY;QSQLITE_OPEN_URI"));
        if (!db.open()) return QStringLiteral("cannot open %1: %2").arg(path, sqlErrorText(db.lastError()));
        facts = {};
        e = inspect(db, path, &facts, nullptr);
    }
    if (!e.isEmpty()) return e;
    if (facts.tables.isEmpty()) return QStringLiteral("%1 holds no history yet (a run fills it)").arg(path);
    if (facts.version < kSchemaVersion)
        return QStringLiteral("%1 has the schema of an older HiPS Studio (%2, now %3); it is upgraded the next time it "
                              "is opened for writing (a run, or `hips history delete`)").arg(path).arg(facts.version).arg(kSchemaVersion);
    QList<std::pair<qint64, StaleRun>> stale;
    if (const QString e2 = findStaleRuns(&stale); !e2.isEmpty()) return e2;
    for (const auto& [id, run] : stale) m_stale.insert(id, run);
    return {};
}

RunStore::~RunStore() {
    m_writer.reset();
    if (m_connection.isEmpty()) return;
    QSqlDatabase::database(m_connection, false).close();
    QSqlDatabase::removeDatabase(m_connection);
}

// Writes on a store opened ReadOnly: a programming error, refused.
#define HIPS_WRITER_OR(fallback)                                                     \
    if (!m_writer) {                                                                 \
        Q_ASSERT_X(false, "RunStore", "a write on a history opened read-only");     \
        return fallback;                                                             \
    }

qint64 RunStore::beginRun(const QString& name, const QByteArray& topologyJson, const QJsonObject& settings,
                          const QString& runDir) {
    HIPS_WRITER_OR(-1)
    auto id = std::make_shared<qint64>(-1);
    const QString settingsText = QString::fromUtf8(QJsonDocument(settings).toJson(QJsonDocument::Compact));
    const qint64 pid = QCoreApplication::applicationPid();
    m_writer->post([=](WriterSession& s) {
        QSqlQuery q(s.db);
        if (!q.prepare(QStringLiteral("INSERT INTO runs (name, topology, settings, started, status, controller_pid, run_dir)"
                                      " VALUES (?, ?, ?, ?, 'running', ?, ?)"))) {
            s.error = sqlErrorText(q.lastError());
            return false;
        }
        for (const QVariant& v : {QVariant(name), QVariant(QString::fromUtf8(topologyJson)), QVariant(settingsText),
                                  QVariant(now()), QVariant(pid), QVariant(runDir)})
            q.addBindValue(v);
        if (!s.exec(q)) return false;
        *id = q.lastInsertId().toLongLong();
        return true;
    });
    return m_writer->flush() ? *id : -1;  // flush() orders the write of *id before this read
}

void RunStore::appendMetric(qint64 run, double t, const QString& source, int round, const QString& name, double value) {
    HIPS_WRITER_OR()
    m_writer->postMetric(MetricRow{run, t, source, round, name, value});
}

void RunStore::appendEvent(qint64 run, double t, const QString& level, const QString& source, const QString& message) {
    HIPS_WRITER_OR()
    m_writer->post([=](WriterSession& s) {
        return s.run(QStringLiteral("INSERT INTO events VALUES (?, ?, ?, ?, ?)"),
                     {QVariant(run), QVariant(t), QVariant(level), QVariant(source), QVariant(message)});
    });
}

void RunStore::finishRun(qint64 run, const QString& status, const QJsonObject& summary) {
    HIPS_WRITER_OR()
    const QString text = QString::fromUtf8(QJsonDocument(summary).toJson(QJsonDocument::Compact));
    m_writer->post([=](WriterSession& s) {
        return s.run(QStringLiteral("UPDATE runs SET status = ?, ended = ?, summary = ? WHERE id = ?"),
                     {QVariant(status), QVariant(now()), QVariant(text), QVariant(run)});
    });
}

void RunStore::resumeRun(qint64 run, int round) {
    HIPS_WRITER_OR()
    const qint64 pid = QCoreApplication::applicationPid();
    m_writer->post([=](WriterSession& s) {
        return s.run(QStringLiteral("DELETE FROM metrics WHERE run_id = ? AND round > ?"), {QVariant(run), QVariant(round)}) &&
               // New agents number their events afresh: the old ones' marks mean nothing to them.
               s.run(QStringLiteral("DELETE FROM agent_marks WHERE run_id = ?"), {QVariant(run)}) &&
               s.run(QStringLiteral("DELETE FROM traffic WHERE run_id = ? AND round > ?"), {QVariant(run), QVariant(round)}) &&
               s.run(QStringLiteral("UPDATE runs SET status = 'running', ended = NULL, summary = NULL, controller_pid = ?"
                                    " WHERE id = ?"), {QVariant(pid), QVariant(run)}) &&
               s.run(QStringLiteral("INSERT INTO events VALUES (?, ?, 'info', 'controller', ?)"),
                     {QVariant(run), QVariant(now()),
                      QVariant(QStringLiteral("resumed from the checkpoint of round %1").arg(round))});
    });
}

void RunStore::reattachRun(qint64 run, const QString& note) {
    HIPS_WRITER_OR()
    const qint64 pid = QCoreApplication::applicationPid();
    m_writer->post([=](WriterSession& s) {
        return s.run(QStringLiteral("UPDATE runs SET status = 'running', ended = NULL, summary = NULL, controller_pid = ?"
                                    " WHERE id = ?"), {QVariant(pid), QVariant(run)}) &&
               s.run(QStringLiteral("INSERT INTO events VALUES (?, ?, 'info', 'controller', ?)"),
                     {QVariant(run), QVariant(now()), QVariant(note)});
    });
}

void RunStore::markAgentEvent(qint64 run, const QString& agent, qint64 seq, qint64 metricsBytes) {
    HIPS_WRITER_OR()
    m_writer->post([=](WriterSession& s) {
        return s.run(QStringLiteral("INSERT OR REPLACE INTO agent_marks VALUES (?, ?, ?, ?)"),
                     {QVariant(run), QVariant(agent), QVariant(seq), QVariant(metricsBytes)});
    });
}

void RunStore::setRunLabels(qint64 run, const QString& name, const QString& tags, const QString& notes) {
    HIPS_WRITER_OR()
    m_writer->post([=](WriterSession& s) {
        return s.run(QStringLiteral("UPDATE runs SET name = ?, tags = ?, notes = ? WHERE id = ?"),
                     {QVariant(name), QVariant(tags), QVariant(notes), QVariant(run)});
    });
}

void RunStore::deleteRun(qint64 run) {
    HIPS_WRITER_OR()
    m_writer->post([=](WriterSession& s) {  // children go by ON DELETE CASCADE
        return s.run(QStringLiteral("DELETE FROM runs WHERE id = ?"), {QVariant(run)});
    });
}

void RunStore::appendTraffic(qint64 run, const TrafficRecord& r) {
    HIPS_WRITER_OR()
    m_writer->post([=](WriterSession& s) {
        return s.run(QStringLiteral("INSERT INTO traffic VALUES (?, ?, ?, ?, ?, ?)"),
                     {QVariant(run), QVariant(r.t), QVariant(r.link), QVariant(r.tier), QVariant(r.bytes), QVariant(r.round)});
    });
}

void RunStore::recordProcess(qint64 run, const ProcessRecord& p) {
    HIPS_WRITER_OR()
    m_writer->post([=](WriterSession& s) {
        return s.run(QStringLiteral("INSERT OR REPLACE INTO processes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
                     {QVariant(run), QVariant(p.node), QVariant(p.role), QVariant(p.party), QVariant(p.host),
                      QVariant(p.rank), QVariant(p.pid), QVariant(p.started), QVariant(p.ended), QVariant(p.exitCode),
                      QVariant(int(p.crashed)), QVariant(p.error), QVariant(p.state)});
    });
}

void RunStore::beginGroup() {
    if (m_writer) m_writer->hold(true);
}

void RunStore::endGroup() {
    if (m_writer) m_writer->hold(false);
}

bool RunStore::flush() {
    HIPS_WRITER_OR(false)
    return m_writer->flush();
}
quint64 RunStore::postedMark() const { return m_writer ? m_writer->posted() : 0; }
quint64 RunStore::committedMark() const { return m_writer ? m_writer->committed() : 0; }
quint64 RunStore::setCommitListener(std::function<void(quint64)> listener) {
    HIPS_WRITER_OR(0)
    return m_writer->setListener(std::move(listener));
}
void RunStore::clearCommitListener(quint64 token) {
    if (m_writer) m_writer->clearListener(token);
}
QString RunStore::writeError() const {
    return m_writer ? m_writer->error() : QStringLiteral("history: %1 was opened read-only").arg(m_path);
}
quint64 RunStore::setErrorListener(std::function<void(const QString&)> listener) {
    HIPS_WRITER_OR(0)
    return m_writer->setErrorListener(std::move(listener));
}
void RunStore::clearErrorListener(quint64 token) {
    if (m_writer) m_writer->clearErrorListener(token);
}

}  // namespace hips
