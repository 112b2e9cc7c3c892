#include "HistoryWriter.h"

#include "RunStoreSchema.h"

#include <QSqlDriver>
#include <QVariant>
#include <atomic>
#include <sqlite3.h>

namespace hips::store {

namespace {

std::atomic<int> g_connections{0};

QString writeFailure(const QString& cause, const QString& path) {
    return QStringLiteral("history: %1 (%2)").arg(cause, path);
}

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

}  // namespace

QString uniqueConnection(const char* role) {
    return QStringLiteral("hips-history-%1-%2").arg(QLatin1String(role)).arg(g_connections.fetch_add(1));
}

// ---- WriterSession

bool WriterSession::failed(const QSqlError& e) {
    error = sqlErrorText(e);
    const int code = e.nativeErrorCode().toInt() & 0xff;
    busy = code == SQLITE_BUSY || code == SQLITE_LOCKED;
    return false;
}

QSqlQuery* WriterSession::prepared(const QString& sql) {
    auto it = statements.find(sql);
    if (it == statements.end()) {
        QSqlQuery q(db);
        if (!q.prepare(sql)) {
            failed(q.lastError());
            return nullptr;
        }
        it = statements.insert(sql, q);
    }
    return &*it;
}

bool WriterSession::exec(QSqlQuery& q) {
    return q.exec() || failed(q.lastError());
}

bool WriterSession::exec(const QString& sql) {
    QSqlQuery q(db);
    return q.exec(sql) || failed(q.lastError());
}

bool WriterSession::run(const QString& sql, std::initializer_list<QVariant> values) {
    QSqlQuery* q = prepared(sql);
    if (!q) return false;
    int i = 0;
    for (const QVariant& v : values) q->bindValue(i++, v);
    return exec(*q);
}

void WriterSession::prepareHotPath() {
    const QVariant handle = db.driver()->handle();
    if (!handle.isValid() || qstrcmp(handle.typeName(), "sqlite3*") != 0) return;
    native = *static_cast<sqlite3* const*>(handle.constData());
    if (native && sqlite3_prepare_v2(native, "INSERT INTO metrics VALUES (?,?,?,?,?,?)", -1, &insertMetric, nullptr) != SQLITE_OK)
        insertMetric = nullptr;  // the portable path then reports the cause
}

void WriterSession::finish() {
    sqlite3_finalize(insertMetric);
    insertMetric = nullptr;
    statements.clear();
}

// ---- HistoryWriter

HistoryWriter::~HistoryWriter() {
    if (!m_thread.joinable()) return;
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    m_thread.join();
}

QString HistoryWriter::start() {
    auto opened = std::make_shared<std::promise<QString>>();
    std::future<QString> result = opened->get_future();
    m_thread = std::thread([this, opened] { loop(*opened); });
    return result.get();
}

void HistoryWriter::post(std::function<bool(WriterSession&)> run, std::function<QString()> before) {
    {
        std::lock_guard lock(m_mutex);
        ++m_posted;  // counted even when dropped, so that its mark is never reported committed
        if (m_failed) return;
        m_queue.push_back(Job{std::move(run), {}, std::move(before)});
    }
    m_wake.notify_one();
}

void HistoryWriter::postMetric(MetricRow row) {
    {
        std::lock_guard lock(m_mutex);
        ++m_posted;
        if (m_failed) return;
        if (m_queue.empty() || m_queue.back().run || m_queue.back().metrics.size() >= size_t(kRowsPerJob)) m_queue.push_back(Job{{}, {}});
        m_queue.back().metrics.push_back(std::move(row));
    }
    m_wake.notify_one();
}

void HistoryWriter::hold(bool held) {
    {
        std::lock_guard lock(m_mutex);
        m_held = held;
    }
    m_wake.notify_one();
}

bool HistoryWriter::flush(const std::function<bool()>& eachSecond) {
    hold(false);  // (a flush inside an event's rows must not wait for itself)
    std::unique_lock lock(m_mutex);
    const quint64 target = m_posted;
    while (!m_done.wait_for(lock, std::chrono::seconds(1), [&] { return m_committed >= target || m_failed; }))
        if (eachSecond) {
            lock.unlock();
            const bool goOn = eachSecond();
            lock.lock();
            if (!goOn) break;
        }
    return m_committed >= target;
}

QString HistoryWriter::lockedNotice() {
    std::lock_guard lock(m_mutex);
    return m_lockedNotice;
}

quint64 HistoryWriter::posted() {
    std::lock_guard lock(m_mutex);
    return m_posted;
}

quint64 HistoryWriter::committed() {
    std::lock_guard lock(m_mutex);
    return m_committed;
}

QString HistoryWriter::error() {
    std::lock_guard lock(m_mutex);
    return m_error;
}

quint64 HistoryWriter::setListener(std::function<void(quint64)> listener) {
    std::lock_guard lock(m_mutex);
    m_listener = std::move(listener);
    return ++m_listenerToken;
}

void HistoryWriter::clearListener(quint64 token) {
    std::lock_guard lock(m_mutex);
    if (token == m_listenerToken) m_listener = {};
}

quint64 HistoryWriter::setErrorListener(std::function<void(const QString&)> listener) {
    std::lock_guard lock(m_mutex);
    m_errorListener = std::move(listener);
    return ++m_errorListenerToken;
}

void HistoryWriter::clearErrorListener(quint64 token) {
    std::lock_guard lock(m_mutex);
    if (token == m_errorListenerToken) m_errorListener = {};
}

quint64 HistoryWriter::setStallListener(std::function<void(const QString&)> listener) {
    std::lock_guard lock(m_mutex);
    m_stallListener = std::move(listener);
    return ++m_stallListenerToken;
}

void HistoryWriter::clearStallListener(quint64 token) {
    std::lock_guard lock(m_mutex);
    if (token == m_stallListenerToken) m_stallListener = {};
}

QString HistoryWriter::openSession(WriterSession& session) {
    QSqlDatabase& db = session.db;
    db.setDatabaseName(m_path);
    db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=%1").arg(m_busyTimeoutMs));
    if (!db.open()) return writeFailure(sqlErrorText(db.lastError()), m_path);
    if (const QString e = store::distrustSchema(db, m_path); !e.isEmpty()) return e;
    QString sqlError;
    if (!store::exec(db, QStringLiteral("PRAGMA foreign_keys=ON"), &sqlError) ||
        // FULL: a commit is on disk before the commit listener hears of it, so an agent event
        // acknowledged after it survives a power cut too (NORMAL would only survive a crash).
        // It costs one fsync per batch: ingest speed is unchanged, the bench's 1,000 small
        // runs take ~2.2 s instead of ~1.8 s.
        !store::exec(db, QStringLiteral("PRAGMA synchronous=FULL"), &sqlError))
        return writeFailure(sqlError, m_path);
    session.prepareHotPath();
    return {};
}

// One batch in one transaction. Only BEGIN can find the file locked by another connection (after
// SQLite's busy timeout): then nothing of the batch has run, and it can be tried again whole.
HistoryWriter::Outcome HistoryWriter::commitBatch(WriterSession& s, std::deque<Job>& batch) {
    for (const Job& job : batch)  // (before the write lock is taken: the history's other writers go on meanwhile)
        if (job.before)
            if (QString e = job.before(); !e.isEmpty()) {
                s.error = e;
                return Outcome::Failed;
            }
    if (!s.exec(QStringLiteral("BEGIN IMMEDIATE"))) return s.busy ? Outcome::Locked : Outcome::Failed;
    for (Job& job : batch)
        if (!(job.run ? job.run(s) : insertMetrics(s, job.metrics))) return Outcome::Failed;
    return s.exec(QStringLiteral("COMMIT")) ? Outcome::Committed : Outcome::Failed;
}

void HistoryWriter::loop(std::promise<QString>& opened) {
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
            const Outcome outcome = commitBatch(session, batch);
            if (outcome != Outcome::Committed) store::exec(session.db, QStringLiteral("ROLLBACK"), nullptr);  // (SQLite may have already)
            settle(outcome, batch, units, session.error);
        }
        session.finish();
    }
    QSqlDatabase::removeDatabase(name);
}

void HistoryWriter::settle(Outcome outcome, std::deque<Job>& batch, quint64 units, const QString& cause) {
    using namespace std::chrono;
    const auto now = steady_clock::now();
    const bool wasLocked = m_lockedSince != steady_clock::time_point{};
    // The listeners run under the lock so that clearing one (setListener({})) waits for a call
    // in progress: its owner may be about to go away.
    std::lock_guard lock(m_mutex);
    if (outcome == Outcome::Committed) {
        m_committed += units;
        if (m_listener) m_listener(m_committed);
        if (wasLocked) {
            m_lockedSince = {};
            m_lockedNotice.clear();
            if (m_stallListener) m_stallListener(QStringLiteral("history: %1 is free again; the rows that waited are stored").arg(m_path));
        }
    } else if (outcome == Outcome::Locked && !m_stop && (!wasLocked || now - m_lockedSince < kMaxLockedWait)) {
        if (!wasLocked) {
            m_lockedSince = now - milliseconds(m_busyTimeoutMs);  // SQLite has waited that long already
            m_lockedNotice = QStringLiteral(
                                 "history: %1 has been locked by another program for %2 s (an open transaction "
                                 "in a database browser or a sqlite3 shell?); its rows wait, for up to %3 minutes: "
                                 "end that transaction or close the program")
                                 .arg(m_path)
                                 .arg(m_busyTimeoutMs / 1000)
                                 .arg(kMaxLockedWait.count());
            if (m_stallListener) m_stallListener(m_lockedNotice);
        }
        for (auto it = batch.rbegin(); it != batch.rend(); ++it) m_queue.push_front(std::move(*it));  // before newer jobs
    } else {
        m_failed = true;
        m_error = writeFailure(outcome == Outcome::Locked
                                   ? QStringLiteral("locked by another program (waited %1 s in all); what waited is not stored "
                                                    "(a run keeps its rows in its run directory's metrics.jsonl)")
                                         .arg(wasLocked ? duration_cast<seconds>(now - m_lockedSince).count() : m_busyTimeoutMs / 1000)
                                   : cause,
                               m_path);
        m_queue.clear();
        if (m_errorListener) m_errorListener(m_error);
    }
    m_done.notify_all();
}

}  // namespace hips::store
