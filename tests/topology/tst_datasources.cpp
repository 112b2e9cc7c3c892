// The parties' own data and the user's own model in the topology: read, written back the same,
// and every wrong source, shape or model file refused with its path and what to do.
#include "DataFormatRegistry.h"
#include "ModelRegistry.h"
#include "TopologyReader.h"
#include "TopologyTestSupport.h"
#include "TopologyWriter.h"

#include <QJsonArray>
#include <QtTest>

using namespace hips;
using namespace hips::test;

namespace {

QJsonObject source(const char* format, const char* path) {
    return {{"format", format}, {"path", path}};
}

// The default topology with each party's own data and the master's test set.
QJsonObject withOwnData() {
    QJsonObject t = validTopology();
    set(t, {"parties", "1", "data"}, source("image-folder", "/data/xray"));
    QJsonObject npz = source("npz", "/data/p2.npz");
    npz["x"] = "features";
    npz["classes"] = QJsonArray{"cat", "dog"};
    set(t, {"parties", "2", "data"}, npz);
    set(t, {"training", "evaluation_data"}, source("npy", "/data/test"));
    return t;
}

QJsonObject withHoldout(double fraction) {
    QJsonObject t = withOwnData();
    set(t, {"parties", "2", "data", "holdout"}, fraction);
    return t;
}

// A regression over csv and npy sources.
QJsonObject regression() {
    QJsonObject t = validTopology();
    set(t, {"parties", "1", "data"}, source("csv", "/data/p1.csv"));
    set(t, {"parties", "2", "data"}, source("npy", "/data/p2"));
    set(t, {"training", "evaluation_data"}, source("npz", "/data/test.npz"));
    set(t, {"training", "model"}, QJsonObject{{"torchscript", "/m.pt"}});
    set(t, {"training", "task"}, "regression");
    return t;
}

TopologyLoad read(const QJsonObject& t) {
    return TopologyReader::readJson(QJsonDocument(t).toJson(), "t.json");
}

}  // namespace

class DataSourcesTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void ownDataIsReadAndWrittenBack() {
        const TopologyLoad load = read(withOwnData());
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
        const Topology& t = *load.topology;
        QVERIFY(t.partiesBringData());
        QCOMPARE(t.parties[1].data->format, QStringLiteral("image-folder"));
        QCOMPARE(t.parties[2].data->option("x"), QStringLiteral("features"));
        QCOMPARE(t.parties[2].data->listOption("classes"), (QStringList{"cat", "dog"}));
        QCOMPARE(t.training.evaluationData->path, QStringLiteral("/data/test"));
        QCOMPARE(t.dataSourceOf("party1", "local")->path, QStringLiteral("/data/xray"));
        QVERIFY(!t.dataSourceOf("central", "local"));
        const QByteArray written = TopologyWriter::toJson(t);
        const TopologyLoad again = TopologyReader::readJson(written);
        QVERIFY2(again.ok(), qPrintable(again.errorText()));
        QCOMPARE(TopologyWriter::toJson(*again.topology), written);
        QVERIFY(*again.topology->parties[2].data == *t.parties[2].data);
    }

    // The master's test set in a split format names the test split's files where it names none
    // (a party's source names the training split's): it scored the model on the training images.
    void theTestSetReadsTheTestSplit() {
        QJsonObject t = withOwnData();
        set(t, {"parties", "1", "data"}, source("idx", "/data/p1"));
        set(t, {"training", "evaluation_data"}, source("idx", "/data/fashion"));
        TopologyLoad load = read(t);
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
        QCOMPARE(load.topology->training.evaluationData->option("images"), QStringLiteral("t10k-images-idx3-ubyte.gz"));
        QCOMPARE(load.topology->training.evaluationData->option("labels"), QStringLiteral("t10k-labels-idx1-ubyte.gz"));
        QVERIFY(load.topology->parties[1].data->options.isEmpty());  // (the reader's default: train-*)
        QJsonObject cifar = source("cifar-binary", "/data/cifar");
        set(t, {"training", "evaluation_data"}, cifar);
        QCOMPARE(read(t).topology->training.evaluationData->option("files"), QStringLiteral("test_batch.bin"));
        cifar["files"] = QJsonArray{"data_batch_5.bin"};  // named: as named
        set(t, {"training", "evaluation_data"}, cifar);
        QCOMPARE(read(t).topology->training.evaluationData->option("files"), QStringLiteral("data_batch_5.bin"));
    }

    // A party's held-out share is a number in the file, as written back.
    void aHoldoutIsANumber() {
        const TopologyLoad load = read(withHoldout(0.25));
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
        QCOMPARE(load.topology->parties[2].data->option("holdout"), QStringLiteral("0.25"));
        const QJsonObject written = QJsonDocument::fromJson(TopologyWriter::toJson(*load.topology)).object();
        QCOMPARE(written["parties"].toArray()[2].toObject()["data"].toObject()["holdout"], QJsonValue(0.25));
    }

    // The shipped default brings no data: the run's dataset is split over the parties (split_from).
    void theDefaultSplitsOneDataset() {
        const TopologyLoad load = read(validTopology());
        QVERIFY(load.ok());
        QVERIFY(!load.topology->partiesBringData());
        QVERIFY(!load.topology->training.evaluationData);
    }

    // A host's own source overrides its party's for the workers on it.
    void aHostsSourceComesFirst() {
        QJsonObject t = withOwnData();
        t["hosts"] = QJsonArray{
            QJsonObject{{"id", "local"}, {"address", "127.0.0.1"}},
            QJsonObject{{"id", "other"}, {"address", "127.0.0.1"}, {"agent_port", 7071}, {"data", source("csv", "/data/other.csv")}}};
        set(t, {"parties", "2", "roles", "workers"}, QJsonArray{QJsonObject{{"count", 1}}, QJsonObject{{"host", "other"}, {"count", 1}}});
        const TopologyLoad load = read(t);
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
        QCOMPARE(load.topology->dataSourceOf("party2", "other")->format, QStringLiteral("csv"));
        QCOMPARE(load.topology->dataSourceOf("party2", "local")->format, QStringLiteral("npz"));
    }

    void torchScriptModelRoundTrips() {
        QJsonObject t = validTopology();
        set(t, {"training", "model"}, QJsonObject{{"torchscript", "/models/net.pt"}});
        set(t, {"training", "input_shape"}, QJsonArray{3, 32, 32});
        set(t, {"training", "classes"}, 5);
        TopologyLoad load = read(t);
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
        QVERIFY(load.topology->training.torchScript());
        QCOMPARE(load.topology->training.modelFile, QStringLiteral("/models/net.pt"));
        QCOMPARE(load.topology->training.modelInput(), (InputShape{3, 32}));
        // What the controller adds before a run sizes the servers' model.
        Topology resolved = *load.topology;
        resolved.training.modelSha256 = QString(64, QLatin1Char('a'));
        resolved.training.modelTensors = {150, 0, 6, 10};  // (0: an empty tensor, a device probe)
        resolved.training.modelBufferTensors = 1;  // (the last: a floating buffer)
        load = TopologyReader::readJson(TopologyWriter::toJson(resolved));
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
        QCOMPARE(load.topology->training.modelTensors, (std::vector<size_t>{150, 0, 6, 10}));
        QCOMPARE(load.topology->training.modelBufferTensors, 1);
        QCOMPARE(ModelRegistry::parameterCount(load.topology->training.modelSpec()),
                 size_t(192));  // 150 -> 160, +0, +6 -> 176, +10 -> 192 (16-float alignment)
        QCOMPARE(ModelRegistry::trainableFloats(load.topology->training.modelSpec()), size_t(176));  // the buffer's from 176
    }

    // A built-in model is sized by the run's input and classes.
    void builtInModelsFollowInputAndClasses() {
        const ModelSpec tenClasses{"mlp", {1, 28}, 10, {}};
        const ModelSpec threeClasses{"mlp", {20, 1}, 3, {}};
        QCOMPARE(ModelRegistry::tensorSizes(tenClasses), (std::vector<size_t>{784 * 256, 256, 256 * 10, 10}));
        QCOMPARE(ModelRegistry::tensorSizes(threeClasses), (std::vector<size_t>{20 * 256, 256, 256 * 3, 3}));
    }

    void brokenSources_data() {
        QTest::addColumn<QJsonObject>("topology");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("message");
        QJsonObject t = withOwnData();
        set(t, {"parties", "1", "data", "format"}, "parquet");
        QTest::newRow("unknown format") << t << "$.parties[1].data.format"
                                        << "'parquet' is not a data format; use one of: idx";
        t = withOwnData();
        set(t, {"parties", "1", "data", "path"}, "xray");
        QTest::newRow("relative path") << t << "$.parties[1].data.path"
                                       << "is relative; write the absolute path";
        t = withOwnData();
        set(t, {"parties", "1", "data", "label"}, "y");
        QTest::newRow("another format's option") << t << "$.parties[1].data.label"
                                                 << "image-folder option";
        t = withOwnData();
        set(t, {"parties", "2", "data"}, QJsonValue(QJsonValue::Undefined));
        QTest::newRow("a party without data") << t << "$.parties[2]"
                                              << "party 'party2' trains but has no data of its own";
        t = withOwnData();
        set(t, {"training", "evaluation_data"}, QJsonValue(QJsonValue::Undefined));
        QTest::newRow("no test set") << t << "$.training"
                                     << "declare the master's test set";
        t = withOwnData();
        set(t, {"parties", "2", "data", "classes"}, QJsonArray{"a", 3});
        QTest::newRow("classes not names") << t << "$.parties[2].data.classes"
                                           << "list of non-empty names";
        t = withOwnData();
        set(t, {"hosts", "0", "data"}, source("csv", "/data/all.csv"));
        QTest::newRow("a host shared by parties") << t << "$.hosts[0].data"
                                                  << "runs workers of 2 parties";
        t = withOwnData();
        set(t, {"parties", "2", "data"}, QJsonObject{{"format", "csv"}, {"path", "/d.csv"}, {"delimiter", ";;"}});
        QTest::newRow("long delimiter") << t << "$.parties[2].data.delimiter"
                                        << "one character";
        t = withOwnData();
        set(t, {"parties", "2", "data"}, source("image-folder", "/data/xray/"));
        QTest::newRow("another party's path") << t << "$.parties[2].data.path"
                                              << "party 'party2' reads /data/xray/ and party 'party1' reads /data/xray, one inside";
        QTest::newRow("holdout out of range") << withHoldout(1.5) << "$.parties[2].data.holdout"
                                              << "not a fraction in (0, 0.9]";
        QTest::newRow("holdout zero") << withHoldout(0) << "$.parties[2].data.holdout"
                                      << "not a fraction in (0, 0.9]";
        t = withOwnData();
        set(t, {"parties", "2", "data", "holdout"}, "a tenth");
        QTest::newRow("holdout not a number") << t << "$.parties[2].data.holdout"
                                              << "must be a number";
        t = withOwnData();
        set(t, {"training", "evaluation_data", "holdout"}, 0.1);
        QTest::newRow("holdout of the test set") << t << "$.training.evaluation_data.holdout"
                                                 << "the master's test set is all test";
        t = withOwnData();
        set(t, {"parties", "2", "data"}, source("csv", "/data/xray/train.csv"));
        QTest::newRow("inside another party's path") << t << "$.parties[2].data.path"
                                                     << "a party's data is its own";
        t = validTopology();
        set(t, {"training", "input_shape"}, QJsonArray{20});
        QTest::newRow("features into a CNN") << t << "$.training.input_shape"
                                             << "cnn takes 28 x 28 or 32 x 32 images, not 20 features";
        t = validTopology();
        set(t, {"training", "input_shape"}, QJsonArray{3, 32, 24});
        QTest::newRow("oblong images") << t << "$.training.input_shape"
                                       << "square images";
        t = validTopology();
        set(t, {"training", "input_shape"}, QJsonArray{3, 32});
        QTest::newRow("two dimensions") << t << "$.training.input_shape"
                                        << "[features] or [channels, height, width]";
        t = validTopology();
        set(t, {"training", "model"}, "gpt");
        QTest::newRow("unknown model") << t << "$.training.model"
                                       << "{\"torchscript\": \"/path/model.pt\"}";
        t = validTopology();
        set(t, {"training", "model"}, QJsonObject{{"onnx", "/m.onnx"}});
        QTest::newRow("not torchscript") << t << "$.training.model.onnx"
                                         << "model field";
        t = validTopology();
        set(t, {"training", "model"}, QJsonObject{{"torchscript", "/m.pt"}, {"tensors", QJsonArray{10, -1}}});
        QTest::newRow("negative tensor") << t << "$.training.model.tensors"
                                         << "element count";
        t = validTopology();
        set(t, {"training", "model"}, QJsonObject{{"torchscript", "/m.pt"}, {"sha256", "../../etc/passwd"}});
        QTest::newRow("sha256 not a digest") << t << "$.training.model.sha256"
                                             << "64 lowercase hex digits";
        t = validTopology();
        set(t, {"training", "classes"}, 1);
        QTest::newRow("one class") << t << "$.training.classes"
                                   << "out of range";
        t = validTopology();
        set(t, {"training", "task"}, "regression");
        QTest::newRow("regression on the built-in data") << t << "$.training.task"
                                                         << "a regression trains on the parties' own data";
        t = regression();
        set(t, {"parties", "1", "data"}, source("image-folder", "/data/xray"));
        QTest::newRow("regression on images") << t << "$.parties[1].data.format"
                                              << "image-folder holds class labels";
        t = regression();
        set(t, {"training", "partition"}, "dirichlet");
        QTest::newRow("regression split by class") << t << "$.training.partition"
                                                   << "a regression has none: use iid";
        t = regression();
        set(t, {"training", "classes"}, 3);
        QTest::newRow("regression with classes") << t << "$.training.classes"
                                                 << "write \"outputs\"";
        t = withOwnData();
        set(t, {"training", "evaluation_data"}, source("image-folder", "/data/xray/test"));
        QTest::newRow("a test set inside a party's data") << t << "$.training.evaluation_data.path"
                                                          << "the model would be scored on rows it trained on";
        t = withOwnData();
        set(t, {"training", "mode"}, "local");
        QTest::newRow("the standalone baseline") << t << "$.training.mode"
                                                 << "mode local trains one model alone on the run's dataset";
        t = regression();
        set(t, {"parties", "2", "data", "classes"}, QJsonArray{"a", "b"});
        QTest::newRow("regression's source with classes") << t << "$.parties[2].data.classes"
                                                          << "targets are numbers";
        t = validTopology();
        set(t, {"training", "outputs"}, 2);
        QTest::newRow("outputs of a classifier") << t << "$.training.outputs"
                                                 << "outputs are a regression's";
        t = validTopology();
        set(t, {"training", "task"}, "ranking");
        QTest::newRow("unknown task") << t << "$.training.task"
                                      << "regression";
    }

    // task: regression with its outputs is read and written back; a classifier's settings are not written.
    void regressionRoundTrips() {
        QJsonObject json = regression();
        set(json, {"training", "outputs"}, 2);
        const TopologyLoad load = read(json);
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
        QVERIFY(load.topology->training.regression());
        QCOMPARE(load.topology->training.classes, 2);
        QVERIFY(load.topology->training.agreementText().contains("task regression"));
        const QByteArray written = TopologyWriter::toJson(*load.topology);
        QVERIFY(written.contains("\"task\": \"regression\"") && written.contains("\"outputs\": 2") && !written.contains("\"classes\""));
        const TopologyLoad again = TopologyReader::readJson(written);
        QVERIFY2(again.ok(), qPrintable(again.errorText()));
        QCOMPARE(again.topology->training.classes, 2);
        const TopologyLoad one = read(regression());
        QVERIFY2(one.ok(), qPrintable(one.errorText()));
        QCOMPARE(one.topology->training.classes, 1);  // one target by default
        QVERIFY(!TopologyWriter::toJson(*read(validTopology()).topology).contains("\"task\""));
    }

    void brokenSources() {
        QFETCH(QJsonObject, topology);
        QFETCH(QString, path);
        QFETCH(QString, message);
        const TopologyLoad load = read(topology);
        QVERIFY2(!load.ok(), "a broken topology was accepted");
        bool found = false;
        for (const TopologyIssue& issue : load.issues) found = found || (issue.path == path && issue.message.contains(message));
        QVERIFY2(found, qPrintable(QStringLiteral("expected %1: %2\ngot:\n%3").arg(path, message, load.errorText())));
    }

    // Every format's options are listed in the help, with its path.
    void formatsHaveHelp() {
        const QString help = DataFormatRegistry::help();
        for (const DataFormatInfo& f : DataFormatRegistry::all()) {
            QVERIFY2(help.contains(f.name) && help.contains(f.pathHelp), qPrintable(f.name));
            for (const DataOption& o : f.options) QVERIFY(help.contains(o.name + ": "));
        }
        QCOMPARE(DataFormatRegistry::names(), (QStringList{"idx", "cifar-binary", "image-folder", "npy", "npz", "csv"}));
    }
};

QTEST_GUILESS_MAIN(DataSourcesTest)
#include "tst_datasources.moc"
