// Differentially private runs end to end (hips run on loopback): noise at the party servers or at
// the workers, the guarantee in every place it is stated (the rounds' epsilon column, summary.json,
// hips history show, the report), a run cut at its privacy budget, and "auto" noise.
#include "PrivacyAccountant.h"
#include "RunHarness.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <signal.h>
#include <QJsonObject>
#include <QRegularExpression>
#include <QtTest>

using namespace hips::test;

namespace {

QJsonObject summaryOf(const Run& run) {
    QFile f(run.dir.filePath("run/summary.json"));
    return f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll()).object() : QJsonObject();
}

QJsonObject privacy(const QString& where, const QJsonValue& noise, const QJsonValue& target = {}) {
    QJsonObject p{{"where", where}, {"clip_norm", 1.0}, {"noise_multiplier", noise}, {"delta", 1e-5}};
    if (!target.isUndefined() && !target.isNull()) p["target_epsilon"] = target;
    return {{"privacy", p}};
}

}  // namespace

class PrivacyRunTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void noiseAtEitherTierTrainsAndStatesItsGuarantee_data() {
        QTest::addColumn<QString>("where");
        QTest::newRow("party") << "party";
        QTest::newRow("worker") << "worker";
    }
    void noiseAtEitherTierTrainsAndStatesItsGuarantee() {
        QFETCH(QString, where);
        Run run;
        const QString topology = writeSmallVariant(run, QJsonArray{QJsonObject{{"count", 2}}}, privacy(where, 0.01));
        run.start({"run", topology, "--out", run.dir.filePath("run")});
        QVERIFY2(run.finish(180000) == 0, run.err.constData());
        QVERIFY2(run.out.contains("   epsilon"), run.out.constData());  // the rounds' column
        for (int round = 1; round <= 6; ++round) {
            const double epsilon = hips::privacy::epsilon(1, 0.01, round, 1e-5);
            QVERIFY2(
                QRegularExpression(QString("\\n\\s+%1\\s.*\\s%2\\n").arg(round).arg(epsilon, 0, 'f', 3)).match(QString(run.out)).hasMatch(),
                run.out.constData());
        }
        const QJsonObject guarantee = summaryOf(run)["privacy"].toObject();
        QCOMPARE(guarantee["where"].toString(), where);
        QVERIFY(std::abs(guarantee["epsilon"].toDouble() - hips::privacy::epsilon(1, 0.01, 6, 1e-5)) < 1e-9);
        QCOMPARE(guarantee["secure_aggregation"].toBool(true), false);
        const QRegularExpressionMatch acc = QRegularExpression("final test accuracy (\\d\\.\\d{4})").match(QString(run.out));
        QVERIFY2(acc.hasMatch() && acc.captured(1).toDouble() > 0.5, run.out.constData());  // so little noise: it learns
        const auto [status, show] = run.historyCommand({"show", "1"});
        QVERIFY2(status == 0 && show.contains("privacy: (epsilon") && show.contains(where == "party" ? "party server" : "by the worker"),
                 show.constData());
        QCOMPARE(run.report("r.html").first, 0);
        QFile html(run.dir.filePath("r.html"));
        QVERIFY(html.open(QIODevice::ReadOnly));
        QVERIFY(html.readAll().contains("-DP for each worker"));
        QVERIFY(run.leftovers().isEmpty());
    }

    // target_epsilon 4 with noise 2: two rounds fit (epsilon 3.54), a third would not (4.3x).
    void aRunStopsAtItsPrivacyBudget() {
        Run run;
        const QString topology = writeSmallVariant(run, QJsonArray{QJsonObject{{"count", 2}}}, privacy("party", 2.0, 4.0));
        run.start({"run", topology, "--out", run.dir.filePath("run")});
        QCOMPARE(run.finish(180000), 0);
        const qint64 within = hips::privacy::usesWithin(1, 2.0, 1e-5, 4.0);
        QVERIFY(within >= 1 && within < 6);
        QVERIFY2(run.out.contains(QString("finished after %1 round").arg(within).toUtf8()), run.out.constData());
        QVERIFY2(run.out.contains("privacy budget reached"), run.out.constData());
        const QJsonObject guarantee = summaryOf(run)["privacy"].toObject();
        QVERIFY(guarantee["budget_reached"].toBool());
        QVERIFY(guarantee["epsilon"].toDouble() <= 4.0);
    }

    // A resume trains again the rounds after its checkpoint that had been trained: their noised
    // updates had left, so each worker's data is used in them twice. The run directory notes them
    // (privacy.rerun_rounds) and the guarantee counts them: 10 rounds + those, not 10.
    void aResumeCountsTheRoundsItTrainsAgain() {
        Run run;
        QJsonObject training = privacy("party", 0.5);
        training["rounds"] = 10;
        training["checkpoint_every"] = 2;
        const QString runDir = run.dir.filePath("run");
        run.start(
            {"run", writeSmallVariant(run, QJsonArray{QJsonObject{{"count", 2}}}, training), "--out", runDir, "--orphan-timeout", "0"});
        QVERIFY2(run.waitForOutput("\n    5 ", 120000), run.out.constData());
        ::kill(pid_t(run.process.processId()), SIGKILL);
        run.finish(30000);
        QVERIFY(run.leftovers().isEmpty());  // (its roles stop within a grace: until then one may checkpoint)
        QFile meta(runDir + "/checkpoint/checkpoint.json");
        QVERIFY(meta.open(QIODevice::ReadOnly));
        const int checkpoint = QJsonDocument::fromJson(meta.readAll()).object().value("round").toInt();
        QVERIFY2(checkpoint >= 2 && checkpoint < 10, QByteArray::number(checkpoint).constData());
        run.out.clear();
        run.start({"run", "--resume", runDir});
        QVERIFY2(run.finish(180000) == 0, run.err.constData());
        QFile topology(runDir + "/topology.json");
        QVERIFY(topology.open(QIODevice::ReadOnly));
        const QJsonArray rerun =
            QJsonDocument::fromJson(topology.readAll()).object()["training"].toObject()["privacy"].toObject()["rerun_rounds"].toArray();
        QCOMPARE(rerun.size(), 1);
        const int first = rerun[0].toArray()[0].toInt(), last = rerun[0].toArray()[1].toInt();
        QVERIFY2(first == checkpoint + 1 && last >= std::max(5, first), qPrintable(QString("%1 %2").arg(first).arg(last)));
        const int uses = 10 + last - first + 1;
        const QJsonObject guarantee = summaryOf(run)["privacy"].toObject();
        QCOMPARE(guarantee["most_draws"].toInt(), uses);
        QVERIFY(std::abs(guarantee["epsilon"].toDouble() - hips::privacy::epsilon(1, 0.5, uses, 1e-5)) < 1e-9);
        const QString lastRow = QString("\\n\\s+10\\s.*\\s%1\\n").arg(hips::privacy::epsilon(1, 0.5, uses, 1e-5), 0, 'f', 3);
        QVERIFY2(QRegularExpression(lastRow).match(QString(run.out)).hasMatch(), run.out.constData());  // the CLI's column
    }

    // A worker that adds the noise and is restarted mid-round (fault_policy continue) trains the
    // open round again and sends it with fresh noise: its party server has both copies. The round
    // counts once more (privacy.rerun_rounds), in summary.json and in the run's topology.json.
    // Its target_epsilon allowed the 60 rounds, not 61: the user is told by when to stop the run.
    void aRestartedWorkerCountsItsRoundAgain() {
        Run run;
        const double e60 = hips::privacy::epsilon(1, 0.5, 60, 1e-5), e61 = hips::privacy::epsilon(1, 0.5, 61, 1e-5);
        QJsonObject training = privacy("worker", 0.5, (e60 + e61) / 2);
        training["rounds"] = 60;
        training["fault_policy"] = "continue";
        run.start({"run", writeSmallVariant(run, QJsonArray{QJsonObject{{"count", 2}}}, training), "--out", run.dir.filePath("run")});
        QVERIFY2(run.waitForOutput("\n    3 ", 120000), run.out.constData());
        const QList<qint64> pids = taggedProcesses(run.tag, "--node party1/worker0");
        QCOMPARE(pids.size(), 1);
        ::kill(pid_t(pids.first()), SIGKILL);
        QVERIFY2(run.finish(300000) == 0, run.err.constData());
        QVERIFY2(run.out.contains("party1/worker0") && run.out.contains("restart 1 of"), run.out.constData());
        QFile topology(run.dir.filePath("run/topology.json"));
        QVERIFY(topology.open(QIODevice::ReadOnly));
        const QJsonArray rerun =
            QJsonDocument::fromJson(topology.readAll()).object()["training"].toObject()["privacy"].toObject()["rerun_rounds"].toArray();
        QVERIFY2(rerun.size() == 1, QJsonDocument(rerun).toJson().constData());
        const int round = rerun[0].toArray()[0].toInt();
        QVERIFY2(round >= 4 && rerun[0].toArray()[1].toInt() == round, QJsonDocument(rerun).toJson().constData());
        QCOMPARE(summaryOf(run)["privacy"].toObject()["most_draws"].toInt(), 61);
        QVERIFY2(run.out.contains(QString("above target_epsilon %1; stop the run once round 58 is done").arg((e60 + e61) / 2).toUtf8()),
                 run.out.constData());
        // The rounds' epsilon column counts it too (it showed the 60 rounds' epsilon, less than the summary's).
        const QString lastRow = QString("\\n\\s+60\\s.*\\s%1\\n").arg(e61, 0, 'f', 3);
        QVERIFY2(QRegularExpression(lastRow).match(QString(run.out)).hasMatch(), run.out.constData());
    }

    // ... and when its controller dies after the restart, before the run's end: the round is kept
    // in privacy-reruns.json as it is counted, and the resume counts it (until 2026-12-02 only
    // topology.json took it, as the run ended: the resumed run's guarantee left it out).
    void aRestartsRoundCountsAfterItsControllerDied() {
        Run run;
        QJsonObject training = privacy("worker", 0.5);
        training["rounds"] = 60;
        training["fault_policy"] = "continue";
        training["checkpoint_every"] = 2;
        const QString runDir = run.dir.filePath("run"), kept = runDir + "/privacy-reruns.json";
        run.start(
            {"run", writeSmallVariant(run, QJsonArray{QJsonObject{{"count", 2}}}, training), "--out", runDir, "--orphan-timeout", "0"});
        QVERIFY2(run.waitForOutput("\n    3 ", 120000), run.out.constData());
        const QList<qint64> pids = taggedProcesses(run.tag, "--node party1/worker0");
        QCOMPARE(pids.size(), 1);
        ::kill(pid_t(pids.first()), SIGKILL);
        QVERIFY2(run.waitForOutput("restart 1 of", 60000), run.out.constData());
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(kept), 30000);
        ::kill(pid_t(run.process.processId()), SIGKILL);
        run.finish(30000);
        QVERIFY(run.leftovers().isEmpty());
        QFile keptFile(kept);
        QVERIFY(keptFile.open(QIODevice::ReadOnly));
        const QJsonArray restarted = QJsonDocument::fromJson(keptFile.readAll()).array();
        QVERIFY2(restarted.size() == 1 && restarted[0].toArray()[0] == restarted[0].toArray()[1], QJsonDocument(restarted).toJson());
        run.out.clear();
        run.start({"run", "--resume", runDir});
        QVERIFY2(run.finish(300000) == 0, run.err.constData());
        QVERIFY(!QFile::exists(kept));  // (topology.json holds it now)
        QFile topology(runDir + "/topology.json");
        QVERIFY(topology.open(QIODevice::ReadOnly));
        const QJsonArray rerun =
            QJsonDocument::fromJson(topology.readAll()).object()["training"].toObject()["privacy"].toObject()["rerun_rounds"].toArray();
        QVERIFY2(rerun.contains(restarted[0]), QJsonDocument(rerun).toJson().constData());
        int uses = 60;
        for (const QJsonValue& r : rerun) uses += r.toArray()[1].toInt() - r.toArray()[0].toInt() + 1;
        QCOMPARE(summaryOf(run)["privacy"].toObject()["most_draws"].toInt(), uses);
    }

    // "auto": the noise multiplier that spends target_epsilon over the run's rounds, no less.
    void autoNoiseSpendsTheTargetOverTheRounds() {
        Run run;
        const QString topology = writeSmallVariant(run, QJsonArray{QJsonObject{{"count", 2}}}, privacy("worker", "auto", 8.0));
        run.start({"run", topology, "--out", run.dir.filePath("run")});
        QCOMPARE(run.finish(180000), 0);
        const QJsonObject guarantee = summaryOf(run)["privacy"].toObject();
        QVERIFY2(guarantee["epsilon"].toDouble() <= 8.0 && guarantee["epsilon"].toDouble() > 7.9, run.out.constData());
        QVERIFY(guarantee["noise_multiplier"].toDouble() > 0);
        QVERIFY2(run.out.contains("! privacy: noise multiplier"), run.out.constData());
    }

    // Refused before anything starts, each saying why: a mode that pushes otherwise, a party rule
    // that chooses among the updates, a target one round already exceeds.
    void whatPrivacyCannotDoIsRefused() {
        Run run;
        QJsonObject training = privacy("party", 1.0);
        training["mode"] = "asgd";
        run.start({"run", writeSmallVariant(run, QJsonArray{QJsonObject{{"count", 2}}}, training)});
        QCOMPARE(run.finish(60000), 2);
        QVERIFY2(run.err.contains("use mode fedavg"), run.err.constData());
        Run median;
        training = privacy("party", 1.0);
        training["party_aggregation"] = "median";
        median.start({"run", writeSmallVariant(median, QJsonArray{QJsonObject{{"count", 3}}}, training)});
        QCOMPARE(median.finish(60000), 2);
        QVERIFY2(median.err.contains("party_aggregation median would choose among them"), median.err.constData());
        Run greedy;
        greedy.start({"run", writeSmallVariant(greedy, QJsonArray{QJsonObject{{"count", 2}}}, privacy("party", 0.05, 1.0))});
        QCOMPARE(greedy.finish(60000), 2);
        QVERIFY2(greedy.err.contains("one round of noise multiplier 0.05"), greedy.err.constData());
    }
};

QTEST_MAIN(PrivacyRunTest)
#include "tst_privacyrun.moc"
