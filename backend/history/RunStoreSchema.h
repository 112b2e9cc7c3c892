#pragma once
// RunStore's file checks and schema (internal to the history library): what a file is before
// anything writes to it, the switch to WAL, and the schema created or migrated in one
// exclusive transaction.
#include <QSqlDatabase>
#include <QSqlError>
#include <QString>
#include <QStringList>

namespace hips::store {

// What a file holds, found without writing to it.
struct FileFacts {
    QStringList tables;
    int version = 0;
};

// The text of a failed statement: SQLite's own message ("database or disk is full") when there is one.
QString sqlErrorText(const QSqlError& e);
// Runs `sql`; on failure sets *error (when given) and returns false.
bool exec(QSqlDatabase& db, const QString& sql, QString* error);
// Refuses anything that is not an empty file, a SQLite file, or nothing at all (a FIFO, a device,
// a folder: SQLite would hang on or misread them).
QString checkFileKind(const QString& path);
// A connection that trusts nothing the file says (a history may come from someone else): no
// functions or virtual tables run from its schema (trusted_schema off), and no statement may
// damage the file itself (SQLITE_DBCONFIG_DEFENSIVE). Empty on success.
QString distrustSchema(QSqlDatabase& db, const QString& path);
// Checks the whole file (PRAGMA quick_check) and that it is a HiPS history this build can read:
// one schema version this build knows, no trigger or view (the project makes none, and a
// planted one would run or answer in its place); writes nothing. *cantOpen is set when SQLite could not open the file's companions.
QString inspect(QSqlDatabase& db, const QString& path, FileFacts* facts, bool* cantOpen);
// The schema version, refused unless it is one integer in [0, RunStore::kSchemaVersion].
QString readVersion(QSqlDatabase& db, const QString& path, int* version);
// Switches the file to WAL, trying a busy file again for up to `timeoutMs`.
QString switchToWal(QSqlDatabase& db, const QString& path, int timeoutMs);
// Creates the schema or migrates it to RunStore::kSchemaVersion in one exclusive transaction.
QString createOrMigrate(QSqlDatabase& db, const QString& path);

}  // namespace hips::store
