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
    if (!party2Classes.isEmpty())
        p2["data"] = QJsonObject{{"format", "csv"}, {"path", run.dir.filePath("p2.csv")}, {"classes", party2Classes}};
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

// A regression: y = x . w + 0.5 + noise over kFeatures features, one target a sample.
constexpr int kFeatures = 8;

struct Targets {
    std::vector<float> x, y;
};

Targets linearSamples(int n, int seed) {
    torch::manual_seed(seed);
    const torch::Tensor w = torch::linspace(-1, 1, kFeatures);  // the same truth for every party
    const torch::Tensor x = torch::rand({n, kFeatures});
    const torch::Tensor y = (x.matmul(w) + 0.5 + 0.05 * torch::randn({n})).contiguous();
    return {{x.data_ptr<float>(), x.data_ptr<float>() + x.numel()}, {y.data_ptr<float>(), y.data_ptr<float>() + n}};
}

bool writeTargetsCsv(const QString& path, const Targets& t) {
    QByteArray text = "price";
    for (int i = 0; i < kFeatures; ++i) text += ",f" + QByteArray::number(i);
    text += '\n';
    for (size_t r = 0; r < t.y.size(); ++r) {
        text += QByteArray::number(t.y[r], 'g', 9);
        for (int i = 0; i < kFeatures; ++i) text += ',' + QByteArray::number(t.x[r * kFeatures + i], 'g', 9);
        text += '\n';
    }
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(text) == text.size();
}

bool writeTargetsNpy(const QString& dir, const Targets& t) {
    const int64_t n = int64_t(t.y.size());
    return QDir().mkpath(dir) && writeNpy(dir + "/x.npy", "<f4", {n, kFeatures}, t.x.data(), t.x.size() * sizeof(float)) &&
           writeNpy(dir + "/y.npy", "<f4", {n}, t.y.data(), t.y.size() * sizeof(float));
}

// small.json as a regression: party1 reads p1.csv, party2 `party2Data`, the master test.csv, and
// the model is linear.pt.
QString writeRegressionTopology(Run& run, const QJsonObject& party2Data) {
    QFile file(kSmall);
    if (!file.open(QIODevice::ReadOnly)) return {};
    QJsonObject t = QJsonDocument::fromJson(file.readAll()).object();
    QJsonArray parties = t["parties"].toArray();
    QJsonObject p1 = parties[1].toObject(), p2 = parties[2].toObject();
    p1["data"] = QJsonObject{{"format", "csv"}, {"path", run.dir.filePath("p1.csv")}, {"label", "price"}, {"holdout", 0.25}};
    p2["data"] = party2Data;
    parties[1] = p1;
    parties[2] = p2;
    t["parties"] = parties;
    QJsonObject training = t["training"].toObject();
    training["task"] = "regression";
    training["model"] = QJsonObject{{"torchscript", run.dir.filePath("linear.pt")}};
    training["input_shape"] = QJsonArray{kFeatures};
    training["evaluation_data"] = QJsonObject{{"format", "csv"}, {"path", run.dir.filePath("test.csv")}, {"label", "price"}};
    training["learning_rate"] = 0.1;
    t["training"] = training;
    QFile out(run.dir.filePath("regression.json"));
    if (!out.open(QIODevice::WriteOnly) || out.write(QJsonDocument(t).toJson()) <= 0) return {};
    return out.fileName();
}

// A linear TorchScript model: kFeatures in, one output.
void saveLinearNet(const QString& path) {
    torch::manual_seed(3);
    torch::jit::Module m("Linear");
    m.register_parameter("w", torch::randn({1, kFeatures}) * 0.1, false);
    m.register_parameter("b", torch::zeros({1}), false);
    m.define("def forward(self, x):\n    return torch.linear(x, self.w, self.b)\n");
    m.save(path.toStdString());
}

double rmseOf(const QString& model, const Targets& test) {
    torch::jit::Module m = torch::jit::load(model.toStdString());
    torch::NoGradGuard noGrad;
    const auto n = int64_t(test.y.size());
    const torch::Tensor x = torch::from_blob(const_cast<float*>(test.x.data()), {n, kFeatures}, torch::kFloat32);
    const torch::Tensor y = torch::from_blob(const_cast<float*>(test.y.data()), {n, 1}, torch::kFloat32);
    return std::sqrt(torch::mse_loss(m.forward({x}).toTensor(), y).item<double>());
}

}  // namespace

class OwnDataRunTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void partiesTrainTheirOwnModelOnTheirOwnData() {
        Run run;
        QVERIFY(prepare(run));
        const QString topology = writeTopology(run, QJsonObject{{"format", "npy"}, {"path", run.dir.filePath("p1")}, {"holdout", 0.25}});
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

    // task: regression: float targets from a csv column and a .npy array, mean squared error, and
    // RMSE wherever a classifier shows accuracy: the table, the run's summary, the history, the
    // report, each party's held-out rows; model.pt gives the RMSE the run reported.
    void aRegressionLearnsFloatTargetsAndReportsRmse() {
        Run run;
        const Targets test = linearSamples(200, 23);
        saveLinearNet(run.dir.filePath("linear.pt"));
        QVERIFY(writeTargetsCsv(run.dir.filePath("p1.csv"), linearSamples(400, 21)));
        QVERIFY(writeTargetsNpy(run.dir.filePath("p2"), linearSamples(400, 22)));
        QVERIFY(writeTargetsCsv(run.dir.filePath("test.csv"), test));
        const QString topology = writeRegressionTopology(run, QJsonObject{{"format", "npy"}, {"path", run.dir.filePath("p2")}});
        QVERIFY(!topology.isEmpty());
        run.start({"run", topology, "--out", run.dir.filePath("out")});
        QVERIFY2(run.finish(180000) == 0, run.err.constData());
        QVERIFY2(run.out.contains("test_rmse"), run.out.constData());
        const QRegularExpressionMatch final = QRegularExpression("final test RMSE (\\d+\\.\\d{4})").match(QString(run.out));
        QVERIFY2(final.hasMatch(), run.out.constData());
        const double reported = final.captured(1).toDouble();
        QList<double> rmse;
        int partyEvaluations = 0, lastEvaluated = 0;
        for (const QJsonObject& r : metricRecords(run.dir.filePath("out/metrics.jsonl"))) {
            if (r.value("kind").toString() == "eval") {
                QVERIFY2(!r.contains("test_acc") && !r.contains("confusion"), qPrintable(QJsonDocument(r).toJson()));
                rmse << r.value("test_rmse").toDouble(-1);
                lastEvaluated = r.value("round").toInt();
                QCOMPARE(r.value("test_loss").toDouble(), rmse.last() * rmse.last());  // the loss is the MSE
            } else if (r.value("kind").toString() == "party_eval") {
                QCOMPARE(r.value("node").toString(), QStringLiteral("party1/worker0"));
                QCOMPARE(r.value("samples").toInteger(), qint64(100));
                QVERIFY(r.value("test_rmse").toDouble(-1) >= 0);
                ++partyEvaluations;
            } else if (r.value("kind").toString() == "startup" && r.contains("node") && r.value("node").toString().contains("worker")) {
                QVERIFY2(!r.contains("class_counts"), qPrintable(QJsonDocument(r).toJson()));
            }
        }
        QVERIFY(rmse.size() >= 2);  // (the master may skip a round for a newer one)
        QCOMPARE(lastEvaluated, 6);
        QCOMPARE(partyEvaluations, 6);
        // The spread of y is about 0.6 and its noise 0.05: a model that learned nothing is far off.
        // (Not against the first evaluation: the master may skip round 1 for round 2, already at
        // 0.11, and then round 6's 0.06 is not half of it.)
        QVERIFY2(rmse.last() < 0.15, run.out.constData());
        QVERIFY(std::abs(rmse.last() - reported) < 1e-4);
        QFile summary(run.dir.filePath("out/summary.json"));
        QVERIFY(summary.open(QIODevice::ReadOnly));
        const QJsonObject s = QJsonDocument::fromJson(summary.readAll()).object();
        QVERIFY2(s.contains("final_test_rmse") && !s.contains("final_test_acc"), summary.fileName().toUtf8());
        const auto [status, shown] = run.historyCommand({"show", "1"});
        QCOMPARE(status, 0);
        QVERIFY2(shown.contains("final test RMSE: RMSE " + QByteArray::number(reported, 'f', 4)), shown.constData());
        QVERIFY2(shown.contains("data: party2/worker0: trains on 200 samples"), shown.constData());
        const auto [reportStatus, said] = run.report("r.json");
        QVERIFY2(reportStatus == 0, said.constData());
        QFile json(run.dir.filePath("r.json"));
        QVERIFY(json.open(QIODevice::ReadOnly));
        const QJsonObject report = QJsonDocument::fromJson(json.readAll()).object();
        QCOMPARE(report["series"].toObject()["test_rmse_by_round"].toArray().size(), rmse.size());
        QCOMPARE(report["series"].toObject()["held_out_rmse_by_round"].toObject().keys(), QStringList{"party1/worker0"});
        QCOMPARE(report["summary"].toObject()["final_test_rmse"].toDouble(), rmse.last());
        QVERIFY2(std::abs(rmseOf(run.dir.filePath("out/model.pt"), test) - reported) <= 0.001, run.out.constData());
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

    // Input i must be one feature everywhere: parties whose csv headers name their columns in
    // another order are refused, naming both (before, party2's f0 and f1 trained each other's
    // weight, silently).
    void partiesWhoseFeatureColumnsDifferAreRefused() {
        Run run;
        saveLinearNet(run.dir.filePath("linear.pt"));
        QVERIFY(writeTargetsCsv(run.dir.filePath("p1.csv"), linearSamples(400, 21)));
        QVERIFY(writeTargetsCsv(run.dir.filePath("p2.csv"), linearSamples(400, 22)));
        QVERIFY(writeTargetsCsv(run.dir.filePath("test.csv"), linearSamples(200, 23)));
        QFile p2(run.dir.filePath("p2.csv"));
        QVERIFY(p2.open(QIODevice::ReadWrite));
        QByteArray text = p2.readAll();
        text.replace("price,f0,f1,", "price,f1,f0,");  // (the header only: a party whose export put them the other way)
        QVERIFY(p2.seek(0) && p2.write(text) == text.size());
        p2.close();
        const QString topology =
            writeRegressionTopology(run, QJsonObject{{"format", "csv"}, {"path", run.dir.filePath("p2.csv")}, {"label", "price"}});
        run.start({"run", topology, "--out", run.dir.filePath("out")});
        QCOMPARE(run.finish(120000), 1);
        QVERIFY2(run.err.contains("the feature columns differ") && run.err.contains("party2") && run.err.contains("in another order"),
                 run.err.constData());
        QVERIFY(run.leftovers().isEmpty());
    }

    // ssgd pushes gradients, and no gradient moves BatchNorm's running statistics: a TorchScript
    // model with floating buffers is refused before anything starts (before, its statistics kept
    // the file's values in the servers' model and every evaluation used them).
    void gradientModesRefuseAScriptedModelWithBuffers() {
        Run run;
        QVERIFY(prepare(run));
        const QString topology = writeTopology(run, QJsonObject{{"format", "npy"}, {"path", run.dir.filePath("p1")}});
        run.start({"run", topology, "--mode", "ssgd", "--out", run.dir.filePath("out")});
        QVERIFY(run.finish(120000) != 0);
        QVERIFY2(run.err.contains("mode ssgd pushes gradients") && run.err.contains("2 floating buffers"), run.err.constData());
        QVERIFY(run.leftovers().isEmpty());
    }

    // Label i must mean one class everywhere: parties whose sources name different classes are
    // refused, naming both parties and the names only one of them has.
    void partiesWhoseClassesDifferAreRefused() {
        Run run;
        QVERIFY(prepare(run));
        const QString topology = writeTopology(
            run, QJsonObject{{"format", "npy"}, {"path", run.dir.filePath("p1")}, {"classes", QJsonArray{"cat", "dog", "owl"}}},
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
