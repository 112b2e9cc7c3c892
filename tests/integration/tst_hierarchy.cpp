// The flat baseline (training.hierarchy flat, `hips run --flat`) against the two-layer run, with
// the real processes on loopback: the same workers, model and data, the same accuracy, no party
// servers started, and the traffic across parties as HiPS's hierarchy saves it (2 workers per
// party: twice as many bytes cross in the flat run). Key slicing (`--servers 2`): the same model,
// bit for bit, from two global servers and two servers per party, each carrying half the bytes.
#include "RunHarness.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cmath>

using namespace hips::test;

namespace {

const QString kDefault = QStringLiteral(HIPS_SOURCE_DIR "/resources/topologies/default.json");

struct Outcome {
    double accuracy = -1, across = 0, inside = 0;
    QByteArray out, params;
    QHash<QString, double> serverBytes;  // each server's bytes sent and received, from its last traffic record
};

QHash<QString, double> serverBytes(const QString& metricsPath) {
    QHash<QString, double> bytes;
    QFile file(metricsPath);
    if (!file.open(QIODevice::ReadOnly)) return bytes;
    for (const QByteArray& line : file.readAll().split('\n')) {
        const QJsonObject r = QJsonDocument::fromJson(line).object();
        if (r.value("kind").toString() != "traffic" || !r.value("node").toString().contains("server")) continue;
        double sum = 0;
        for (const QJsonValue& v : r.value("links").toArray())
            sum += v.toObject().value("sent").toDouble() + v.toObject().value("received").toDouble();
        bytes.insert(r.value("node").toString(), sum);
    }
    return bytes;
}

Outcome runDefault(const QStringList& extra) {
    Run run;
    const QString dir = run.dir.filePath("run");
    run.start(QStringList{"run", kDefault, "--model", "mlp", "--rounds", "4", "--out", dir} + extra);
    Outcome o;
    if (!run.process.waitForFinished(240000) || run.process.exitCode() != 0) {
        o.out = run.process.readAll();
        return o;
    }
    o.out = run.process.readAllStandardOutput();
    QFile summary(dir + "/summary.json");
    if (!summary.open(QIODevice::ReadOnly)) return o;
    const QJsonObject s = QJsonDocument::fromJson(summary.readAll()).object();
    o.accuracy = s.value("final_test_acc").toDouble(-1);
    o.across = s.value("bytes_across").toDouble();
    o.inside = s.value("bytes_inside").toDouble();
    QFile params(dir + "/net.params");
    if (params.open(QIODevice::ReadOnly)) o.params = params.readAll();
    o.serverBytes = serverBytes(dir + "/metrics.jsonl");
    return o;
}

}  // namespace

class HierarchyTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void flatRunIsTheBaselineOfTheTwoLayerSaving() {
        const Outcome two = runDefault({}), flat = runDefault({"--flat"});
        QVERIFY2(two.accuracy > 0.7, two.out.constData());
        QVERIFY2(flat.accuracy > 0.7, flat.out.constData());
        QVERIFY(std::abs(flat.accuracy - two.accuracy) <= 0.01);  // the same training, summed in another order
        QVERIFY2(flat.out.contains("7 processes"), flat.out.constData());  // no party scheduler or server
        QVERIFY2(two.out.contains("11 processes"), two.out.constData());
        const double saving = flat.across / two.across;  // each party's 2 workers cross instead of its 1 server
        qInfo("across parties: two-layer %.1f MB, flat %.1f MB (%.2fx)", two.across / 1e6, flat.across / 1e6, saving);
        QVERIFY2(saving > 1.8 && saving < 2.2, qPrintable(QString::number(saving)));
        QVERIFY(two.inside > 2 * flat.inside);  // inside parties: the workers' pushes to their servers
        m_oneServer = two;
        m_flat = flat;
    }

    // Each coordinate is summed from the same contributions in the same order on whichever server
    // holds it, so the model is the same to the bit; each server moves half of its tier's bytes.
    void keySlicingGivesTheSameModel() {
        if (m_oneServer.accuracy < 0) m_oneServer = runDefault({});
        const Outcome sliced = runDefault({"--servers", "2"});
        QVERIFY2(sliced.accuracy > 0.7, sliced.out.constData());
        QVERIFY2(sliced.out.contains("14 processes"), sliced.out.constData());  // 2 global servers, 2 per party
        QCOMPARE(sliced.accuracy, m_oneServer.accuracy);
        QVERIFY(!sliced.params.isEmpty());
        QVERIFY(sliced.params == m_oneServer.params);
        // the same floats in all, cut in two: only the extra messages' headers more
        QVERIFY2(std::abs(sliced.across / m_oneServer.across - 1) < 0.01, qPrintable(QString::number(sliced.across)));
        for (const char* pair : {"central/global_server", "party1/server", "party2/server"}) {
            const double a = sliced.serverBytes.value(QString(pair) + "0"), b = sliced.serverBytes.value(QString(pair) + "1");
            const double whole = m_oneServer.serverBytes.value(QString(pair) + "0");
            qInfo("%s0 %.0f bytes, %s1 %.0f, one server %.0f", pair, a, pair, b, whole);
            QVERIFY(a > 0 && b > 0 && whole > 0);
            for (const double half : {a, b}) QVERIFY2(std::abs(half / (whole / 2) - 1) <= 0.1, pair);
        }
    }

    // Flat over an emulated WAN with two global servers: each worker's two channels share its
    // party's link, and each sends its own shard (one channel sent both, to one global server:
    // refused, and the run hung). The same model as one global server's, bit for bit.
    void aWorkersShardsCrossTheirWanEachToItsServer() {
        if (m_flat.accuracy < 0) m_flat = runDefault({"--flat"});
        const Outcome overWan = runDefault({"--flat", "--servers", "2", "--wan", "1000,1"});
        QVERIFY2(!overWan.params.isEmpty(), overWan.out.constData());
        QVERIFY(overWan.params == m_flat.params);
    }

    // mixed_sync with central workers: theirs is the global tier, where each push is applied as it
    // comes; going by its versions (every party's pushes count) they left after a push or two, and
    // the global server waited for their pushes for ever.
    void mixedSyncWithCentralWorkersEnds() {
        Run run;
        const QString path = writeSmallVariant(run, QJsonArray{QJsonObject{{"count", 2}}},
                                               QJsonObject{{"mode", "mixed_sync"}, {"train_central_workers", true}});
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QJsonObject t = QJsonDocument::fromJson(file.readAll()).object();
        file.close();
        QJsonArray parties = t["parties"].toArray();
        QJsonObject central = parties[0].toObject(), roles = central["roles"].toObject();
        roles["workers"] = QJsonArray{QJsonObject{{"count", 2}}};
        central["roles"] = roles;
        parties[0] = central;
        t["parties"] = parties;
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(QJsonDocument(t).toJson()) > 0);
        file.close();
        run.start({"run", path, "--out", run.dir.filePath("run")});
        QVERIFY2(run.finish(120000) == 0, (run.out + run.err).right(4000).constData());
        QVERIFY2(run.out.contains("finished after 6 rounds"), run.out.constData());
        int centralPushes = 0;
        for (const QJsonObject& r : metricRecords(run.dir.filePath("run/metrics.jsonl")))
            if (r["kind"] == "async_push" && r["origin"].toString().startsWith("central/worker")) ++centralPushes;
        QCOMPARE(centralPushes, 2 * 6);  // each central worker's six rounds
        QVERIFY(run.leftovers().isEmpty());
    }

private:
    Outcome m_oneServer, m_flat;
};

QTEST_GUILESS_MAIN(HierarchyTest)
#include "tst_hierarchy.moc"
