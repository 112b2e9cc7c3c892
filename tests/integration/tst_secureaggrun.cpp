// Secure aggregation end to end (hips run on loopback, the real processes): the parties' sums go
// up masked and the run ends where the same run in the clear ends; a party server killed after
// the keys were agreed has its masks recovered from the other party's share while the round
// completes (fault_policy continue), and the run goes on with new keys; what secure aggregation
// cannot do is refused before anything starts.
#include "FaultRuns.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <csignal>

using namespace hips::test;

namespace {

QJsonObject summaryOf(const Run& run) {
    QFile f(run.dir.filePath("run/summary.json"));
    return f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll()).object() : QJsonObject();
}

QByteArray logOf(const Run& run, const QString& node) {
    QFile f(run.dir.filePath("run/logs/" + QString(node).replace('/', '-') + ".log"));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// The bytes party servers sent their global server in the run (the traffic records' last word).
double bytesUp(const Run& run, const QString& partyServer) {
    QFile f(run.dir.filePath("run/metrics.jsonl"));
    double up = 0;
    if (!f.open(QIODevice::ReadOnly)) return up;
    for (const QByteArray& line : f.readAll().split('\n')) {
        const QJsonObject r = QJsonDocument::fromJson(line).object();
        if (r["kind"].toString() != "traffic" || r["node"].toString() != partyServer) continue;
        for (const QJsonValue& link : r["links"].toArray())
            if (link["tier"].toString() == "across") up = std::max(up, link["sent"].toDouble());
    }
    return up;
}

// The test loss of the run's last evaluation.
double lastTestLoss(const Run& run) {
    QFile f(run.dir.filePath("run/metrics.jsonl"));
    double loss = -1;
    if (!f.open(QIODevice::ReadOnly)) return loss;
    for (const QByteArray& line : f.readAll().split('\n')) {
        const QJsonObject r = QJsonDocument::fromJson(line).object();
        if (r["kind"].toString() == "eval" && r.contains("test_loss")) loss = r["test_loss"].toDouble();
    }
    return loss;
}

}  // namespace

class SecureAggregationRunTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // The same run with and without secure aggregation ends at the same test accuracy (to 1e-3):
    // the masks cancel exactly, and the fixed point's step is far below a float's.
    void aSecureRunEndsWhereTheRunInTheClearEnds() {
        Run clear, secure;
        clear.start({"run", writeSmallVariant(clear, QJsonArray{QJsonObject{{"count", 2}}}, {}), "--out", clear.dir.filePath("run")});
        QVERIFY2(clear.finish(180000) == 0, clear.err.constData());
        secure.start({"run", writeSmallVariant(secure, QJsonArray{QJsonObject{{"count", 2}}}, {{"secure_aggregation", true}}), "--out",
                      secure.dir.filePath("run")});
        QVERIFY2(secure.finish(180000) == 0, secure.err.constData());
        const double a = finalAccuracy(clear.out), b = finalAccuracy(secure.out);
        const double lossA = lastTestLoss(clear), lossB = lastTestLoss(secure);
        qInfo("final test accuracy: in the clear %.4f, secure aggregation %.4f; test loss %.6f and %.6f", a, b, lossA, lossB);
        QVERIFY(a > 0.3);
        QVERIFY(std::abs(a - b) <= 1e-3);
        QVERIFY(lossA > 0 && std::abs(lossA - lossB) <= 1e-3 * lossA);
        const QJsonObject guarantee = summaryOf(secure)["privacy"].toObject();
        QVERIFY2(guarantee["secure_aggregation"].toBool(), qPrintable(QJsonDocument(guarantee).toJson()));
        QCOMPARE(guarantee["secure_aggregation_threshold"].toInt(), 1);
        QVERIFY(!guarantee.contains("epsilon"));
        QVERIFY(!summaryOf(clear).contains("privacy"));
        QVERIFY2(secure.out.contains("privacy: no differential privacy; secure aggregation on (threshold 1"), secure.out.constData());
        const auto [status, show] = secure.historyCommand({"show", "1"});
        QVERIFY2(status == 0 && show.contains("secure aggregation on"), show.constData());
        // What went up was masked: 64-bit words, twice the floats' bytes (and nothing refused).
        const double plainUp = bytesUp(clear, "party1/server0"), maskedUp = bytesUp(secure, "party1/server0");
        QVERIFY2(maskedUp > 1.8 * plainUp && maskedUp < 2.2 * plainUp, qPrintable(QString("%1 %2").arg(plainUp).arg(maskedUp)));
        QVERIFY2(!logOf(secure, "central/global_server0").contains("rejected"), logOf(secure, "central/global_server0").constData());
        QVERIFY(secure.leftovers().isEmpty());
    }

    // party2's server killed mid-run (fault_policy continue): the round it left completes with
    // party1's sum, its masks taken out with the key party1's share recovers; its agent restarts
    // it, new keys are agreed with it, and the run ends every round.
    void aKilledPartyServersMasksAreRecoveredAndTheRunGoesOn() {
        Run run;
        const QString topology =
            writeSmallVariant(run, QJsonArray{QJsonObject{{"count", 2}}},
                              {{"secure_aggregation", true}, {"fault_policy", "continue"}, {"heartbeat_timeout_s", 3}, {"rounds", 12}});
        run.start({"run", topology, "--out", run.dir.filePath("run")});
        QVERIFY2(signalAtRound(run, 4, "party2/server0", SIGKILL), run.out.constData());
        QVERIFY2(run.finish(300000) == 0, run.out + run.err);
        QVERIFY2(run.out.contains("party2/server0 (pid") && run.out.contains("restart 1 of 3"), run.out.constData());
        QCOMPARE(printedRounds(run.out).size(), 12);
        const QByteArray global = logOf(run, "central/global_server0");
        QVERIFY2(global.contains("secure aggregation: recovered the masks of party2/server0"), global.constData());
        QVERIFY2(global.contains("new keys (epoch 2) agreed by party1/server0, party2/server0"), global.constData());
        // Its hello and its heartbeat's return both ask for new keys: agreed once, nothing refused.
        QVERIFY2(!global.contains("(epoch 3)") && !global.contains("rejected"), global.constData());
        QVERIFY2(finalAccuracy(run.out) > 0.3, run.out.constData());
        QVERIFY(run.leftovers().isEmpty());
    }

    // Refused before anything starts, each naming the setting in the way.
    void whatSecureAggregationCannotDoIsRefused_data() {
        QTest::addColumn<QJsonObject>("training");
        QTest::addColumn<bool>("onePartyOnly");
        QTest::addColumn<QByteArray>("message");
        QTest::newRow("median") << QJsonObject{{"secure_aggregation", true}, {"aggregation", "median"}} << false
                                << QByteArray("aggregation median needs each party's own update");
        QTest::newRow("compression") << QJsonObject{{"secure_aggregation", true}, {"compression", "fp16"}} << false
                                     << QByteArray("masked sums look random and do not compress");
        QTest::newRow("one party") << QJsonObject{{"secure_aggregation", true}} << true << QByteArray("at least 2 parties");
        QTest::newRow("threshold") << QJsonObject{{"secure_aggregation", true}, {"secure_aggregation_threshold", 2}} << false
                                   << QByteArray("threshold is at most 1, not 2");
        QTest::newRow("asgd") << QJsonObject{{"secure_aggregation", true}, {"mode", "asgd"}} << false << QByteArray("use fedavg or ssgd");
    }
    void whatSecureAggregationCannotDoIsRefused() {
        QFETCH(QJsonObject, training);
        QFETCH(bool, onePartyOnly);
        QFETCH(QByteArray, message);
        Run run;
        run.start({"run", writeSmallVariant(run, QJsonArray{QJsonObject{{"count", 2}}}, training, onePartyOnly)});
        QCOMPARE(run.finish(60000), 2);
        QVERIFY2(run.err.contains(message), run.err.constData());
    }
};

QTEST_MAIN(SecureAggregationRunTest)
#include "tst_secureaggrun.moc"
