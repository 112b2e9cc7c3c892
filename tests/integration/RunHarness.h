#pragma once
// Runs `hips` as a user would, for the integration tests. Every process a test starts carries
// HIPS_TEST_TAG in its environment, so a test can find (and count) exactly its own processes
// in /proc; every topology it runs has its ports moved to free ones (FreePorts.h).
#include "FreePorts.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QUuid>
#include <QtTest>

namespace hips::test {

inline const QString kHips = QStringLiteral(HIPS_BIN_DIR "/hips");
inline const QString kSmall = QStringLiteral(HIPS_SOURCE_DIR "/tests/data/topologies/small.json");

// Pids whose environment holds `tag` and whose command line contains `needle`.
inline QList<qint64> taggedProcesses(const QString& tag, const QByteArray& needle = {}) {
    QList<qint64> pids;
    const QByteArray marker = "HIPS_TEST_TAG=" + tag.toUtf8();
    for (const QString& entry : QDir("/proc").entryList(QDir::Dirs)) {
        bool isPid = false;
        const qint64 pid = entry.toLongLong(&isPid);
        if (!isPid || pid == QCoreApplication::applicationPid()) continue;
        QFile env("/proc/" + entry + "/environ"), cmd("/proc/" + entry + "/cmdline");
        if (!env.open(QIODevice::ReadOnly) || !env.readAll().split('\0').contains(marker)) continue;
        if (!needle.isEmpty() && (!cmd.open(QIODevice::ReadOnly) || !cmd.readAll().replace('\0', ' ').contains(needle))) continue;
        pids << pid;
    }
    return pids;
}

// The records of a run's metrics file (one JSON object a line).
inline QList<QJsonObject> metricRecords(const QString& path) {
    QFile f(path);
    QList<QJsonObject> out;
    if (f.open(QIODevice::ReadOnly))
        for (const QByteArray& line : f.readAll().split('\n'))
            if (!line.isEmpty()) out << QJsonDocument::fromJson(line).object();
    return out;
}

inline QByteArray toolOutput(const QString& tool, const QStringList& args) {
    QProcess p;
    p.start(tool, args);
    if (!p.waitForFinished(60000)) qWarning("%s did not finish", qPrintable(tool));
    return p.readAllStandardOutput();
}

struct Run {
    QString tag = QUuid::createUuid().toString(QUuid::WithoutBraces);
    QTemporaryDir dir;
    QTemporaryDir topologies;  // the copies with free ports (apart: `--out` may be `dir` itself)
    FreePorts ports;  // where each port of the topology went
    QProcess process;
    QByteArray out, err;

    QString history() const { return dir.filePath("history.sqlite"); }

    // Every run gets its own history file and its own ports: tests never touch the user's.
    void start(QStringList args, const QStringList& extraEnv = {}) {
        if (args.value(0) == "run" && args.value(1).endsWith(".json")) args[1] = ports.movedCopy(args[1], topologies.path());
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("HIPS_TEST_TAG", tag);
        for (const QString& e : extraEnv) env.insert(e.section('=', 0, 0), e.section('=', 1));
        process.setProcessEnvironment(env);
        if ((args.value(0) == "run" || args.value(0) == "simulate") && !args.contains("--history")) args << "--history" << history();
        process.start(kHips, args);
    }

    QByteArray historyList() { return historyCommand({"list"}).second; }

    // Runs `hips history <words> --history <this run's file>`: {exit status, stdout + stderr}.
    std::pair<int, QByteArray> historyCommand(QStringList words) {
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(kHips, QStringList{"history"} + words + QStringList{"--history", history()});
        p.waitForFinished(30000);
        return {p.exitCode(), p.readAll()};
    }
    // Runs `hips report 1 --out <dir>/<name> --history <this run's file>`: {exit status, output}.
    std::pair<int, QByteArray> report(const QString& name) {
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(kHips, {"report", "1", "--out", dir.filePath(name), "--history", history()});
        p.waitForFinished(60000);
        return {p.exitCode(), p.readAll()};
    }
    bool waitForOutput(const QByteArray& text, int ms) {
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < ms && process.state() != QProcess::NotRunning) {
            process.waitForReadyRead(200);
            out += process.readAllStandardOutput();
            err += process.readAllStandardError();  // (what says why, should the run end first)
            if (out.contains(text)) return true;
        }
        return false;
    }
    int finish(int ms) {
        if (!process.waitForFinished(ms)) {
            process.kill();
            process.waitForFinished();
            return -1;
        }
        out += process.readAllStandardOutput();
        err += process.readAllStandardError();
        return process.exitCode();
    }
    // Role and agent processes may take a moment to be reaped after the CLI exits (after a
    // controller's SIGKILL: its agent's SIGTERM to each role, a grace of 3 s, SIGKILL; loaded, more).
    QList<qint64> leftovers() {
        QList<qint64> left;
        for (int i = 0; i < 150; ++i) {
            left = taggedProcesses(tag);
            if (left.isEmpty()) break;
            QTest::qWait(100);
        }
        return left;
    }
};

// small.json with party1's worker groups and some training settings replaced (and party2
// dropped when `onePartyOnly`), written into the run's directory.
inline QString writeSmallVariant(Run& run, const QJsonArray& party1Workers, const QJsonObject& training, bool onePartyOnly = false) {
    QFile file(kSmall);
    if (!file.open(QIODevice::ReadOnly)) return {};
    QJsonObject t = QJsonDocument::fromJson(file.readAll()).object();
    QJsonArray parties = t["parties"].toArray();
    QJsonObject party1 = parties[1].toObject(), roles = party1["roles"].toObject();
    roles["workers"] = party1Workers;
    party1["roles"] = roles;
    parties[1] = party1;
    if (onePartyOnly) parties.removeLast();
    t["parties"] = parties;
    QJsonObject settings = t["training"].toObject();
    for (auto it = training.begin(); it != training.end(); ++it) settings[it.key()] = it.value();
    t["training"] = settings;
    QFile out(run.dir.filePath("variant.json"));
    if (!out.open(QIODevice::WriteOnly) || out.write(QJsonDocument(t).toJson()) <= 0) return {};
    return out.fileName();
}

}  // namespace hips::test
