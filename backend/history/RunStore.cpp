#include "RunStore.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QHash>
#include <QJsonDocument>
#include <QSqlDatabase>
#include <QSqlDriver>
#include <QSqlError>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QVariant>
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

namespace {

std::atomic<int> g_connections{0};

QString uniqueConnection(const char* role) {
    return QStringLiteral("hips-history-%1-%2").arg(QLatin1String(role)).arg(g_connections.fetch_add(1));
}

double now() { return double(QDateTime::currentMSecsSinceEpoch()) / 1000.0; }

// Schema migrations: index i brings the schema from version i to i + 1, in one transaction.
const QList<QStringList> kMigrations = {
    {
        "CREATE TABLE runs (id INTEGER PRIMARY KEY, name TEXT NOT NULL, topology TEXT, settings TEXT,"
        " started REAL NOT NULL, ended REAL, status TEXT NOT NULL, summary TEXT, controller_pid INTEGER)",
        "CREATE TABLE processes (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, node TEXT, role TEXT,"
        " party TEXT, host TEXT, rank INTEGER, pid INTEGER, started REAL, ended REAL, exit_code INTEGER,"
        " crashed INTEGER, error TEXT)",
        "CREATE TABLE metrics (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, t REAL, source TEXT,"
        " round INTEGER, name TEXT, value REAL)",
        "CREATE TABLE traffic (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, t REAL, link TEXT,"
        " tier TEXT, bytes INTEGER)",
        "CREATE TABLE events (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, t REAL, level TEXT,"
        " source TEXT, message TEXT)",
        "CREATE INDEX metrics_run ON metrics(run_id, name, round)",
        "CREATE INDEX events_run ON events(run_id)",
    },
    {
        // Version 1 kept traffic as per-node metric rows; it moves into the traffic table,
        // one link per node, and processes get one row per node.
        "ALTER TABLE processes ADD COLUMN state TEXT",
        "ALTER TABLE traffic ADD COLUMN round INTEGER",
        "CREATE UNIQUE INDEX processes_node ON processes(run_id, node)",
        // Covering indexes: a run's facts (see RunStoreReads.cpp) then never touch the tables,
        // which took `history list` over 1,000 runs from ~85 ms to ~25 ms.
        "DROP INDEX IF EXISTS metrics_run",
        "CREATE INDEX metrics_run ON metrics(run_id, name, round, value)",
        "CREATE INDEX traffic_link ON traffic(run_id, tier, link, bytes)",
        "INSERT INTO traffic SELECT run_id, t, source,"
        " CASE name WHEN 'traffic.sent_across' THEN 'across' ELSE 'inside' END, CAST(value AS INTEGER), round"
        " FROM metrics WHERE name IN ('traffic.sent_inside', 'traffic.sent_across')",
        "DELETE FROM metrics WHERE name IN ('traffic.sent_inside', 'traffic.sent_across')",
    },
};

bool exec(QSqlDatabase& db, const QString& sql, QString* error) {
    QSqlQuery q(db);
    if (q.exec(sql)) return true;
    if (error) *error = q.lastError().text() + QStringLiteral(" (in: ") + sql + ')';
    return false;
}

// Refuses anything that is not an empty file, a SQLite file, or nothing at all.
QString checkFileKind(const QString& path) {
    QFile f(path);
    if (!f.exists() || f.size() == 0) return {};
    if (!f.open(QIODevice::ReadOnly)) return QStringLiteral("cannot read %1: %2").arg(path, f.errorString());
    if (f.read(16) != QByteArray("SQLite format 3\0", 16))
        return QStringLiteral("%1 is not a SQLite file (corrupt, or some other kind of file); it was left untouched: "
                              "pass another --history path").arg(path);
    return {};
}

bool pidAlive(qint64 pid) { return pid > 0 && (::kill(pid_t(pid), 0) == 0 || errno == EPERM); }

}  // namespace

// A writer connection and its prepared statements, which must all go before the connection.
struct WriterSession {
    QSqlDatabase db;
    QHash<QString, QSqlQuery> statements;
    sqlite3_stmt* insertMetric = nullptr;  // the hot path; see insertMetrics()

    QSqlQuery& prepared(const QString& sql) {
        auto it = statements.find(sql);
        if (it == statements.end()) {
            it = statements.insert(sql, QSqlQuery(db));
            it->prepare(sql);
        }
        return *it;
    }

    // Metric rows go in through SQLite's own statement API on the same connection Qt Sql opened:
    // QSqlQuery's per-value QVariant binding, not SQLite, capped ingest at ~180,000 rows/s.
    void prepareHotPath() {
        const QVariant handle = db.driver()->handle();
        if (!handle.isValid() || qstrcmp(handle.typeName(), "sqlite3*") != 0) return;
        sqlite3* connection = *static_cast<sqlite3* const*>(handle.constData());
        if (connection) sqlite3_prepare_v2(connection, "INSERT INTO metrics VALUES (?,?,?,?,?,?)", -1, &insertMetric, nullptr);
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

void insertMetrics(WriterSession& s, const std::vector<MetricRow>& rows) {
    sqlite3_stmt* q = s.insertMetric;
    if (!q) {  // no native handle: the portable, slower path
        QSqlQuery& p = s.prepared(QStringLiteral("INSERT INTO metrics VALUES (?,?,?,?,?,?)"));
        for (const MetricRow& r : rows) {
            int i = 0;
            for (const QVariant& v : {QVariant(r.run), QVariant(r.t), QVariant(r.source), QVariant(r.round),
                                      QVariant(r.name), QVariant(r.value)})
                p.bindValue(i++, v);
            p.exec();
        }
        return;
    }
    for (const MetricRow& r : rows) {
        sqlite3_bind_int64(q, 1, r.run);
        sqlite3_bind_double(q, 2, r.t);
        sqlite3_bind_text16(q, 3, r.source.utf16(), int(r.source.size() * 2), SQLITE_STATIC);
        sqlite3_bind_int(q, 4, r.round);
        sqlite3_bind_text16(q, 5, r.name.utf16(), int(r.name.size() * 2), SQLITE_STATIC);
        sqlite3_bind_double(q, 6, r.value);
        sqlite3_step(q);
        sqlite3_reset(q);
    }
}

// The one writer: its own connection on its own thread, queued jobs committed in batches.
struct RunStore::Writer {
    struct Job {
        std::function<void(WriterSession&)> run;  // empty for a batch of metric rows
        std::vector<MetricRow> metrics;
        size_t units() const { return run ? 1 : metrics.size(); }
    };

    explicit Writer(const QString& path) : m_path(path) { m_thread = std::thread([this] { loop(); }); }
    ~Writer() {
        {
            std::lock_guard lock(m_mutex);
            m_stop = true;
        }
        m_wake.notify_all();
        m_thread.join();
    }

    void post(std::function<void(WriterSession&)> run) {
        {
            std::lock_guard lock(m_mutex);
            m_queue.push_back(Job{std::move(run), {}});
            ++m_posted;
        }
        m_wake.notify_one();
    }

    void postMetric(MetricRow row) {
        {
            std::lock_guard lock(m_mutex);
            if (m_queue.empty() || m_queue.back().run || m_queue.back().metrics.size() >= size_t(kRowsPerJob))
                m_queue.push_back(Job{{}, {}});
            m_queue.back().metrics.push_back(std::move(row));
            ++m_posted;
        }
        m_wake.notify_one();
    }

    void flush() {
        std::unique_lock lock(m_mutex);
        const quint64 target = m_posted;
        m_done.wait(lock, [&] { return m_committed >= target; });
    }

    quint64 posted() {
        std::lock_guard lock(m_mutex);
        return m_posted;
    }
    quint64 committed() {
        std::lock_guard lock(m_mutex);
        return m_committed;
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

private:
    void loop() {
        const QString name = uniqueConnection("writer");
        {
            WriterSession session{QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name), {}};
            QSqlDatabase& db = session.db;
            db.setDatabaseName(m_path);
            db.open();
            exec(db, QStringLiteral("PRAGMA foreign_keys=ON"), nullptr);
            exec(db, QStringLiteral("PRAGMA synchronous=NORMAL"), nullptr);  // WAL: durable at checkpoints, never corrupt
            session.prepareHotPath();
            while (true) {
                std::deque<Job> batch;
                {
                    std::unique_lock lock(m_mutex);
                    m_wake.wait(lock, [&] { return m_stop || !m_queue.empty(); });
                    if (m_queue.empty() && m_stop) break;
                    batch.swap(m_queue);
                }
                db.transaction();
                quint64 units = 0;
                for (Job& job : batch) {
                    if (job.run) job.run(session);
                    else insertMetrics(session, job.metrics);
                    units += job.units();
                }
                db.commit();
                {
                    // The listener runs under the lock so that clearing it (setListener({}))
                    // waits for a call in progress: its owner may be about to go away.
                    std::lock_guard lock(m_mutex);
                    m_committed += units;
                    if (m_listener) m_listener(m_committed);
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
    std::function<void(quint64)> m_listener;
    quint64 m_listenerToken = 0;
    bool m_stop = false;
};

QString RunStore::defaultPath() {
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) + QStringLiteral("/hips-studio");
    return dir + QStringLiteral("/history.sqlite");
}

std::unique_ptr<RunStore> RunStore::open(const QString& path, QString* error) {
    if (const QString e = checkFileKind(path); !e.isEmpty()) {
        *error = e;
        return nullptr;
    }
    QDir().mkpath(QFileInfo(path).absolutePath());
    std::unique_ptr<RunStore> store(new RunStore);
    store->m_connection = uniqueConnection("reader");
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), store->m_connection);
    db.setDatabaseName(path);
    auto fail = [&](const QString& why) {
        *error = why;
        db.close();
        return nullptr;
    };
    if (!db.open()) return fail(QStringLiteral("cannot open %1: %2").arg(path, db.lastError().text()));

    const QStringList tables = db.tables();
    if (!tables.isEmpty() && !tables.contains(QStringLiteral("hips_schema")))
        return fail(QStringLiteral("%1 is a SQLite database but not a HiPS Studio history (tables: %2); it was left "
                                   "untouched: pass another --history path").arg(path, tables.join(", ")));
    QString sqlError;
    if (!exec(db, QStringLiteral("PRAGMA journal_mode=WAL"), &sqlError))
        return fail(QStringLiteral("%1: %2").arg(path, sqlError));
    if (tables.isEmpty() && !exec(db, QStringLiteral("CREATE TABLE hips_schema (version INTEGER NOT NULL)"), &sqlError))
        return fail(QStringLiteral("%1: %2").arg(path, sqlError));
    if (tables.isEmpty()) exec(db, QStringLiteral("INSERT INTO hips_schema VALUES (0)"), nullptr);

    const int version = store->schemaVersion();
    if (version > kSchemaVersion)
        return fail(QStringLiteral("%1 was written by a newer HiPS Studio (schema %2, this one reads %3); upgrade")
                        .arg(path).arg(version).arg(kSchemaVersion));
    for (int v = version; v < kSchemaVersion; ++v) {
        db.transaction();
        for (const QString& sql : kMigrations[v])
            if (!exec(db, sql, &sqlError)) {
                db.rollback();
                return fail(QStringLiteral("%1: migration to schema %2 failed: %3").arg(path).arg(v + 1).arg(sqlError));
            }
        exec(db, QStringLiteral("UPDATE hips_schema SET version = %1").arg(v + 1), nullptr);
        db.commit();
    }

    // A run still 'running' whose controller is gone was interrupted; what it committed stays.
    QSqlQuery stale(db);
    stale.exec(QStringLiteral("SELECT id, controller_pid FROM runs WHERE status = 'running'"));
    QList<qint64> interrupted;
    while (stale.next())
        if (!pidAlive(stale.value(1).toLongLong())) interrupted << stale.value(0).toLongLong();
    for (qint64 id : interrupted)
        exec(db, QStringLiteral("UPDATE runs SET status = 'interrupted', ended = (SELECT max(t) FROM metrics WHERE run_id = %1)"
                                " WHERE id = %1").arg(id), nullptr);

    store->m_writer = std::make_unique<Writer>(path);
    return store;
}

RunStore::~RunStore() {
    m_writer.reset();
    QSqlDatabase::database(m_connection, false).close();
    QSqlDatabase::removeDatabase(m_connection);
}

qint64 RunStore::beginRun(const QString& name, const QByteArray& topologyJson, const QJsonObject& settings) {
    auto id = std::make_shared<std::promise<qint64>>();
    auto result = id->get_future();
    const QString settingsText = QString::fromUtf8(QJsonDocument(settings).toJson(QJsonDocument::Compact));
    const qint64 pid = QCoreApplication::applicationPid();
    m_writer->post([=](WriterSession& s) {
        QSqlQuery q(s.db);
        q.prepare(QStringLiteral("INSERT INTO runs (name, topology, settings, started, status, controller_pid)"
                                 " VALUES (?, ?, ?, ?, 'running', ?)"));
        q.addBindValue(name);
        q.addBindValue(QString::fromUtf8(topologyJson));
        q.addBindValue(settingsText);
        q.addBindValue(now());
        q.addBindValue(pid);
        id->set_value(q.exec() ? q.lastInsertId().toLongLong() : -1);
    });
    m_writer->flush();
    return result.get();
}

void RunStore::appendMetric(qint64 run, double t, const QString& source, int round, const QString& name, double value) {
    m_writer->postMetric(MetricRow{run, t, source, round, name, value});
}

void RunStore::appendEvent(qint64 run, double t, const QString& level, const QString& source, const QString& message) {
    m_writer->post([=](WriterSession& s) {
        QSqlQuery& q = s.prepared(QStringLiteral("INSERT INTO events VALUES (?, ?, ?, ?, ?)"));
        int i = 0;
        for (const QVariant& v : {QVariant(run), QVariant(t), QVariant(level), QVariant(source), QVariant(message)})
            q.bindValue(i++, v);
        q.exec();
    });
}

void RunStore::finishRun(qint64 run, const QString& status, const QJsonObject& summary) {
    const QString text = QString::fromUtf8(QJsonDocument(summary).toJson(QJsonDocument::Compact));
    m_writer->post([=](WriterSession& s) {
        QSqlQuery q(s.db);
        q.prepare(QStringLiteral("UPDATE runs SET status = ?, ended = ?, summary = ? WHERE id = ?"));
        for (const QVariant& v : {QVariant(status), QVariant(now()), QVariant(text), QVariant(run)}) q.addBindValue(v);
        q.exec();
    });
}

void RunStore::deleteRun(qint64 run) {
    m_writer->post([=](WriterSession& s) {
        QSqlQuery q(s.db);
        q.exec(QStringLiteral("DELETE FROM runs WHERE id = %1").arg(run));  // children go by ON DELETE CASCADE
    });
}

void RunStore::appendTraffic(qint64 run, const TrafficRecord& r) {
    m_writer->post([=](WriterSession& s) {
        QSqlQuery& q = s.prepared(QStringLiteral("INSERT INTO traffic VALUES (?, ?, ?, ?, ?, ?)"));
        int i = 0;
        for (const QVariant& v : {QVariant(run), QVariant(r.t), QVariant(r.link), QVariant(r.tier), QVariant(r.bytes), QVariant(r.round)})
            q.bindValue(i++, v);
        q.exec();
    });
}

void RunStore::recordProcess(qint64 run, const ProcessRecord& p) {
    m_writer->post([=](WriterSession& s) {
        QSqlQuery& q = s.prepared(QStringLiteral("INSERT OR REPLACE INTO processes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
        int i = 0;
        for (const QVariant& v : {QVariant(run), QVariant(p.node), QVariant(p.role), QVariant(p.party), QVariant(p.host),
                                  QVariant(p.rank), QVariant(p.pid), QVariant(p.started), QVariant(p.ended),
                                  QVariant(p.exitCode), QVariant(int(p.crashed)), QVariant(p.error), QVariant(p.state)})
            q.bindValue(i++, v);
        q.exec();
    });
}

void RunStore::flush() { m_writer->flush(); }
quint64 RunStore::postedMark() const { return m_writer->posted(); }
quint64 RunStore::committedMark() const { return m_writer->committed(); }
quint64 RunStore::setCommitListener(std::function<void(quint64)> listener) { return m_writer->setListener(std::move(listener)); }
void RunStore::clearCommitListener(quint64 token) { m_writer->clearListener(token); }


}  // namespace hips
