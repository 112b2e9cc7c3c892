#pragma once
// Runs of the default topology with processes killed or stopped (tst_faults, tst_chaos).
#include "RunHarness.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <csignal>
#include <functional>

namespace hips::test {

// The default topology with `policy`, a 3 s heartbeat timeout and the MLP (a fault's handling is
// the same for any model, and the MLP's rounds take a third of the cnn's time: tst_faults ran
// 4 to 10 minutes on the cnn); `tweak` edits it. (Its ports move to free ones when a Run starts it.)
inline QString writeTopology(const QTemporaryDir& dir, const QString& policy, const std::function<void(QJsonObject&)>& tweak = {}) {
    QFile in(HIPS_SOURCE_DIR "/resources/topologies/default.json");
    in.open(QIODevice::ReadOnly);
    QJsonObject t = QJsonDocument::fromJson(in.readAll()).object();
    QJsonObject training = t["training"].toObject();
    training["fault_policy"] = policy;
    training["heartbeat_timeout_s"] = 3;
    training["model"] = "mlp";
    t["training"] = training;
    if (tweak) tweak(t);
    const QString path = dir.filePath(policy + (tweak ? "-tweaked" : "") + ".json");
    QFile out(path);
    out.open(QIODevice::WriteOnly);
    out.write(QJsonDocument(t).toJson());
    return path;
}

inline double finalAccuracy(const QByteArray& out) {
    const auto m = QRegularExpression("final test accuracy (\\d\\.\\d{4})").match(QString::fromUtf8(out));
    return m.hasMatch() ? m.captured(1).toDouble() : -1;
}

// The rounds of the CLI's table, in the order printed.
inline QList<int> printedRounds(const QByteArray& out) {
    QList<int> rounds;
    static const QRegularExpression row("^\\s*(\\d+)\\s+\\S+\\s+[\\d-]", QRegularExpression::MultilineOption);
    for (auto it = row.globalMatch(QString::fromUtf8(out)); it.hasNext();) rounds << it.next().captured(1).toInt();
    return rounds;
}

// Reads the run's output until `done(output so far)` holds, the run ends, or `ms` pass.
inline bool waitForOutputWhere(Run& run, int ms, const std::function<bool(const QByteArray&)>& done) {
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < ms && run.process.state() != QProcess::NotRunning) {
        run.process.waitForReadyRead(200);
        run.out += run.process.readAllStandardOutput();
        if (done(run.out)) return true;
    }
    return false;
}

// Waits until the table shows `rows` rounds after the line holding `marker`.
inline bool waitForRowsAfter(Run& run, const QByteArray& marker, int rows, int ms) {
    return waitForOutputWhere(run, ms, [&](const QByteArray& out) {
        const qsizetype at = out.indexOf(marker);
        return at >= 0 && printedRounds(out.mid(at)).size() >= rows;
    });
}

// Whether `pid` runs under a live agent: a role that is dying with its agent (already reparented)
// is no victim of its own.
inline bool underLiveAgent(qint64 pid) {
    for (int depth = 0; depth < 4 && pid > 1; ++depth) {
        QFile cmd(QStringLiteral("/proc/%1/cmdline").arg(pid)), stat(QStringLiteral("/proc/%1/stat").arg(pid));
        if (!cmd.open(QIODevice::ReadOnly) || !stat.open(QIODevice::ReadOnly)) return false;
        if (cmd.readAll().replace('\0', ' ').contains("hips-agent daemon")) return true;
        const QByteArray fields = stat.readAll();
        pid = fields.mid(fields.lastIndexOf(')') + 2).split(' ').value(1).toLongLong();  // (after the name: state, ppid)
    }
    return false;
}

// Whether the global server's aggregate of `round` (0: its initial model) reached
// `runDir`/metrics.jsonl within `ms` (the table's row of a round waits for its evaluation, which
// lags by the rounds the master was away: near the end of a run, until the run is over).
inline bool waitForAggregate(Run& run, const QString& runDir, int round, int ms) {
    const QByteArray kind = round == 0 ? "\"kind\":\"model_init\"" : "\"kind\":\"aggregate\"";
    const QByteArray roundField = round == 0 ? kind : "\"round\":" + QByteArray::number(round) + ',';
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < ms && run.process.state() != QProcess::NotRunning) {
        QFile metrics(runDir + "/metrics.jsonl");
        if (metrics.open(QIODevice::ReadOnly))
            for (const QByteArray& line : metrics.readAll().split('\n'))
                if (line.contains(kind) && line.contains("\"node\":\"central/global_server0\"") && line.contains(roundField)) return true;
        run.process.waitForReadyRead(100);
        run.out += run.process.readAllStandardOutput();
    }
    return false;
}

// Signals the first process of `node` in `run` once its table shows round `round` (or, given the
// run's directory, once that round is aggregated); node "agent" is the local agent. A role whose
// agent died just before is looked for again in its new one. Returns the pid signalled, 0 if none was.
inline qint64 signalAtRound(Run& run, int round, const QByteArray& node, int signal, const QString& runDir = {}) {
    const bool reached = runDir.isEmpty()
                             ? run.waitForOutput(QByteArray("\n") + QByteArray::number(round).rightJustified(5, ' ') + "  ", 120000)
                             : waitForAggregate(run, runDir, round, 120000);
    if (!reached) {
        qWarning("round %d was not %s within 120 s", round, runDir.isEmpty() ? "printed" : "aggregated");
        return 0;
    }
    const QByteArray needle = node == "agent" ? QByteArray("hips-agent daemon") : "--node " + node;
    for (int tries = 0; tries < 300; ++tries, QTest::qWait(100))
        for (qint64 pid : taggedProcesses(run.tag, needle))
            if (underLiveAgent(pid)) return ::kill(pid_t(pid), signal) == 0 ? pid : 0;
    qWarning("no process of %s under a live agent within 30 s", node.constData());
    return 0;
}

}  // namespace hips::test
