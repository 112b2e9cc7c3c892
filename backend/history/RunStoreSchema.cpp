#include "RunStoreSchema.h"

#include "PrintableText.h"
#include "RunStore.h"

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSqlDriver>
#include <QSqlQuery>
#include <QThread>
#include <QVariant>
#include <sqlite3.h>

namespace hips::store {

namespace {

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
    {
        // Where each run's directory is, so that `hips run --resume ID` finds its checkpoint.
        "ALTER TABLE runs ADD COLUMN run_dir TEXT",
    },
    {
        // The user's own words about a run: tags (comma-separated) and notes, edited in History.
        "ALTER TABLE runs ADD COLUMN tags TEXT",
        "ALTER TABLE runs ADD COLUMN notes TEXT",
    },
    {
        // Each agent's last event the history holds (its sequence number), and how long the run
        // directory's metrics.jsonl was then: a controller that attaches to a run whose controller
        // died takes up exactly where the history ends (hips attach), neither losing nor doubling.
        "CREATE TABLE agent_marks (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, agent TEXT NOT NULL,"
        " seq INTEGER NOT NULL, metrics_bytes INTEGER NOT NULL, PRIMARY KEY (run_id, agent))",
    },
    {
        // Which process the controller is, beyond its pid: the boot and the process's start time
        // (RunStore::processToken). A pid the kernel gave to another process since, or one from
        // before a reboot, no longer keeps a dead controller's run 'running'.
        "ALTER TABLE runs ADD COLUMN controller_token TEXT",
    },
    {
        // The round a resume went back to, while the run's rows past it from before the resume are
        // still there (its first new round deletes them): a controller that attaches before then
        // deletes them as the resumed one would have, instead of keeping both runs' rounds.
        "ALTER TABLE runs ADD COLUMN cut_after INTEGER",
    },
};

// What in the file's tables and indexes SQLite would compute as it reads or writes a row, which
// this build's schema never has: generated columns, defaults, CHECK constraints, indexes on
// expressions or over part of a table. Even with trusted_schema off they may call SQLite's own
// functions (printf('%.*c', 999999999, 'x') is a gigabyte a row). Empty: none.
QStringList computedParts(QSqlDatabase& db) {
    QStringList found;
    QSqlQuery objects(db), q(db);
    if (!objects.exec(QStringLiteral("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE type IN ('table', 'index')")))
        return {QStringLiteral("a schema that cannot be read: ") + sqlErrorText(objects.lastError())};
    static const QRegularExpression check(QStringLiteral("\\bcheck\\b"), QRegularExpression::CaseInsensitiveOption);
    while (objects.next() && found.size() < 5) {
        const QString type = objects.value(0).toString(), name = objects.value(1).toString();
        const QString shown = printableText(name, 64);
        if (type == QLatin1String("table")) {
            const QString sql = objects.value(3).toString();
            if (sql.contains(check)) found << QStringLiteral("a CHECK constraint on ") + shown;
            if (sql.trimmed().startsWith(QLatin1String("create virtual"), Qt::CaseInsensitive))
                found << QStringLiteral("a virtual table ") + shown;
            q.prepare(QStringLiteral("SELECT name FROM pragma_table_xinfo(?) WHERE hidden != 0 OR dflt_value IS NOT NULL"));
        } else {
            q.prepare(
                QStringLiteral("SELECT 'an expression' FROM pragma_index_xinfo(?) WHERE cid = -2 UNION ALL"
                               " SELECT 'a WHERE clause' FROM pragma_index_list(?) WHERE name = ? AND partial"));
        }
        q.addBindValue(name);
        if (type != QLatin1String("table")) q.addBindValue(objects.value(2).toString()), q.addBindValue(name);
        if (!q.exec()) found << QStringLiteral("%1 %2 that cannot be read").arg(type, shown);
        else if (q.next())
            found << (type == QLatin1String("table")
                          ? QStringLiteral("a computed or default column %1.%2").arg(shown, printableText(q.value(0).toString(), 64))
                          : QStringLiteral("an index %1 with %2").arg(shown, q.value(0).toString()));
    }
    return found;
}

}  // namespace

// The one row of hips_schema, a version this build knows how to read or migrate from.
QString readVersion(QSqlDatabase& db, const QString& path, int* version) {
    QSqlQuery q(db);
    if (!q.exec(QStringLiteral("SELECT typeof(version), version FROM hips_schema")) || !q.next())
        return QStringLiteral("cannot read the schema version of %1: %2").arg(path, sqlErrorText(q.lastError()));
    const bool integer = q.value(0).toString() == QLatin1String("integer");
    const QString text = printableText(q.value(1).toString(), 32);
    *version = integer ? q.value(1).toInt() : -1;
    const bool several = q.next();
    if (several || !integer || *version < 0)
        return QStringLiteral(
                   "%1 has a schema version no HiPS Studio wrote (%2); it was left untouched: pass another "
                   "--history path")
            .arg(path, several ? QStringLiteral("more than one") : text);
    if (*version > RunStore::kSchemaVersion)
        return QStringLiteral("%1 was written by a newer HiPS Studio (schema %2, this one reads %3); upgrade")
            .arg(path)
            .arg(*version)
            .arg(RunStore::kSchemaVersion);
    return {};
}

// The text of a failed statement: SQLite's own message ("database or disk is full") when there is one.
QString sqlErrorText(const QSqlError& e) {
    return e.databaseText().isEmpty() ? e.text() : e.databaseText();
}

bool exec(QSqlDatabase& db, const QString& sql, QString* error) {
    QSqlQuery q(db);
    if (q.exec(sql)) return true;
    if (error) *error = sqlErrorText(q.lastError()) + QStringLiteral(" (in: ") + sql + ')';
    return false;
}

// Refuses anything that is not an empty file, a SQLite file, or nothing at all.
QString checkFileKind(const QString& path) {
    const QFileInfo info(path);
    if (info.exists() && !info.isFile())
        return QStringLiteral(
                   "%1 is not a regular file (a folder, a FIFO or a device); it was left untouched: pass a "
                   "history file's path")
            .arg(path);
    QFile f(path);
    if (!f.exists() || f.size() == 0) return {};
    if (!f.open(QIODevice::ReadOnly)) return QStringLiteral("cannot read %1: %2").arg(path, f.errorString());
    if (f.read(16) != QByteArray("SQLite format 3\0", 16))
        return QStringLiteral(
                   "%1 is not a SQLite file (corrupt, or some other kind of file); it was left untouched: "
                   "pass another --history path")
            .arg(path);
    return {};
}

QString distrustSchema(QSqlDatabase& db, const QString& path) {
    const QVariant handle = db.driver()->handle();
    auto* sqlite = handle.isValid() && qstrcmp(handle.typeName(), "sqlite3*") == 0 ? *static_cast<sqlite3* const*>(handle.data()) : nullptr;
    if (!sqlite || sqlite3_db_config(sqlite, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr) != SQLITE_OK)
        return QStringLiteral("cannot open %1 defensively (SQLite's defensive mode)").arg(path);
    QString error;
    if (!exec(db, QStringLiteral("PRAGMA trusted_schema=OFF"), &error)) return QStringLiteral("%1: %2").arg(path, error);
    return {};
}

// Checks the whole file (PRAGMA quick_check: every page and record, not only the header) and
// that it is a HiPS history this build can read. `db` may be a read-only connection: nothing is
// written. *cantOpen is set when SQLite could not open the file's companions (-shm on a
// read-only mount).
QString inspect(QSqlDatabase& db, const QString& path, FileFacts* facts, bool* cantOpen) {
    QSqlQuery check(db);
    check.setForwardOnly(true);
    QStringList problems;
    if (!check.exec(QStringLiteral("PRAGMA quick_check"))) {
        if (cantOpen) *cantOpen = (check.lastError().nativeErrorCode().toInt() & 0xff) == SQLITE_CANTOPEN;
        if (cantOpen && *cantOpen) return QStringLiteral("cannot open %1: %2").arg(path, sqlErrorText(check.lastError()));
        if (const int code = check.lastError().nativeErrorCode().toInt() & 0xff; code == SQLITE_BUSY || code == SQLITE_LOCKED)
            return QStringLiteral("cannot read %1: another program holds it locked (%2); try again once it is done with it")
                .arg(path, sqlErrorText(check.lastError()));
        problems << sqlErrorText(check.lastError());
    }
    while (check.next() && problems.size() < 3)
        if (const QString line = check.value(0).toString(); line != QLatin1String("ok")) problems << printableText(line, 200);
    if (check.lastError().isValid() && problems.isEmpty()) problems << sqlErrorText(check.lastError());
    if (!problems.isEmpty())
        return QStringLiteral(
                   "%1 is damaged (SQLite's integrity check: %2); it was left untouched: restore it from a "
                   "backup or pass another --history path")
            .arg(path, problems.join(QStringLiteral("; ")));
    QSqlQuery q(db);
    if (!q.exec(QStringLiteral("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")))
        return QStringLiteral("cannot read %1: %2").arg(path, sqlErrorText(q.lastError()));
    while (q.next()) facts->tables << printableText(q.value(0).toString(), 64);  // (names from the file: printed)
    if (facts->tables.isEmpty()) return {};
    if (!facts->tables.contains(QStringLiteral("hips_schema")))
        return QStringLiteral(
                   "%1 is a SQLite database but not a HiPS Studio history (tables: %2); it was left "
                   "untouched: pass another --history path")
            .arg(path, facts->tables.join(", "));
    if (!q.exec(QStringLiteral("SELECT type, name FROM sqlite_master WHERE type IN ('trigger', 'view') ORDER BY name")))
        return QStringLiteral("cannot read %1: %2").arg(path, sqlErrorText(q.lastError()));
    QStringList planted;
    while (q.next() && planted.size() < 5) planted << q.value(0).toString() + QLatin1Char(' ') + printableText(q.value(1).toString(), 64);
    if (planted.isEmpty()) planted = computedParts(db);
    if (!planted.isEmpty())
        return QStringLiteral(
                   "%1 holds what HiPS Studio never creates (%2): someone else's history, or a planted one; it "
                   "was left untouched: pass another --history path")
            .arg(path, planted.join(QStringLiteral(", ")));
    return readVersion(db, path, &facts->version);
}

// Switches the file to WAL (a no-op once it is). The switch needs the file to itself and SQLite
// does not wait for that (a reader holding its lock could deadlock with it), so a busy file is
// tried again for up to `timeoutMs`: controllers opening a new history at once take turns.
QString switchToWal(QSqlDatabase& db, const QString& path, int timeoutMs) {
    QElapsedTimer waited;
    waited.start();
    for (int pauseMs = 1;; pauseMs = std::min(pauseMs * 2, 50)) {
        QSqlQuery q(db);
        if (q.exec(QStringLiteral("PRAGMA journal_mode=WAL"))) return {};
        const int code = q.lastError().nativeErrorCode().toInt() & 0xff;
        if ((code != SQLITE_BUSY && code != SQLITE_LOCKED) || waited.elapsed() > timeoutMs)
            return QStringLiteral("%1: %2 (in: PRAGMA journal_mode=WAL)").arg(path, sqlErrorText(q.lastError()));
        QThread::msleep(pauseMs);
    }
}

// Creates the schema or migrates it to kSchemaVersion in one exclusive transaction, so that
// controllers creating or upgrading the same history at the same moment take turns (the busy
// timeout waits) and each finds the work done by the one before.
QString createOrMigrate(QSqlDatabase& db, const QString& path) {
    QString sqlError;
    if (!exec(db, QStringLiteral("BEGIN EXCLUSIVE"), &sqlError))
        return QStringLiteral("cannot lock %1 to set it up: %2").arg(path, sqlError);
    auto fail = [&](const QString& why) {
        exec(db, QStringLiteral("ROLLBACK"), nullptr);
        return why;
    };
    QSqlQuery q(db);
    if (!q.exec(QStringLiteral("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'hips_schema'")) || !q.next())
        return fail(QStringLiteral("cannot read %1: %2").arg(path, sqlErrorText(q.lastError())));
    if (q.value(0).toInt() == 0 && !(exec(db, QStringLiteral("CREATE TABLE hips_schema (version INTEGER NOT NULL)"), &sqlError) &&
                                     exec(db, QStringLiteral("INSERT INTO hips_schema VALUES (0)"), &sqlError)))
        return fail(QStringLiteral("%1: %2").arg(path, sqlError));
    q.finish();
    int version = 0;
    if (const QString e = readVersion(db, path, &version); !e.isEmpty()) return fail(e);
    for (int v = version; v < RunStore::kSchemaVersion; ++v) {
        for (const QString& sql : kMigrations[v])
            if (!exec(db, sql, &sqlError))
                return fail(QStringLiteral("%1: migration to schema %2 failed: %3").arg(path).arg(v + 1).arg(sqlError));
        if (!exec(db, QStringLiteral("UPDATE hips_schema SET version = %1").arg(v + 1), &sqlError))
            return fail(QStringLiteral("%1: migration to schema %2 failed: %3").arg(path).arg(v + 1).arg(sqlError));
    }
    if (!exec(db, QStringLiteral("COMMIT"), &sqlError)) return fail(QStringLiteral("%1: %2").arg(path, sqlError));
    return {};
}

}  // namespace hips::store
