#pragma once
// Runs of the default topology with processes killed or stopped (tst_faults, tst_chaos).
#include "RunHarness.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <csignal>
#include <functional>

namespace hips::test {

// The default topology on ports <portPrefix>xxx, with `policy` and a 3 s heartbeat timeout;
// `tweak` edits it.
inline QString writeTopology(const QTemporaryDir& dir, const QByteArray& portPrefix, const QString& policy,
                             const std::function<void(QJsonObject&)>& tweak = {}) {
    QFile in(HIPS_SOURCE_DIR "/resources/topologies/default.json");
    in.open(QIODevice::ReadOnly);
    QByteArray text = in.readAll();
    text.replace("\"port\": 9", "\"port\": " + portPrefix);
    QJsonObject t = QJsonDocument::fromJson(text).object();
    QJsonObject training = t["training"].toObject();
    training["fault_policy"] = policy;
    training["heartbeat_timeout_s"] = 3;
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
    static const QRegularExpression row("^\\s*(\\d+)\\s+\\S+\\s+\\d", QRegularExpression::MultilineOption);
    for (auto it = row.globalMatch(QString::fromUtf8(out)); it.hasNext();) rounds << it.next().captured(1).toInt();
    return rounds;
}

// Signals the first process of `node` in `run` once its table shows round `round`.
inline bool signalAtRound(Run& run, int round, const QByteArray& node, int signal) {
    if (!run.waitForOutput(QByteArray("\n") + QByteArray::number(round).rightJustified(5, ' ') + "  ", 120000)) return false;
    const QList<qint64> pids = taggedProcesses(run.tag, "--node " + node);
    return !pids.isEmpty() && ::kill(pid_t(pids.first()), signal) == 0;
}

}  // namespace hips::test
