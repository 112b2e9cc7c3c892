// A controller that dies or stops loses nothing (issue 15): `hips run` killed with SIGKILL leaves
// its run going on its agent, and `hips attach` takes it up — while it still trains, or after it
// ended with nobody listening — printing every round once and storing every record once; a run
// left alone past orphan_timeout_s is stopped by its agent, and attaching then says so; a
// controller stopped (SIGSTOP) past the agents' patience goes on where it was when continued.
#include "RunHarness.h"
#include "RunStore.h"

#include <QRegularExpression>
#include <QtTest>
#include <csignal>

using namespace hips::test;

namespace {

QList<int> printedRounds(const QByteArray& out) {
    QList<int> rounds;
    static const QRegularExpression row("^\\s*(\\d+)\\s+\\S+\\s+[\\d-]", QRegularExpression::MultilineOption);
    for (auto it = row.globalMatch(QString::fromUtf8(out)); it.hasNext();) rounds << it.next().captured(1).toInt();
    return rounds;
}

QList<int> oneToN(int n) {
    QList<int> all;
    for (int i = 1; i <= n; ++i) all << i;
    return all;
}

// Starts `hips attach RUN` on `run`'s history and waits for its end: {exit status, stdout, stderr}.
struct Attach {
    int status = -1;
    QByteArray out, err;
};
Attach attach(Run& run, const QString& which, int ms = 180000) {
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("HIPS_TEST_TAG", run.tag);
    p.setProcessEnvironment(env);
    p.start(kHips, {"attach", which, "--history", run.history()});
    Attach a;
    if (!p.waitForFinished(ms)) p.kill(), p.waitForFinished();
    else a.status = p.exitCode();
    a.out = p.readAllStandardOutput();
    a.err = p.readAllStandardError();
    return a;
}

// Each of rounds 1..n exactly once in the history, for `name` of `source`.
QString roundsOnceInHistory(const QString& history, const QString& name, int n) {
    QString error;
    const auto store = hips::RunStore::open(history, &error, hips::RunStore::ReadOnly);
    if (!store) return error;
    QList<int> rounds;
    for (const hips::MetricRecord& m : store->metrics(1))
        if (m.name == name) rounds << m.round;
    std::sort(rounds.begin(), rounds.end());
    if (!rounds.isEmpty() && rounds.first() == 0) rounds.removeFirst();  // the initial model's evaluation
    return rounds == oneToN(n) ? QString() : QStringLiteral("%1 rows of %2 for %3 rounds").arg(rounds.size()).arg(name).arg(n);
}

int aggregatesIn(const QString& metricsPath) {
    QFile f(metricsPath);
    return f.open(QIODevice::ReadOnly) ? int(f.readAll().count("\"kind\":\"aggregate\"")) : -1;
}

void killAtRound(Run& run, int round) {
    QVERIFY2(run.waitForOutput(QStringLiteral("\n%1 ").arg(round, 5).toUtf8(), 120000), run.out.constData());
    ::kill(pid_t(run.process.processId()), SIGKILL);
    run.finish(30000);
}

}  // namespace

class AttachTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void attachTakesUpARunWhoseControllerWasKilled() {
        Run run;
        const int rounds = 150;
        run.start({"run", kSmall, "--out", run.dir.filePath("run"), "--rounds", QString::number(rounds)});
        killAtRound(run, 5);
        QVERIFY2(!taggedProcesses(run.tag, "hips-agent daemon").isEmpty(), "the agent went with its controller");
        const Attach a = attach(run, "1");
        QVERIFY2(a.status == 0, a.err.constData());
        QVERIFY2(a.out.contains(QStringLiteral("finished after %1 rounds").arg(rounds).toUtf8()), a.out.constData());
        QCOMPARE(printedRounds(a.out), oneToN(rounds));  // the rounds before it attached too, each once
        QCOMPARE(aggregatesIn(run.dir.filePath("run/metrics.jsonl")), rounds);
        const QString once = roundsOnceInHistory(run.history(), "aggregate.round_s", rounds);
        QVERIFY2(once.isEmpty(), qPrintable(once));
        const auto [status, shown] = run.historyCommand({"show", "1"});
        QVERIFY2(shown.contains("status: finished") && shown.contains(QStringLiteral("rounds: %1").arg(rounds).toUtf8()),
                 shown.constData());
        QVERIFY(run.leftovers().isEmpty());
        // A finished run has nothing to take up.
        const Attach again = attach(run, run.dir.filePath("run"));
        QCOMPARE(again.status, 2);
        QVERIFY2(again.err.contains("run 1 is finished"), again.err.constData());
    }

    // The run ends while no controller listens: its agent keeps every event for the next one.
    void attachGetsWhatARunDidAlone() {
        Run run;
        const int rounds = 40;
        run.start({"run", kSmall, "--out", run.dir.filePath("run"), "--rounds", QString::number(rounds)});
        killAtRound(run, 3);
        QElapsedTimer waited;
        waited.start();
        const QByteArray globalServer = "--node central/global_server";  // it ends when the last round is done
        while (!taggedProcesses(run.tag, globalServer).isEmpty() && waited.elapsed() < 120000) QTest::qWait(200);
        QVERIFY2(taggedProcesses(run.tag, globalServer).isEmpty(), "the rounds did not finish alone");
        QVERIFY(!taggedProcesses(run.tag, "hips-agent daemon").isEmpty());
        const Attach a = attach(run, "1");
        QVERIFY2(a.status == 0, a.err.constData());
        QCOMPARE(printedRounds(a.out), oneToN(rounds));
        QCOMPARE(aggregatesIn(run.dir.filePath("run/metrics.jsonl")), rounds);
        const QString once = roundsOnceInHistory(run.history(), "aggregate.round_s", rounds);
        QVERIFY2(once.isEmpty(), qPrintable(once));
        QVERIFY(run.leftovers().isEmpty());
    }

    // Nobody attached within orphan_timeout_s: the agent stopped the run and went; attaching
    // says so, and the history keeps the run as failed with that reason.
    void anOrphanedRunStopsAfterItsTimeout() {
        Run run;
        run.start({"run", kSmall, "--out", run.dir.filePath("run"), "--rounds", "100000", "--orphan-timeout", "6", "--agent-timeout", "3"});
        killAtRound(run, 3);
        QElapsedTimer waited;
        waited.start();
        while (!taggedProcesses(run.tag).isEmpty() && waited.elapsed() < 60000) QTest::qWait(200);
        QVERIFY2(taggedProcesses(run.tag).isEmpty(), "the agent kept the run past orphan_timeout_s");
        QVERIFY2(waited.elapsed() > 4000, "the agent stopped the run before orphan_timeout_s");
        const Attach a = attach(run, "1", 60000);
        QCOMPARE(a.status, 1);
        QVERIFY2(a.err.contains("orphan_timeout_s (6 s)"), a.err.constData());
        const auto [status, shown] = run.historyCommand({"show", "1"});
        QVERIFY2(shown.contains("status: failed") && shown.contains("orphan_timeout_s (6 s)"), shown.constData());
    }

    // A controller stopped past the agents' patience (agent_timeout_s, 3 s here) but within
    // orphan_timeout_s: once continued it gets what it missed and the run ends as it would have.
    void aStoppedControllerGoesOnWhenContinued() {
        Run run;
        const int rounds = 150;
        run.start({"run", kSmall, "--out", run.dir.filePath("run"), "--rounds", QString::number(rounds), "--agent-timeout", "3"});
        QVERIFY2(run.waitForOutput("\n    2 ", 120000), run.out.constData());
        ::kill(pid_t(run.process.processId()), SIGSTOP);
        QTest::qWait(5000);
        ::kill(pid_t(run.process.processId()), SIGCONT);
        QVERIFY2(run.finish(180000) == 0, run.err.constData());
        QVERIFY2(run.out.contains("this controller did not run for"), run.out.constData());
        QCOMPARE(printedRounds(run.out), oneToN(rounds));
        QCOMPARE(aggregatesIn(run.dir.filePath("run/metrics.jsonl")), rounds);
        QVERIFY(run.leftovers().isEmpty());
    }
};

QTEST_GUILESS_MAIN(AttachTest)
#include "tst_attach.moc"
