// The codecs on real runs (issue 14): the default topology (cnn, 20 rounds) with each codec across
// parties, its bytes across parties per round in steady state (from the party servers' traffic
// counters: rounds 6 to 20, after the first model each party pulls and the codecs' warm-up) against the run without
// one, and its final accuracy; and ssgd's gradients through a lossy codec.
#include "RunHarness.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cmath>

using namespace hips::test;

namespace {

const QString kDefault = QStringLiteral(HIPS_SOURCE_DIR "/resources/topologies/default.json");

struct Outcome {
    double accuracy = -1;
    double acrossPerRound = 0;  // bytes between the party servers and the global server, both ways
    QByteArray out;
};

// Σ over party servers of their across-party bytes (sent + received), at their round-`from` record
// and at their last; per round in between.
double acrossPerRound(const QString& metricsPath, qint64 from = 6) {
    QFile file(metricsPath);
    if (!file.open(QIODevice::ReadOnly)) return 0;
    QHash<QString, std::pair<qint64, double>> first, last;  // server → (round, bytes)
    for (const QByteArray& line : file.readAll().split('\n')) {
        const QJsonObject r = QJsonDocument::fromJson(line).object();
        const QString node = r.value("node").toString();
        if (r.value("kind").toString() != "traffic" || !node.endsWith("/server0")) continue;
        double bytes = 0;
        for (const QJsonValue& v : r.value("links").toArray())
            if (v.toObject().value("tier").toString() == "across")
                bytes += v.toObject().value("sent").toDouble() + v.toObject().value("received").toDouble();
        const qint64 round = r.value("round").toInteger();
        if (round == from && !first.contains(node)) first.insert(node, {round, bytes});
        last.insert(node, {round, bytes});
    }
    double perRound = 0;
    for (auto it = first.begin(); it != first.end(); ++it) {
        const auto [endRound, endBytes] = last.value(it.key());
        if (endRound > from) perRound += (endBytes - it->second) / double(endRound - from);
    }
    return perRound;
}

Outcome run(const QStringList& extra) {
    Run r;
    const QString dir = r.dir.filePath("run");
    r.start(QStringList{"run", kDefault, "--out", dir} + extra);
    Outcome o;
    if (r.finish(300000) != 0) {
        o.out = r.out + r.err;
        return o;
    }
    o.out = r.out;
    QFile summary(dir + "/summary.json");
    if (summary.open(QIODevice::ReadOnly))
        o.accuracy = QJsonDocument::fromJson(summary.readAll()).object().value("final_test_acc").toDouble(-1);
    o.acrossPerRound = acrossPerRound(dir + "/metrics.jsonl");
    return o;
}

}  // namespace

class CompressionTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void codecsShrinkTheBytesAcrossPartiesAndKeepTheAccuracy() {
        const Outcome none = run({});
        QVERIFY2(none.accuracy > 0.85, none.out.constData());
        QVERIFY(none.acrossPerRound > 0);
        struct Case {
            const char* codec;
            double most;  // of the bytes without a codec
        };
        for (const Case c : {Case{"fp16", 0.51}, Case{"2bit", 1.0 / 15}, Case{"topk", 1.0 / 8}}) {
            const Outcome o = run({"--compression", c.codec});
            QVERIFY2(o.accuracy > 0, o.out.constData());
            const double share = o.acrossPerRound / none.acrossPerRound;
            qInfo("%-5s across parties per round %.0f bytes (%.4f of none's %.0f); final accuracy %.4f (none %.4f)", c.codec,
                  o.acrossPerRound, share, none.acrossPerRound, o.accuracy, none.accuracy);
            QVERIFY2(share <= c.most, qPrintable(QStringLiteral("%1: %2 of none's bytes").arg(c.codec).arg(share)));
            // The issue asks for 0.01; here 2bit ends 0.004 and topk 0.005 below (docs/algorithms.md, "Compression").
            QVERIFY2(std::abs(o.accuracy - none.accuracy) <= 0.01,
                     qPrintable(QStringLiteral("%1: %2 against %3").arg(c.codec).arg(o.accuracy).arg(none.accuracy)));
        }
    }

    // ssgd pushes gradients, which the global server turns into steps: a worker must never add
    // what its pushes could not yet say to the weights it pulls (it did, and the run diverged:
    // loss 1e29 and 0.11 test accuracy after five rounds; 0.74 with the gradients kept apart).
    void ssgdLearnsThroughALossyCodec() {
        const Outcome o = run({"--model", "mlp", "--mode", "ssgd", "--compression", "topk", "--rounds", "5"});
        qInfo("ssgd with topk, mlp, 5 rounds: final accuracy %.4f", o.accuracy);
        QVERIFY2(o.accuracy > 0.6, o.out.constData());
    }
};

QTEST_GUILESS_MAIN(CompressionTest)
#include "tst_compression.moc"
