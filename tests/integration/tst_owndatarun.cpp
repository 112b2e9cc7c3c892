// A run on the parties' own data with the user's own model, end to end through `hips run`: party1
// reads a NumPy folder, party2 a CSV table, the master a test set of its own; the model is a
// TorchScript file; the run's model.pt, loaded back, gives the accuracy the run reported.
#include "OwnDataFiles.h"
#include "RunHarness.h"

#include <QRegularExpression>

using namespace hips;
using namespace hips::test;

namespace {

constexpr int kSide = 12, kClasses = 3;

bool writeCsv(const QString& path, const Samples& s) {
    QByteArray text = "label";
    for (int i = 0; i < kSide * kSide; ++i) text += ",p" + QByteArray::number(i);
    text += '\n';
    for (size_t r = 0; r < s.y.size(); ++r) {
        text += QByteArray::number(qint64(s.y[r]));
        for (int i = 0; i < kSide * kSide; ++i) text += ',' + QByteArray::number(s.x[r * kSide * kSide + i], 'g', 9);
        text += '\n';
    }
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(text) == text.size();
}

// small.json with each party's own data, the master's test set and the scripted model.
QString writeTopology(Run& run, const QJsonObject& party1Data, const QJsonArray& party2Classes = {}) {
    QFile file(kSmall);
    if (!file.open(QIODevice::ReadOnly)) return {};
    QJsonObject t = QJsonDocument::fromJson(file.readAll()).object();
    QJsonArray parties = t["parties"].toArray();
    QJsonObject p1 = parties[1].toObject(), p2 = parties[2].toObject();
    p1["data"] = party1Data;
    p2["data"] = QJsonObject{{"format", "csv"}, {"path", run.dir.filePath("p2.csv")}, {"holdout", 0.25}};
    if (!party2Classes.isEmpty()) p2["data"] = QJsonObject{{"format", "csv"}, {"path", run.dir.filePath("p2.csv")}, {"classes", party2Classes}};
    parties[1] = p1;
    parties[2] = p2;
    t["parties"] = parties;
    QJsonObject training = t["training"].toObject();
    training["model"] = QJsonObject{{"torchscript", run.dir.filePath("net.pt")}};
    training["input_shape"] = QJsonArray{1, kSide, kSide};
    training["classes"] = kClasses;
    training["evaluation_data"] = QJsonObject{{"format", "npy"}, {"path", run.dir.filePath("test")}};
    training["learning_rate"] = 0.1;
    t["training"] = training;
    QFile out(run.dir.filePath("own.json"));
    if (!out.open(QIODevice::WriteOnly) || out.write(QJsonDocument(t).toJson()) <= 0) return {};
    return out.fileName();
}

bool prepare(Run& run) {
    saveScriptedNet(run.dir.filePath("net.pt"), kSide, kClasses);
    return writeNpyFolder(run.dir.filePath("p1"), bandedSamples(400, kSide, kClasses, 11), kSide) &&
           writeCsv(run.dir.filePath("p2.csv"), bandedSamples(400, kSide, kClasses, 12)) &&
           writeNpyFolder(run.dir.filePath("test"), bandedSamples(300, kSide, kClasses, 13), kSide);
}

// The accuracy of a TorchScript file on the npy test set.
double accuracyOf(const QString& model, const QString& testDir) {
    torch::jit::Module m = torch::jit::load(model.toStdString());
    m.eval();
    const Samples s = bandedSamples(300, kSide, kClasses, 13);  // what testDir holds
    Q_UNUSED(testDir);
    torch::NoGradGuard noGrad;
    const torch::Tensor x = torch::from_blob(const_cast<float*>(s.x.data()), {300, 1, kSide, kSide}, torch::kFloat32);
    const torch::Tensor y = torch::from_blob(const_cast<int64_t*>(s.y.data()), {300}, torch::kInt64);
    return m.forward({x}).toTensor().argmax(1).eq(y).sum().item<double>() / 300.0;
}

}  // namespace

class OwnDataRunTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void partiesTrainTheirOwnModelOnTheirOwnData() {
        Run run;
        QVERIFY(prepare(run));
        const QString topology =
            writeTopology(run, QJsonObject{{"format", "npy"}, {"path", run.dir.filePath("p1")}, {"holdout", 0.25}});
        QVERIFY(!topology.isEmpty());
        run.start({"run", topology, "--out", run.dir.filePath("out")});
        QVERIFY2(run.finish(180000) == 0, run.err.constData());
        const QRegularExpressionMatch final = QRegularExpression("final test accuracy (\\d\\.\\d{4})").match(QString(run.out));
        QVERIFY2(final.hasMatch(), run.out.constData());
        const double reported = final.captured(1).toDouble();
        QVERIFY2(reported > 0.8, run.out.constData());
        // The workers' class histograms sum to what each party trains on: 400 samples a party, of
        // which a quarter is held out. Each party's first worker tests every evaluated round's
        // model on those 100 rows, and says how many it got right (counts only).
        qint64 samples = 0;
        QMap<QString, QList<int>> heldOutRounds;
        for (const QJsonObject& r : metricRecords(run.dir.filePath("out/metrics.jsonl"))) {
            for (const QJsonValue& c : r.value("class_counts").toArray()) samples += c.toInteger();
            if (r.value("kind").toString() != "party_eval") continue;
            heldOutRounds[r.value("node").toString()] << r.value("round").toInt();
            QCOMPARE(r.value("samples").toInteger(), qint64(100));
            QCOMPARE(r.value("test_acc").toDouble(), r.value("correct").toDouble() / 100.0);
            if (r.value("round").toInt() == 6) QVERIFY2(r.value("test_acc").toDouble() > 0.8, qPrintable(QJsonDocument(r).toJson()));
        }
        QCOMPARE(samples, qint64(600));
        QCOMPARE(heldOutRounds.keys(), (QList<QString>{"party1/worker0", "party2/worker0"}));
        QCOMPARE(heldOutRounds["party1/worker0"].size(), 6);  // small.json: 6 rounds, each evaluated
        QCOMPARE(heldOutRounds["party2/worker0"].last(), 6);
        // The history keeps each worker's counts (never contents): hips history show lists them.
        const auto [status, shown] = run.historyCommand({"show", "1"});
        QCOMPARE(status, 0);
        QCOMPARE(shown.count("data: party1/worker"), 2);
        QVERIFY2(shown.contains(QByteArray("data: party2/worker0: trains on ")), shown.constData());
        // The final model's per-class accuracy: three classes whose counts add up to the test set.
        QVERIFY2(shown.contains("classes: central/master_worker: per-class accuracy of the final model: class 0: "), shown.constData());
        qint64 tested = 0;
        auto it = QRegularExpression("class \\d: [01]\\.\\d{3} \\((\\d+) of (\\d+)\\)").globalMatch(QString(shown));
        int classes = 0;
        for (; it.hasNext(); ++classes) tested += it.next().captured(2).toLongLong();
        QCOMPARE(classes, 3);
        QCOMPARE(tested, qint64(300));
        const QString model = run.dir.filePath("out/model.pt");
        QVERIFY(QFileInfo::exists(model));
        QVERIFY2(std::abs(accuracyOf(model, run.dir.filePath("test")) - reported) <= 0.001, run.out.constData());
        QVERIFY(run.leftovers().isEmpty());
    }

    // A source a party's hosts cannot read fails the run before round 1, naming the party.
    void anUnreadableSourceNamesItsParty() {
        Run run;
        QVERIFY(prepare(run));
        const QString topology = writeTopology(run, QJsonObject{{"format", "npy"}, {"path", run.dir.filePath("nowhere")}});
        run.start({"run", topology, "--out", run.dir.filePath("out")});
        QCOMPARE(run.finish(120000), 1);
        QVERIFY2(run.err.contains("party 'party1''s data") && run.err.contains("nowhere"), run.err.constData());
        QVERIFY(!run.out.contains("\n    1 "));
        QVERIFY(run.leftovers().isEmpty());
    }

    // Label i must mean one class everywhere: parties whose sources name different classes are
    // refused, naming both parties and the names only one of them has.
    void partiesWhoseClassesDifferAreRefused() {
        Run run;
        QVERIFY(prepare(run));
        const QString topology =
            writeTopology(run, QJsonObject{{"format", "npy"}, {"path", run.dir.filePath("p1")}, {"classes", QJsonArray{"cat", "dog", "owl"}}},
                          QJsonArray{"cat", "dog", "emu"});
        run.start({"run", topology, "--out", run.dir.filePath("out")});
        QCOMPARE(run.finish(120000), 1);
        QVERIFY2(run.err.contains("the parties' classes differ") && run.err.contains("\"emu\" only in party2's") &&
                     run.err.contains("\"owl\" only in party1's"),
                 run.err.constData());
        QVERIFY(run.leftovers().isEmpty());
    }
};

QTEST_GUILESS_MAIN(OwnDataRunTest)
#include "tst_owndatarun.moc"
