#include "RunStore.h"

#include "RunClock.h"

#include "HistoryWriter.h"
#include "PrivateFiles.h"
#include "RunStoreSchema.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QJsonDocument>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QStandardPaths>
#include <QUrl>
#include <QVariant>
#include <algorithm>
#include <csignal>
#include <unistd.h>

namespace hips {

using namespace store;

namespace {

double now() {
    return double(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
}

}  // namespace

QString RunStore::defaultPath() {
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) + QStringLiteral("/hips-studio");
    return dir + QStringLiteral("/history.sqlite");
}

QString RunStore::interruptedReason(qint64 controllerPid) {
    return QStringLiteral(
               "the controller (pid %1) ended without finishing the run (killed, crashed or the machine "
               "stopped); while its agents keep it going (orphan_timeout_s), hips attach takes it up")
        .arg(controllerPid);
}

std::unique_ptr<RunStore> RunStore::open(const QString& path, QString* error, OpenMode mode, int busyTimeoutMs) {
    std::unique_ptr<RunStore> store(new RunStore);
    store->m_path = path;
    store->m_busyTimeoutMs = busyTimeoutMs;
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
            check.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY;QSQLITE_BUSY_TIMEOUT=%1").arg(m_busyTimeoutMs));
            FileFacts facts;
            bool cantOpen = false;
            if (!check.open()) e = QStringLiteral("cannot open %1: %2").arg(path, sqlErrorText(check.lastError()));
            else if (e = distrustSchema(check, path); e.isEmpty()) e = inspect(check, path, &facts, &cantOpen);
            if (cantOpen) e += QStringLiteral(" (SQLite needs to create files beside it: is its directory read-only?)");
            check.close();
        }
        QSqlDatabase::removeDatabase(name);
        if (!e.isEmpty()) return e;
    }

    m_connection = uniqueConnection("reader");
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_connection);
    db.setDatabaseName(path);
    db.setConnectOptions(QStringLiteral("QSQLITE_BUSY_TIMEOUT=%1").arg(m_busyTimeoutMs));
    if (!db.open()) return QStringLiteral("cannot open %1: %2").arg(path, sqlErrorText(db.lastError()));
    if (const QString e = distrustSchema(db, path); !e.isEmpty()) return e;
    if (const QString e = switchToWal(db, path, m_busyTimeoutMs); !e.isEmpty()) return e;
    if (const QString e = createOrMigrate(db, path); !e.isEmpty()) return e;
    if (const QString e = markInterrupted(); !e.isEmpty()) return e;

    m_writer = std::make_unique<HistoryWriter>(path, m_busyTimeoutMs);
    return m_writer->start();
}

QString RunStore::openForReading() {
    const QString& path = m_path;
    if (!QFileInfo::exists(path)) return QStringLiteral("there is no history at %1 (a run creates it)").arg(path);
    if (const QString e = checkFileKind(path); !e.isEmpty()) return e;
    m_connection = uniqueConnection("reader");
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_connection);
    db.setDatabaseName(path);
    db.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY;QSQLITE_BUSY_TIMEOUT=%1").arg(m_busyTimeoutMs));
    if (!db.open()) return QStringLiteral("cannot open %1: %2").arg(path, sqlErrorText(db.lastError()));
    if (const QString e = distrustSchema(db, path); !e.isEmpty()) return e;
    FileFacts facts;
    bool cantOpen = false;
    QString e = inspect(db, path, &facts, &cantOpen);
    if (cantOpen) {
        // On a read-only mount SQLite cannot create the -shm a WAL file needs; nothing can write
        // there either, so the file is read as immutable (without locks).
        db.close();
        db.setDatabaseName(QUrl::fromLocalFile(QFileInfo(path).absoluteFilePath()).toString(QUrl::FullyEncoded) +
                           QStringLiteral("?immutable=1"));
        db.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY;QSQLITE_OPEN_URI;QSQLITE_BUSY_TIMEOUT=%1").arg(m_busyTimeoutMs));
        if (!db.open()) return QStringLiteral("cannot open %1: %2").arg(path, sqlErrorText(db.lastError()));
        if (const QString e2 = distrustSchema(db, path); !e2.isEmpty()) return e2;
        facts = {};
        e = inspect(db, path, &facts, nullptr);
    }
    if (!e.isEmpty()) return e;
    if (facts.tables.isEmpty()) return QStringLiteral("%1 holds no history yet (a run fills it)").arg(path);
    if (facts.version < kSchemaVersion)
        return QStringLiteral(
                   "%1 has the schema of an older HiPS Studio (%2, now %3); it is upgraded the next time it "
                   "is opened for writing (a run, or `hips history delete`)")
            .arg(path)
            .arg(facts.version)
            .arg(kSchemaVersion);
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
#define HIPS_WRITER_OR(fallback)                                                \
    if (!m_writer) {                                                            \
        Q_ASSERT_X(false, "RunStore", "a write on a history opened read-only"); \
        return fallback;                                                        \
    }

qint64 RunStore::beginRun(const QString& name, const QByteArray& topologyJson, const QJsonObject& settings, const QString& runDir) {
    HIPS_WRITER_OR(-1)
    auto id = std::make_shared<qint64>(-1);
    const QString settingsText = QString::fromUtf8(QJsonDocument(settings).toJson(QJsonDocument::Compact));
    const qint64 pid = QCoreApplication::applicationPid();
    const QString token = processToken(pid);
    const double at = now();  // (times are taken when said, not when written: a locked file delays the write)
    m_writer->post([=](WriterSession& s) {
        QSqlQuery q(s.db);
        if (!q.prepare(QStringLiteral("INSERT INTO runs (name, topology, settings, started, status, controller_pid, run_dir,"
                                      " controller_token) VALUES (?, ?, ?, ?, 'running', ?, ?, ?)"))) {
            s.error = sqlErrorText(q.lastError());
            return false;
        }
        for (const QVariant& v : {QVariant(name), QVariant(QString::fromUtf8(topologyJson)), QVariant(settingsText), QVariant(at),
                                  QVariant(pid), QVariant(runDir), QVariant(token)})
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
    const double ended = now();
    m_writer->post([=](WriterSession& s) {
        return s.run(QStringLiteral("UPDATE runs SET status = ?, ended = ?, summary = ? WHERE id = ?"),
                     {QVariant(status), QVariant(ended), QVariant(text), QVariant(run)});
    });
}

double RunStore::resumeRun(qint64 run, int round, const QByteArray& topologyJson, const QJsonObject& settings, qint64 keptMetricsBytes) {
    HIPS_WRITER_OR(0)
    const qint64 pid = QCoreApplication::applicationPid();
    const QString token = processToken(pid);
    const double at = now();
    const QString settingsText = QString::fromUtf8(QJsonDocument(settings).toJson(QJsonDocument::Compact));
    m_writer->post([=](WriterSession& s) {
        // New agents number their events afresh: the old ones' marks mean nothing to them. What
        // the history holds of metrics.jsonl is what the resume kept of it (a mark of no agent).
        return s.run(QStringLiteral("DELETE FROM agent_marks WHERE run_id = ?"), {QVariant(run)}) &&
               s.run(QStringLiteral("INSERT INTO agent_marks VALUES (?, '', 0, ?)"), {QVariant(run), QVariant(keptMetricsBytes)}) &&
               s.run(QStringLiteral("UPDATE runs SET status = 'running', ended = NULL, summary = NULL, controller_pid = ?,"
                                    " controller_token = ?, topology = ?, settings = ?, cut_after = ? WHERE id = ?"),
                     {QVariant(pid), QVariant(token), QVariant(QString::fromUtf8(topologyJson)), QVariant(settingsText), QVariant(round),
                      QVariant(run)}) &&
               s.run(QStringLiteral("INSERT INTO events VALUES (?, ?, 'info', 'controller', ?)"),
                     {QVariant(run), QVariant(at), QVariant(kResumedEventPrefix + QString::number(round))});
    });
    return at;
}

void RunStore::cutRunAfter(qint64 run, int round) {
    HIPS_WRITER_OR()
    m_writer->post([=](WriterSession& s) {
        return s.run(QStringLiteral("DELETE FROM metrics WHERE run_id = ? AND round > ?"), {QVariant(run), QVariant(round)}) &&
               s.run(QStringLiteral("DELETE FROM traffic WHERE run_id = ? AND round > ?"), {QVariant(run), QVariant(round)}) &&
               s.run(QStringLiteral("UPDATE runs SET cut_after = NULL WHERE id = ?"), {QVariant(run)});
    });
}

void RunStore::restoreRun(const RunRecord& before, double resumedAt, const QByteArray& topologyJson, const QJsonObject& settings,
                          const QString& why) {
    HIPS_WRITER_OR()
    const double at = now();
    const qint64 run = before.id;
    const QVariant ended = before.ended > 0 ? QVariant(before.ended) : QVariant(QMetaType(QMetaType::Double));
    const QVariant summary = before.summary.isEmpty()
                                 ? QVariant(QMetaType(QMetaType::QString))
                                 : QVariant(QString::fromUtf8(QJsonDocument(before.summary).toJson(QJsonDocument::Compact)));
    const QString settingsText = QString::fromUtf8(QJsonDocument(settings).toJson(QJsonDocument::Compact));
    m_writer->post([=](WriterSession& s) {
        return s.run(QStringLiteral("UPDATE runs SET status = ?, ended = ?, summary = ?, topology = ?, settings = ?, cut_after = NULL"
                                    " WHERE id = ?"),
                     {QVariant(before.status), ended, summary, QVariant(QString::fromUtf8(topologyJson)), QVariant(settingsText),
                      QVariant(run)}) &&
               s.run(QStringLiteral("DELETE FROM events WHERE run_id = ? AND t >= ? AND source = 'controller' AND message LIKE ?"),
                     {QVariant(run), QVariant(resumedAt), QVariant(QString(kResumedEventPrefix) + QStringLiteral("%"))}) &&
               s.run(QStringLiteral("DELETE FROM metrics WHERE run_id = ? AND t >= ?"), {QVariant(run), QVariant(resumedAt)}) &&
               s.run(QStringLiteral("DELETE FROM traffic WHERE run_id = ? AND t >= ?"), {QVariant(run), QVariant(resumedAt)}) &&
               s.run(QStringLiteral("INSERT INTO events VALUES (?, ?, 'error', 'controller', ?)"),
                     {QVariant(run), QVariant(at), QVariant(why)});
    });
}

void RunStore::reattachRun(qint64 run, const QString& note) {
    HIPS_WRITER_OR()
    const qint64 pid = QCoreApplication::applicationPid();
    const QString token = processToken(pid);
    const double at = now();
    m_writer->post([=](WriterSession& s) {
        return s.run(QStringLiteral("UPDATE runs SET status = 'running', ended = NULL, summary = NULL, controller_pid = ?,"
                                    " controller_token = ? WHERE id = ?"),
                     {QVariant(pid), QVariant(token), QVariant(run)}) &&
               s.run(QStringLiteral("INSERT INTO events VALUES (?, ?, 'info', 'controller', ?)"),
                     {QVariant(run), QVariant(at), QVariant(note)});
    });
}

void RunStore::markAgentEvent(qint64 run, const QString& agent, qint64 seq, qint64 metricsBytes, const std::function<QString()>& durable) {
    HIPS_WRITER_OR()
    m_writer->post(
        [=](WriterSession& s) {
            return s.run(QStringLiteral("INSERT OR REPLACE INTO agent_marks VALUES (?, ?, ?, ?)"),
                         {QVariant(run), QVariant(agent), QVariant(seq), QVariant(metricsBytes)});
        },
        durable);
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
        return s.run(
            QStringLiteral("INSERT OR REPLACE INTO processes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
            {QVariant(run), QVariant(p.node), QVariant(p.role), QVariant(p.party), QVariant(p.host), QVariant(p.rank), QVariant(p.pid),
             QVariant(p.started), QVariant(p.ended), QVariant(p.exitCode), QVariant(int(p.crashed)), QVariant(p.error), QVariant(p.state)});
    });
}

void RunStore::beginGroup() {
    if (m_writer) m_writer->hold(true);
}

void RunStore::endGroup() {
    if (m_writer) m_writer->hold(false);
}

bool RunStore::flush(const std::function<bool()>& eachSecond) {
    HIPS_WRITER_OR(false)
    return m_writer->flush(eachSecond);
}
bool RunStore::flushWithin(int seconds) {
    return flush([left = seconds]() mutable { return --left > 0; });
}
QString RunStore::lockedNotice() const {
    return m_writer ? m_writer->lockedNotice() : QString();
}
quint64 RunStore::postedMark() const {
    return m_writer ? m_writer->posted() : 0;
}
quint64 RunStore::committedMark() const {
    return m_writer ? m_writer->committed() : 0;
}
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

quint64 RunStore::setStallListener(std::function<void(const QString&)> listener) {
    return m_writer ? m_writer->setStallListener(std::move(listener)) : 0;
}

void RunStore::clearStallListener(quint64 token) {
    if (m_writer) m_writer->clearStallListener(token);
}

}  // namespace hips
