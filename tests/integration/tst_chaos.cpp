// The chaos test (issue 15; label `chaos`): the default topology under fault_policy continue, and
// one process of each kind killed with SIGKILL at a random round each — a worker, a party
// server, a party scheduler, the global scheduler, the global server, the master and the agent
// (which takes every role with it). Every round completes, each once; the final accuracy is within 0.02 of an undisturbed
// run; each death and its restart are in the history with the reason; and the history holds
// exactly the rows the CLI printed. The seed is printed; HIPS_CHAOS_SEED replays one.
#include "FaultRuns.h"

#include "RunStore.h"

#include <QRandomGenerator>
#include <algorithm>
#include <cmath>
#include <random>

using namespace hips::test;

namespace {

const QList<QByteArray> kVictims = {
    "party1/worker0",        "party2/server0", "party1/scheduler", "central/global_scheduler", "central/global_server0",
    "central/master_worker", "agent"};

// How many of the CLI's rows show a test accuracy (not "-").
int printedAccuracies(const QByteArray& out) {
    static const QRegularExpression row("^\\s*\\d+\\s+\\d\\.\\d{4}\\s", QRegularExpression::MultilineOption);
    int n = 0;
    for (auto it = row.globalMatch(QString::fromUtf8(out)); it.hasNext(); it.next()) ++n;
    return n;
}

// The history's fault events about `about`, the lines a failure shows (QTest cuts long messages).
QByteArray faultLines(const QByteArray& show, const QByteArray& about) {
    QByteArrayList faults;
    for (const QByteArray& line : show.split('\n'))
        if (line.startsWith("fault: " + about)) faults << line.left(160);
    return faults.join('\n');
}

}  // namespace

class ChaosTest : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

private Q_SLOTS:
    void everyKindKilledOnceAndTheRunCompletes() {
        const QString topology = writeTopology(m_dir, "continue");
        Run calm;
        calm.start({"run", topology, "--out", calm.dir.filePath("run")});
        QCOMPARE(calm.finish(300000), 0);
        const double undisturbed = finalAccuracy(calm.out);

        const quint32 seed =
            qEnvironmentVariableIsSet("HIPS_CHAOS_SEED") ? qgetenv("HIPS_CHAOS_SEED").toUInt() : QRandomGenerator::system()->generate();
        QRandomGenerator random(seed);
        QList<int> rounds;  // a distinct round in 3..17 for each victim, in the order killed
        while (rounds.size() < kVictims.size())
            if (const int r = random.bounded(3, 18); !rounds.contains(r)) rounds << r;
        QList<QByteArray> victims = kVictims;
        std::shuffle(victims.begin(), victims.end(), std::mt19937(seed));
        QList<std::pair<int, QByteArray>> plan;
        for (int i = 0; i < victims.size(); ++i) plan.append({rounds[i], victims[i]});
        std::sort(plan.begin(), plan.end());
        QStringList said;
        for (const auto& [round, node] : plan) said << QStringLiteral("%1 at round %2").arg(QString::fromUtf8(node)).arg(round);
        qInfo("seed %u: %s", seed, qPrintable(said.join(", ")));

        Run run;
        if (qEnvironmentVariableIsSet("HIPS_CHAOS_KEEP")) {  // (to look into after a failure)
            run.dir.setAutoRemove(false);
            qInfo("run directory %s", qPrintable(run.dir.path()));
        }
        run.start({"run", topology, "--out", run.dir.filePath("run")});
        for (const auto& [round, node] : plan) {
            const qint64 pid = signalAtRound(run, round, node, SIGKILL, run.dir.filePath("run"));
            QVERIFY2(pid, run.out.right(1500).constData());
            // Told before the next kill (an agent killed first would take the news with it).
            const QByteArray told = node == "agent" ? QByteArray("! the local agent was killed")
                                                    : "! " + node + " (pid " + QByteArray::number(pid) + ") was killed";
            QVERIFY2(run.waitForOutput(told, 60000), run.out.right(1500).constData());
        }
        QVERIFY2(run.finish(300000) == 0, run.out + run.err);

        const QList<int> printed = printedRounds(run.out);
        QCOMPARE(printed.size(), 20);
        for (int i = 0; i < printed.size(); ++i) QCOMPARE(printed[i], i + 1);
        const double accuracy = finalAccuracy(run.out);
        qInfo("final accuracy %.4f, undisturbed %.4f", accuracy, undisturbed);
        QVERIFY(std::abs(accuracy - undisturbed) <= 0.02);

        // Each death and its restart, with the reason (and the last thing it said), in the history.
        const auto [status, show] = run.historyCommand({"show", "1"});
        QCOMPARE(status, 0);
        QVERIFY2(show.contains("fault: agent: the local agent was killed by signal 9 (Killed) and took its roles with it; restart 1 of 3"),
                 faultLines(show, "agent").constData());
        for (const QByteArray& node : kVictims)
            if (node != "agent")
                QVERIFY2(show.contains("fault: " + node + ": " + node + " (pid") &&
                             QRegularExpression(QRegularExpression::escape(QString::fromUtf8(node)) +
                                                " \\(pid \\d+\\) was killed by signal 9 \\(Killed\\)[^\\n]*; restart 1 of 3")
                                 .match(QString::fromUtf8(show))
                                 .hasMatch(),
                         (node + " is not there as killed and restarted:\n" + faultLines(show, node)).constData());
        // The history holds what the CLI printed: each round's aggregate once, and as many
        // accuracies as the table showed.
        QString error;
        const auto store = hips::RunStore::open(run.history(), &error, hips::RunStore::ReadOnly);
        QVERIFY2(store, qPrintable(error));
        QList<int> aggregated;
        int accuracies = 0;
        for (const hips::MetricRecord& m : store->metrics(1)) {
            if (m.name == "aggregate.round_s") aggregated << m.round;
            if (m.name == "eval.test_acc" && m.round > 0) ++accuracies;
        }
        std::sort(aggregated.begin(), aggregated.end());
        QCOMPARE(aggregated, printed);
        QCOMPARE(accuracies, printedAccuracies(run.out));
        QVERIFY(run.leftovers().isEmpty());
    }
};

QTEST_GUILESS_MAIN(ChaosTest)
#include "tst_chaos.moc"
