// Runs whose controller died while they were running: found, and marked interrupted.
#include "RunStore.h"

#include "RunStoreSchema.h"

#include <QFile>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>
#include <cerrno>
#include <csignal>

namespace hips {

namespace {

// The fields of /proc/PID/stat after the command name (which may hold spaces and parentheses):
// [0] is field 3, the state. Empty when the process is gone.
QList<QByteArray> statFields(qint64 pid) {
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (pid <= 0 || !stat.open(QIODevice::ReadOnly)) return {};
    const QByteArray line = stat.readAll();
    const qsizetype afterName = line.lastIndexOf(')');
    return afterName < 0 ? QList<QByteArray>{} : line.mid(afterName + 2).split(' ');
}

// The controller of a run is alive when its pid runs and is still the process that wrote the run
// (its token: a pid is reused, and counts again from 1 after a reboot). A zombie (dead, not yet
// reaped by a parent that may never do it) is not alive. A run written before tokens were kept
// has only its pid to go by.
bool controllerAlive(qint64 pid, const QString& token) {
    if (pid <= 0 || (::kill(pid_t(pid), 0) != 0 && errno != EPERM)) return false;
    if (!token.isEmpty()) return RunStore::processToken(pid) == token;
    const QList<QByteArray> fields = statFields(pid);
    return fields.isEmpty() || fields[0] != "Z";
}

}  // namespace

QString RunStore::processToken(qint64 pid) {
    const QList<QByteArray> fields = statFields(pid);
    if (fields.size() < 20 || fields[0] == "Z") return {};
    QFile boot(QStringLiteral("/proc/sys/kernel/random/boot_id"));
    const QByteArray bootId = boot.open(QIODevice::ReadOnly) ? boot.readAll().trimmed() : QByteArray("?");
    return QString::fromLatin1(bootId + ':' + fields[22 - 3]);
}

using store::exec;
using store::sqlErrorText;

// Runs left 'running' whose controller is no longer alive.
QString RunStore::findStaleRuns(QList<std::pair<qint64, StaleRun>>* stale) const {
    QSqlQuery q = reader();
    q.setForwardOnly(true);
    if (!q.exec(QStringLiteral("SELECT id, controller_pid, (SELECT max(t) FROM metrics WHERE run_id = runs.id),"
                               " max(started, coalesce((SELECT max(t) FROM metrics WHERE run_id = runs.id), 0),"
                               "     coalesce((SELECT max(t) FROM events WHERE run_id = runs.id), 0)), controller_token"
                               " FROM runs WHERE status = 'running'")))
        return QStringLiteral("cannot read %1: %2").arg(m_path, sqlErrorText(q.lastError()));
    while (q.next())
        if (!controllerAlive(q.value(1).toLongLong(), q.value(4).toString()))
            *stale << std::pair{q.value(0).toLongLong(), StaleRun{q.value(1).toLongLong(), q.value(2).toDouble(), q.value(3).toDouble()}};
    return {};
}

std::optional<qint64> RunStore::liveController(qint64 run) const {
    QSqlQuery q = reader();
    q.prepare(QStringLiteral("SELECT controller_pid, controller_token FROM runs WHERE id = ? AND status = 'running'"));
    q.addBindValue(run);
    if (!q.exec() || !q.next() || !controllerAlive(q.value(0).toLongLong(), q.value(1).toString())) return std::nullopt;
    return q.value(0).toLongLong();
}

// A run still 'running' whose controller is gone was interrupted: what it committed stays; it
// gets the reason as an error event, and its unfinished processes the final state 'interrupted'.
QString RunStore::markInterrupted() {
    QList<std::pair<qint64, StaleRun>> stale;
    if (const QString e = findStaleRuns(&stale); !e.isEmpty() || stale.isEmpty()) return e;
    QSqlDatabase db = QSqlDatabase::database(m_connection);
    QString sqlError;
    auto fail = [&] {
        exec(db, QStringLiteral("ROLLBACK"), nullptr);
        return QStringLiteral("cannot mark the interrupted runs of %1: %2").arg(m_path, sqlError);
    };
    if (!exec(db, QStringLiteral("BEGIN IMMEDIATE"), &sqlError)) return fail();
    stale.clear();  // again inside the transaction: another controller may have marked them meanwhile
    if (const QString e = findStaleRuns(&stale); !e.isEmpty()) {
        sqlError = e;
        return fail();
    }
    for (const auto& [id, run] : stale) {
        QSqlQuery q(db);
        q.prepare(
            QStringLiteral("UPDATE runs SET status = 'interrupted', ended = (SELECT max(t) FROM metrics WHERE run_id = ?)"
                           " WHERE id = ?"));
        q.addBindValue(id);
        q.addBindValue(id);
        bool ok = q.exec();
        if (ok) {
            q.prepare(QStringLiteral("INSERT INTO events VALUES (?, ?, 'error', 'controller', ?)"));
            q.addBindValue(id);
            q.addBindValue(run.reasonT);
            q.addBindValue(interruptedReason(run.pid));
            ok = q.exec();
        }
        if (ok) {
            q.prepare(
                QStringLiteral("UPDATE processes SET state = 'interrupted'"
                               " WHERE run_id = ? AND (state IS NULL OR state IN ('pending', 'running'))"));
            q.addBindValue(id);
            ok = q.exec();
        }
        if (!ok) {
            sqlError = sqlErrorText(q.lastError());
            return fail();
        }
    }
    if (!exec(db, QStringLiteral("COMMIT"), &sqlError)) return fail();
    return {};
}

}  // namespace hips
