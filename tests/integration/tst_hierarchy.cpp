// The flat baseline (training.hierarchy flat, `hips run --flat`) against the two-layer run, with
// the real processes on loopback: the same workers, model and data, the same accuracy, no party
// servers started, and the traffic across parties as HiPS's hierarchy saves it (2 workers per
// party: twice as many bytes cross in the flat run).
#include "RunHarness.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <cmath>

using namespace hips::test;

namespace {

const QString kDefault = QStringLiteral(HIPS_SOURCE_DIR "/resources/topologies/default.json");

struct Outcome {
    double accuracy = -1, across = 0, inside = 0;
    QByteArray out;
};

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
    }
};

QTEST_GUILESS_MAIN(HierarchyTest)
#include "tst_hierarchy.moc"
