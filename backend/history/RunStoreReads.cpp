// RunStore's readers: plain queries on the caller's connection.
#include "RunStore.h"
#include "RunClock.h"
#include "Vocabulary.h"

#include <QJsonDocument>
#include <cmath>
#include <algorithm>
#include <QDir>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

namespace hips {

namespace {

// A run's facts, computed inside SQLite by correlated sub-queries that each walk one index
// range, so that listing a thousand runs is one statement and no per-run round trips.
QString runWithFactsSql() {
    return QStringLiteral(
               "SELECT r.id, r.name, r.status, r.started, r.ended, r.summary, r.tags, r.notes,"
               " (SELECT max(round) FROM metrics WHERE run_id = r.id AND name = '%1'),"
               " (SELECT max(value) FROM metrics WHERE run_id = r.id AND name = '%2'),"
               " (SELECT value FROM metrics WHERE run_id = r.id AND name = '%2' ORDER BY round DESC LIMIT 1),"
               // Traffic counters are cumulative per link: the latest (largest) value of each, summed
               // (total(), a float: sum() of integers fails on overflow, and with it the whole list).
               " (SELECT total(b) FROM (SELECT max(bytes) AS b FROM traffic WHERE run_id = r.id AND tier = 'across' GROUP BY link)),"
               // A regression's RMSE: lower is better.
               " (SELECT min(value) FROM metrics WHERE run_id = r.id AND name = '%3'),"
               " (SELECT value FROM metrics WHERE run_id = r.id AND name = '%3' ORDER BY round DESC LIMIT 1)"
               " FROM runs r")
        .arg(metric::kStoredApplySeconds, metric::kStoredTestAccuracy, metric::kStoredTestRmse);
}

// A time the file holds as Unix seconds; 0 (not known) when it is none a run could have (a
// history file may come from anyone: 1e300 became a millisecond count that overflowed qint64).
double storedTime(const QVariant& v) {
    const double t = v.toDouble();
    return std::isfinite(t) && t >= 0 && t < 1e11 ? t : 0;
}

RunRecord recordOf(const QSqlQuery& q) {
    RunRecord r;
    r.id = q.value(0).toLongLong();
    r.name = q.value(1).toString();
    r.status = q.value(2).toString();
    r.started = storedTime(q.value(3));
    r.ended = storedTime(q.value(4));
    r.summary = QJsonDocument::fromJson(q.value(5).toString().toUtf8()).object();
    r.tags = q.value(6).toString();
    r.notes = q.value(7).toString();
    return r;
}

RunFacts factsOf(const QSqlQuery& q) {
    auto orMinusOne = [&](int column) { return q.value(column).isNull() ? -1.0 : q.value(column).toDouble(); };
    RunFacts f;
    f.rounds = q.value(8).isNull() ? 0 : q.value(8).toInt();
    f.bestAccuracy = orMinusOne(9);
    f.finalAccuracy = orMinusOne(10);
    f.bytesAcross = q.value(11).isNull() ? 0 : q.value(11).toDouble();
    f.bestRmse = orMinusOne(12);
    f.finalRmse = orMinusOne(13);
    return f;
}

}  // namespace

QSqlQuery RunStore::reader() const {
    return QSqlQuery(QSqlDatabase::database(m_connection));
}

bool RunStore::read(QSqlQuery& q, const QString& sql) const {
    if (sql.isEmpty() ? q.exec() : q.exec(sql)) return true;
    if (m_readError.isEmpty()) m_readError = QStringLiteral("history: %1 (%2)").arg(q.lastError().text(), QDir::toNativeSeparators(m_path));
    return false;
}

// A store opened ReadOnly cannot mark the runs of dead controllers; it shows them as a
// ReadWrite open would have marked them.
void RunStore::presentStale(RunRecord& run) const {
    const auto it = m_stale.constFind(run.id);
    if (it == m_stale.constEnd()) return;
    run.status = QStringLiteral("interrupted");
    run.ended = storedTime(it->ended);  // (its last row's time: from the file too)
}

QList<RunRecord> RunStore::runs() const {
    QSqlQuery q = reader();
    read(q, QStringLiteral("SELECT id, name, status, started, ended, summary, tags, notes FROM runs ORDER BY id"));
    QList<RunRecord> out;
    while (q.next()) {
        out << recordOf(q);
        presentStale(out.last());
    }
    return out;
}

QList<RunListEntry> RunStore::runList() const {
    QSqlQuery q = reader();
    q.setForwardOnly(true);
    read(q, runWithFactsSql() + QStringLiteral(" ORDER BY r.id"));
    QList<RunListEntry> out;
    while (q.next()) {
        out << RunListEntry{recordOf(q), factsOf(q)};
        presentStale(out.last().run);
    }
    return out;
}

std::optional<RunRecord> RunStore::run(qint64 id) const {
    QSqlQuery q = reader();
    read(q, QStringLiteral("SELECT id, name, status, started, ended, summary, tags, notes FROM runs WHERE id = %1").arg(id));
    if (!q.next()) return std::nullopt;
    RunRecord r = recordOf(q);
    presentStale(r);
    return r;
}

RunFacts RunStore::facts(qint64 run) const {
    QSqlQuery q = reader();
    read(q, runWithFactsSql() + QStringLiteral(" WHERE r.id = %1").arg(run));
    return q.next() ? factsOf(q) : RunFacts{};
}

qint64 RunStore::metricCount(qint64 run) const {
    QSqlQuery q = reader();
    read(q, QStringLiteral("SELECT count(*) FROM metrics WHERE run_id = %1").arg(run));
    return q.next() ? q.value(0).toLongLong() : 0;
}

QStringList RunStore::eventMessages(qint64 run, const QString& level) const {
    QStringList out;
    for (const EventRecord& e : events(run))
        if (e.level == level)  // the servers' own warnings already begin with their name
            out << (e.message.startsWith(e.source + QLatin1Char(':')) ? e.message : e.source + QStringLiteral(": ") + e.message);
    return out;
}

QByteArray RunStore::topologyJson(qint64 run) const {
    QSqlQuery q = reader();
    read(q, QStringLiteral("SELECT topology FROM runs WHERE id = %1").arg(run));
    return q.next() ? q.value(0).toString().toUtf8() : QByteArray();
}

QString RunStore::runDirectory(qint64 run) const {
    QSqlQuery q = reader();
    read(q, QStringLiteral("SELECT run_dir FROM runs WHERE id = %1").arg(run));
    return q.next() ? q.value(0).toString() : QString();
}

QHash<QString, RunStore::AgentMark> RunStore::agentMarks(qint64 run) const {
    QHash<QString, AgentMark> marks;
    QSqlQuery q = reader();
    q.setForwardOnly(true);
    q.prepare(QStringLiteral("SELECT agent, seq, metrics_bytes FROM agent_marks WHERE run_id = ?"));
    q.addBindValue(run);
    if (read(q))
        while (q.next()) marks.insert(q.value(0).toString(), AgentMark{q.value(1).toLongLong(), q.value(2).toLongLong()});
    return marks;
}

std::optional<int> RunStore::pendingCut(qint64 run) const {
    QSqlQuery q = reader();
    q.prepare(QStringLiteral("SELECT cut_after FROM runs WHERE id = ? AND cut_after IS NOT NULL"));
    q.addBindValue(run);
    if (!read(q) || !q.next()) return std::nullopt;
    return q.value(0).toInt();
}

std::optional<qint64> RunStore::runOfDirectory(const QString& runDir) const {
    QSqlQuery q = reader();
    q.prepare(QStringLiteral("SELECT id FROM runs WHERE run_dir = ? ORDER BY id DESC LIMIT 1"));
    q.addBindValue(runDir);
    if (!read(q) || !q.next()) return std::nullopt;
    return q.value(0).toLongLong();
}

QJsonObject RunStore::settings(qint64 run) const {
    QSqlQuery q = reader();
    read(q, QStringLiteral("SELECT settings FROM runs WHERE id = %1").arg(run));
    return q.next() ? QJsonDocument::fromJson(q.value(0).toString().toUtf8()).object() : QJsonObject();
}

QList<MetricRecord> RunStore::metrics(qint64 run) const {
    QSqlQuery q = reader();
    q.setForwardOnly(true);
    read(q, QStringLiteral("SELECT t, source, round, name, value FROM metrics WHERE run_id = %1 ORDER BY t").arg(run));
    QList<MetricRecord> out;
    while (q.next())
        out << MetricRecord{q.value(0).toDouble(), q.value(1).toString(), q.value(2).toInt(), q.value(3).toString(), q.value(4).toDouble()};
    return out;
}

QList<TrafficRecord> RunStore::traffic(qint64 run) const {
    QSqlQuery q = reader();
    q.setForwardOnly(true);
    read(q, QStringLiteral("SELECT t, link, tier, bytes, round FROM traffic WHERE run_id = %1 ORDER BY t").arg(run));
    QList<TrafficRecord> out;
    while (q.next())
        out << TrafficRecord{q.value(0).toDouble(), q.value(1).toString(), q.value(2).toString(), q.value(3).toLongLong(),
                             q.value(4).isNull() ? -1 : q.value(4).toInt()};
    return out;
}

QList<EventRecord> RunStore::events(qint64 run) const {
    QSqlQuery q = reader();
    q.setForwardOnly(true);
    read(q, QStringLiteral("SELECT t, level, source, message FROM events WHERE run_id = %1 ORDER BY t").arg(run));
    QList<EventRecord> out;
    while (q.next()) out << EventRecord{q.value(0).toDouble(), q.value(1).toString(), q.value(2).toString(), q.value(3).toString()};
    if (const auto it = m_stale.constFind(run); it != m_stale.constEnd())
        out << EventRecord{it->reasonT, QStringLiteral("error"), QStringLiteral("controller"), interruptedReason(it->pid)};
    return out;
}

double RunStore::duration(const RunRecord& r) const {
    if (r.ended <= 0) return -1;
    if (r.started <= 0 && !(r.summary.value(QStringLiteral("seconds")).toDouble() > 0)) return -1;  // (its start is not known)
    const double seconds = r.summary.value(QStringLiteral("seconds")).toDouble();
    return seconds > 0 ? seconds : clock(r.id).elapsed(r.ended);
}

RunClock RunStore::clock(qint64 id) const {
    const std::optional<RunRecord> record = run(id);
    if (!record) return RunClock();
    QSqlQuery q = reader();
    q.setForwardOnly(true);
    q.prepare(QStringLiteral("SELECT t FROM events WHERE run_id = ? AND source = 'controller' AND message LIKE ? AND t > ? ORDER BY t"));
    q.addBindValue(id);
    q.addBindValue(kResumedEventPrefix + QLatin1Char('%'));
    q.addBindValue(record->started);
    read(q);
    QList<double> resumes;
    while (q.next()) resumes << q.value(0).toDouble();
    return RunClock(*record, resumes, [this, id](double from, double before) {
        double last = from;
        for (const char* table : {"metrics", "traffic"}) {
            QSqlQuery rows = reader();
            rows.prepare(QStringLiteral("SELECT MAX(t) FROM %1 WHERE run_id = ? AND t > ? AND t < ?").arg(QLatin1String(table)));
            rows.addBindValue(id);
            rows.addBindValue(from);
            rows.addBindValue(before);
            if (read(rows) && rows.next() && !rows.value(0).isNull()) last = std::max(last, rows.value(0).toDouble());
        }
        return last;
    });
}

QList<ProcessRecord> RunStore::processes(qint64 run) const {
    QSqlQuery q = reader();
    q.setForwardOnly(true);
    read(q, QStringLiteral("SELECT node, role, party, host, rank, pid, started, ended, exit_code, crashed, error, state"
                           " FROM processes WHERE run_id = %1 ORDER BY node")
                .arg(run));
    QList<ProcessRecord> out;
    while (q.next()) {
        ProcessRecord p;
        p.node = q.value(0).toString();
        p.role = q.value(1).toString();
        p.party = q.value(2).toString();
        p.host = q.value(3).toString();
        p.rank = q.value(4).toInt();
        p.pid = q.value(5).toLongLong();
        p.started = storedTime(q.value(6));
        p.ended = storedTime(q.value(7));
        p.exitCode = q.value(8).toInt();
        p.crashed = q.value(9).toBool();
        p.error = q.value(10).toString();
        p.state = q.value(11).toString();
        if (m_stale.contains(run) && (p.state.isEmpty() || p.state == QLatin1String("pending") || p.state == QLatin1String("running")))
            p.state = QStringLiteral("interrupted");
        out << p;
    }
    return out;
}

int RunStore::schemaVersion() const {
    QSqlQuery q = reader();
    q.exec(QStringLiteral("SELECT version FROM hips_schema"));  // (none: 0, not a failed read)
    return q.next() ? q.value(0).toInt() : 0;
}

}  // namespace hips
