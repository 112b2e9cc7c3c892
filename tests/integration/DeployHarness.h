#pragma once
// tst_deploy's harness: running a command with a deadline, finding the processes a run left,
// reading `hips run`'s table, asking an endpoint whether it answers, and the topology's parties.
#include "Channel.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFileInfo>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <csignal>
#include <unistd.h>

namespace hips::test {

inline const QString kHips = QStringLiteral(HIPS_BIN_DIR "/hips");
inline const QString kHarness = QStringLiteral(HIPS_SOURCE_DIR "/tests/integration/netns_hosts.sh");
inline const QString kWanBox = QStringLiteral(HIPS_SOURCE_DIR "/tests/integration/wan_box.sh");
inline const QString kWanBoxCache = QStringLiteral(HIPS_BIN_DIR "/../wanbox");  // its kernel and initramfs, made once

struct Result {
    int status = -1;
    QByteArray out;
};

inline Result run(const QString& program, const QStringList& args, int ms = 180000, const QProcessEnvironment& env = {}) {
    QProcess p;
    if (!env.isEmpty()) p.setProcessEnvironment(env);
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(program, args);
    if (!p.waitForFinished(ms)) {
        p.kill();
        p.waitForFinished();
        return {-1, p.readAll() + "\n[timed out]"};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAll()};
}

// Reads `p`'s output into `out` until it holds `needle`, `p` ends or `ms` pass: a run that failed
// at once (a host out of reach) fails its case at once, not after the whole wait.
inline bool waitForOutput(QProcess& p, QByteArray& out, const QByteArray& needle, int ms) {
    QDeadlineTimer deadline(ms);
    out += p.readAll();
    while (!out.contains(needle) && p.state() != QProcess::NotRunning && !deadline.hasExpired()) {
        p.waitForReadyRead(int(std::min<qint64>(deadline.remainingTime(), 1000)));
        out += p.readAll();
    }
    return out.contains(needle);
}

// Processes whose command line mentions `needle` (an install directory or an endpoint), and
// `also` when given.
inline int processesWith(const QByteArray& needle, const QByteArray& also = {}) {
    int n = 0;
    for (const QString& entry : QDir("/proc").entryList(QDir::Dirs)) {
        bool isPid = false;
        entry.toLongLong(&isPid);
        QFile cmd("/proc/" + entry + "/cmdline");
        if (!isPid || !cmd.open(QIODevice::ReadOnly)) continue;
        const QByteArray line = cmd.readAll().replace('\0', ' ');
        n += line.contains(needle) && line.contains(also);
    }
    return n;
}

// Standby agents (hips deploy's) working in a folder under `dir`: those of this test, not another
// test's beside it (tst_deployipv6 deploys standby agents too).
inline int standbyAgentsUnder(const QString& dir) {
    int n = 0;
    for (const QString& entry : QDir("/proc").entryList(QDir::Dirs)) {
        QFile cmd("/proc/" + entry + "/cmdline");
        if (!cmd.open(QIODevice::ReadOnly)) continue;
        n += cmd.readAll().replace('\0', ' ').contains("hips-agent daemon --standby") &&
             QFileInfo("/proc/" + entry + "/cwd").symLinkTarget().startsWith(dir);
    }
    return n;
}

// Kills (SIGKILL) every process in network namespace `ns` but its SSH server (a host whose power
// went); returns how many.
inline int killHostProcesses(const QString& ns) {
    QProcess pids;
    pids.start("ip", {"netns", "pids", ns});
    pids.waitForFinished();
    int n = 0;
    for (const QByteArray& line : pids.readAll().split('\n')) {
        bool isPid = false;
        const qint64 pid = line.trimmed().toLongLong(&isPid);
        QFile comm("/proc/" + QString::number(pid) + "/comm");
        if (isPid && comm.open(QIODevice::ReadOnly) && comm.readAll().trimmed() != "sshd") n += ::kill(pid_t(pid), SIGKILL) == 0;
    }
    return n;
}

// The last round in the table `hips run` prints.
inline int lastPrintedRound(const QByteArray& out) {
    int last = 0;
    static const QRegularExpression row("^\\s+(\\d+)\\s+\\d\\.\\d{4}", QRegularExpression::MultilineOption);
    for (auto it = row.globalMatch(QString::fromUtf8(out)); it.hasNext();) last = it.next().captured(1).toInt();
    return last;
}

// The rows of `hips run`'s table: each round with the elapsed time printed with it.
inline QList<std::pair<int, double>> printedRows(const QByteArray& out) {
    static const QRegularExpression row(QStringLiteral("^\\s*(\\d+)\\s.*\\s([\\d.]+)s$"), QRegularExpression::MultilineOption);
    QList<std::pair<int, double>> rows;
    for (auto it = row.globalMatch(QString::fromUtf8(out)); it.hasNext();) {
        const auto m = it.next();
        rows.append({m.captured(1).toInt(), m.captured(2).toDouble()});
    }
    return rows;
}

// The elapsed time printed with round `round` (-1 when it was not printed).
inline double elapsedAtRound(const QByteArray& out, int round) {
    for (const auto& [r, seconds] : printedRows(out))
        if (r == round) return seconds;
    return -1;
}

// Sends a hello as a controller would, with `curve`, and says whether anything answered.
inline bool answers(const QString& endpoint, const hips::CurveConfig& curve) {
    zmq::context_t ctx(1);
    hips::Channel c = hips::Channel::dealer(ctx, "controller", endpoint, "agent", curve);
    c.send(hips::Message("hello", {{QStringLiteral("version"), 1}}));
    return c.receive(std::chrono::seconds(2)).has_value();
}

inline QByteArray readFile(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// The environment variable `name` of the first process whose command line holds `needle`.
inline QByteArray environmentOf(const QByteArray& needle, const QByteArray& name) {
    for (const QString& entry : QDir("/proc").entryList(QDir::Dirs)) {
        QFile cmd("/proc/" + entry + "/cmdline"), env("/proc/" + entry + "/environ");
        if (!cmd.open(QIODevice::ReadOnly) || !cmd.readAll().replace('\0', ' ').contains(needle)) continue;
        if (!env.open(QIODevice::ReadOnly)) continue;
        for (const QByteArray& kv : env.readAll().split('\0'))
            if (kv.startsWith(name + '=')) return kv.mid(name.size() + 1);
    }
    return {};
}

// One party a host: the central party on host A, party1 on B, party2 on C.
inline const QByteArray kThreeParties = R"([
  { "id": "central", "central": true, "host": "hostA",
    "roles": { "global_scheduler": { "port": 9100 }, "global_servers": [ { "port": 9101 } ], "master_worker": {} } },
  { "id": "party1", "host": "hostB",
    "roles": { "scheduler": { "port": 9200 }, "servers": [ { "port": 9201 } ], "workers": [ { "count": 2 } ] } },
  { "id": "party2", "host": "hostC",
    "roles": { "scheduler": { "port": 9300 }, "servers": [ { "port": 9301 } ], "workers": [ { "count": 2 } ] } } ])";

}  // namespace hips::test
