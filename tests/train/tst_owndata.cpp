// The parties' own data and the user's own model on the training side: a party's source split
// among its workers, a TorchScript model (convolution, BatchNorm, linear) that trains and comes
// back out for PyTorch with its trained weights, and each wrong file or shape refused by name.
#include "FlatModel.h"
#include "LocalTrainer.h"
#include "ModelRegistry.h"
#include "OwnDataFiles.h"
#include "ScriptModel.h"
#include "SourceData.h"
#include "TopologyReader.h"
#include "TrainError.h"
#include "WorkerStrategy.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <condition_variable>
#include <mutex>
#include <thread>

using namespace hips;
using namespace hips::test;

namespace {

constexpr int kSide = 12, kClasses = 3;

TrainingSettings ownDataSettings(const QString& modelFile) {
    TrainingSettings s;
    s.model = QString::fromLatin1(TrainingSettings::kTorchScript);
    s.modelFile = modelFile;
    s.inputShape = {1, kSide, kSide};
    s.classes = kClasses;
    s.localIters = 40;
    s.batchSize = 32;
    s.learningRate = 0.1;
    return s;
}

QString message(const std::function<void()>& f) {
    try {
        f();
    } catch (const TrainError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

}  // namespace

class OwnDataTest : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_model, m_data;

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_model = m_dir.filePath("net.pt");
        m_data = m_dir.filePath("party");
        saveScriptedNet(m_model, kSide, kClasses);
        QVERIFY(writeNpyFolder(m_data, bandedSamples(600, kSide, kClasses, 3), kSide));
    }

    // What the controller sizes the run by: the parameters in order, then BatchNorm's statistics.
    void inspectingGivesTheTensors() {
        const ScriptModelInfo info = inspectScriptModel(m_model);
        const std::vector<size_t> expected{36, 4, 4, 4, size_t(kClasses * 4 * kSide * kSide), size_t(kClasses), 4, 4};
        QCOMPARE(info.tensors, expected);
        QCOMPARE(info.bufferTensors, int64_t(2));
        QCOMPARE(info.sha256, fileSha256(m_model));
        QCOMPARE(info.sha256.size(), 64);
        TrainingSettings s = ownDataSettings(m_model);
        s.modelTensors = info.tensors;
        s.modelSha256 = info.sha256;
        // Sized with none of its tensors buffers (a topology from before "buffers", or edited):
        // refused, where the servers' optimizer stepped the running statistics as weights.
        QVERIFY(message([&] { FlatModel{s, torch::kCPU}; }).contains("has 2 floating buffers where the run was sized for 0"));
        s.modelBufferTensors = int(info.bufferTensors);
        FlatModel model(s, torch::kCPU);
        QCOMPARE(size_t(model.parameterCount()), ModelRegistry::parameterCount(s.modelSpec()));
    }

    // A tied weight (one tensor in two submodules) is one parameter: sized, sent and stepped once
    // (it was registered under both names: two slots, two steps of SGD a step), and it learns.
    void aTiedWeightIsOneParameter() {
        const QString file = m_dir.filePath("tied.pt");
        saveTiedNet(file, kSide, kClasses);
        const ScriptModelInfo info = inspectScriptModel(file);
        const std::vector<size_t> expected{size_t(kClasses * kSide * kSide), size_t(kClasses)};
        QCOMPARE(info.tensors, expected);
        TrainingSettings s = ownDataSettings(file);
        s.modelTensors = info.tensors;
        s.modelSha256 = info.sha256;
        LocalTrainer trainer(s, TrainingData{DataSource{"npy", m_data, {}}, "party 'p'", 0, 1}, "cpu");
        QCOMPARE(trainer.parameterCount(), size_t(ModelRegistry::parameterCount(s.modelSpec())));  // (aligned: 432 + 3, not 2 x 432 + 3)
        const RoundStats before = trainer.trainRound();
        RoundStats after;
        for (int i = 0; i < 3; ++i) after = trainer.trainRound();
        QVERIFY2(after.loss < before.loss * 0.5, qPrintable(QStringLiteral("loss %1 -> %2").arg(before.loss).arg(after.loss)));
    }

    // ESync's push: global_lr x (w_i - w) / N for the weights, and (w_i - w) / N for BatchNorm's
    // running statistics, which are averaged (global_lr 2 scaled them too: a variance below zero).
    void esyncAveragesTheRunningStatistics() {
        QFile f(HIPS_SOURCE_DIR "/resources/topologies/default.json");
        QVERIFY(f.open(QIODevice::ReadOnly));
        QByteArray json = f.readAll();
        TopologyLoad load = TopologyReader::readJson(json);
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
        Topology t = *load.topology;
        const ScriptModelInfo info = inspectScriptModel(m_model);
        t.training = ownDataSettings(m_model);
        t.training.mode = "esync";
        t.training.params.insert("global_lr", 2.0);
        t.training.modelTensors = info.tensors;
        t.training.modelBufferTensors = int(info.bufferTensors);
        LocalTrainer trainer(t.training, TrainingData{DataSource{"npy", m_data, {}}, "party 'p'", 0, 1}, "cpu");
        std::vector<float> base(trainer.parameterCount()), local(base.size()), pushed(base.size());
        trainer.writeWeights(base.data());
        trainer.trainSteps(5);
        trainer.writeWeights(local.data());
        const auto strategy = makeWorkerStrategy(t, *t.node("party1/worker0"));
        strategy->update(trainer, ModelVersion{1, {}, base.data(), base.size()}, pushed.data());
        const size_t weights = ModelRegistry::trainableFloats(t.training.modelSpec());
        QVERIFY(weights < base.size());
        const float workers = float(t.trainingWorkerCount());
        bool statisticsMoved = false;
        for (size_t i = 0; i < base.size(); ++i) {
            const float expected = (local[i] - base[i]) * (i < weights ? 2.0f : 1.0f) / workers;
            QVERIFY2(std::abs(pushed[i] - expected) <= 1e-6f * (1 + std::abs(expected)), qPrintable(QString::number(i)));
            statisticsMoved = statisticsMoved || (i >= weights && local[i] != base[i]);
        }
        QVERIFY(statisticsMoved);
    }

    // Two workers of one party each get half of the party's data, and the model learns from it.
    void aPartysSourceIsSplitAndLearned() {
        TrainingSettings s = ownDataSettings(m_model);
        const DataSource source{"npy", m_data, {}};
        LocalTrainer first(s, TrainingData{source, "party 'p'", 0, 2}, "cpu");
        LocalTrainer second(s, TrainingData{source, "party 'p'", 1, 2}, "cpu");
        QCOMPARE(first.shardSize() + second.shardSize(), int64_t(600));
        QCOMPARE(first.shardSize(), int64_t(300));
        const std::vector<int64_t> counts = first.classCounts();
        QCOMPARE(int(counts.size()), kClasses);
        const RoundStats before = first.trainRound();
        RoundStats after;
        for (int i = 0; i < 3; ++i) after = first.trainRound();
        QVERIFY2(after.loss < before.loss * 0.5, qPrintable(QStringLiteral("loss %1 -> %2").arg(before.loss).arg(after.loss)));
    }

    // Two parties whose sources are as large (here the same file) are cut under a Dirichlet skew
    // each its own way: worker 0 of one and of the other got the same classes, as every Dirichlet
    // draw of one size and seed was the same, and the same batches. Within a party, each of its
    // readers cuts the source alike.
    void partiesOfOneSizeAreCutEachItsOwnWay() {
        TrainingSettings s = ownDataSettings(m_model);
        s.partition = "dirichlet";
        s.params.insert("alpha", 0.1);
        const DataSource source{"npy", m_data, {}};
        const auto counts = [&](const char* owner, int part) {
            return LocalTrainer(s, TrainingData{source, owner, part, 2, sourceStream(owner)}, "cpu").classCounts();
        };
        QVERIFY(counts("party 'a'", 0) != counts("party 'b'", 0));
        QCOMPARE(counts("party 'a'", 0), counts("party 'a'", 0));
        QVERIFY(sourceStream("party 'a'") != 0 && sourceStream("party 'a'") == sourceStream(QStringLiteral("party 'a'")));
    }

    // What a source holds on a host, as each of its readers reports it (LabelSpaceCheck compares
    // them): the same for every reader of one copy, another for a copy with a row more.
    void eachReaderSaysWhatItsCopyHolds() {
        const TrainingSettings s = ownDataSettings(m_model);
        const DataSource source{"npy", m_data, {}}, longer{"npy", m_dir.filePath("longer"), {}};
        QVERIFY(writeNpyFolder(longer.path, bandedSamples(601, kSide, kClasses, 3), kSide));
        const auto digest = [&](const DataSource& d, int part) {
            return LocalTrainer(s, TrainingData{d, "party 'p'", part, 2, 1}, "cpu").sourceDigest();
        };
        QVERIFY2(digest(source, 0).startsWith("600 rows, "), qPrintable(digest(source, 0)));
        QCOMPARE(digest(source, 1), digest(source, 0));
        QVERIFY2(digest(longer, 0).startsWith("601 rows, "), qPrintable(digest(longer, 0)));
    }

    // A shared trainer's TorchScript workers take turns at LibTorch's process-wide generator step
    // by step. One trainer's round held it for all of its steps: a second trainer on another
    // thread waited the whole round (and its heartbeats with it: a worker of 64 on one host was
    // declared dead). Here the second trains three steps within the first one's round.
    void torchScriptTrainersOnThreadsTakeTurnsStepByStep() {
        TrainingSettings s = ownDataSettings(m_model);
        const DataSource source{"npy", m_data, {}};
        LocalTrainer first(s, TrainingData{source, "party 'p'", 0, 2}, "cpu");
        LocalTrainer second(s, TrainingData{source, "party 'p'", 1, 2}, "cpu");
        std::mutex lock;
        std::condition_variable done;
        bool secondDone = false, secondWithinFirstsRound = false;
        std::thread other;
        first.setProgress([&] {
            if (other.joinable()) return;
            other = std::thread([&] {
                second.trainSteps(3);
                std::lock_guard<std::mutex> hold(lock);
                secondDone = true;
                done.notify_all();
            });
            std::unique_lock<std::mutex> hold(lock);
            secondWithinFirstsRound = done.wait_for(hold, std::chrono::seconds(20), [&] { return secondDone; });
        });
        first.trainSteps(5);
        other.join();
        QVERIFY2(secondWithinFirstsRound, "the second trainer waited for the first one's whole round");
    }

    // The trained weights go out as the same TorchScript module, which gives the same outputs.
    void theTrainedModelComesBackAsTorchScript() {
        TrainingSettings s = ownDataSettings(m_model);
        s.evaluationData = DataSource{"npy", m_data, {}};
        ModelEvaluator evaluator(s, "cpu");
        std::vector<float> weights = evaluator.initialWeights();
        for (float& w : weights) w *= 0.5f;  // a model other than the file's
        const EvalStats stats = evaluator.evaluate(weights.data());
        QCOMPARE(stats.samples, int64_t(600));
        QCOMPARE(stats.top5, -1.0);  // 3 classes: no top-5
        const QString out = m_dir.filePath("model.pt");
        evaluator.exportModel(out);
        torch::jit::Module back = torch::jit::load(out.toStdString());
        back.eval();
        FlatModel mine(s, torch::kCPU);
        mine.load(weights.data());
        mine.net().eval();
        torch::NoGradGuard noGrad;
        const torch::Tensor x = torch::rand({5, 1, kSide, kSide});
        QVERIFY(torch::allclose(back.forward({x}).toTensor(), mine.net().forward(x)));
        // As a state_dict: the module's own names, for load_state_dict in Python.
        const QString dict = m_dir.filePath("state.pt");
        evaluator.exportModel(dict, true);
        QFile f(dict);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray bytes = f.readAll();
        const c10::Dict<c10::IValue, c10::IValue> loaded =
            torch::jit::pickle_load(std::vector<char>(bytes.begin(), bytes.end())).toGenericDict();
        QCOMPARE(int(loaded.size()), 8);
        QVERIFY(loaded.at("fc_w").toTensor().equal(back.attr("fc_w").toTensor()));
        QVERIFY(loaded.contains("bn_mean"));
    }

    // A built-in model's state_dict has the PyTorch definition's names (docs/topology.md, "The trained model in PyTorch").
    void aBuiltInModelsStateDictHasItsNames() {
        TrainingSettings s;
        s.dataset = "synthetic";
        s.syntheticSamples = 64;
        ModelEvaluator evaluator(s, "cpu");
        const std::vector<float> w = evaluator.initialWeights();
        // Top-5 beside top-1 (10 classes), and a confusion matrix whose diagonal is the hits.
        const EvalStats stats = evaluator.evaluate(w.data());
        QVERIFY(stats.top5 >= stats.accuracy && stats.top5 <= 1);
        QVERIFY(stats.top5 > stats.accuracy);  // an untrained net is rarely right first, often in its top 5
        QCOMPARE(int(stats.confusion.size()), 100);
        int64_t all = 0, diagonal = 0;
        for (int i = 0; i < 100; ++i) all += stats.confusion[size_t(i)];
        for (int c = 0; c < 10; ++c) diagonal += stats.confusion[size_t(c * 10 + c)];
        QCOMPARE(all, stats.samples);
        QCOMPARE(double(diagonal) / double(all), stats.accuracy);
        const QString out = m_dir.filePath("cnn.pt");
        evaluator.exportModel(out);
        QFile f(out);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray bytes = f.readAll();
        const auto dict = torch::jit::pickle_load(std::vector<char>(bytes.begin(), bytes.end())).toGenericDict();
        QStringList names;
        for (const auto& entry : dict) names << QString::fromStdString(entry.key().toStringRef());
        names.sort();
        QCOMPARE(names, (QStringList{"conv1.bias", "conv1.weight", "conv2.bias", "conv2.weight", "fc1.bias", "fc1.weight", "fc2.bias",
                                     "fc2.weight", "fc3.bias", "fc3.weight"}));
        QCOMPARE(dict.at("conv1.weight").toTensor().sizes(), (at::IntArrayRef{6, 1, 5, 5}));
    }

    void wrongInputsAreNamed() {
        const DataSource source{"npy", m_data, {}};
        TrainingSettings s = ownDataSettings(m_model);
        s.inputShape = {1, 10, 10};
        QString why = message([&] { (void)LocalTrainer(s, TrainingData{source, "party 'p'", 0, 1}, "cpu"); });
        QVERIFY2(why.contains("party 'p'") && why.contains("1 x 12 x 12") && why.contains("1 x 10 x 10"), qPrintable(why));
        // Channels-last images (12 x 12 x 3) hold a 3 x 12 x 12 input's values in another layout:
        // refused, saying how to turn them; a grey image's 12 x 12 x 1 is the same bytes: taken.
        const Samples grey = bandedSamples(8, 12, 3, 5);
        std::vector<float> three(grey.x.size() * 3);
        const QString lastDir = m_dir.filePath("channels_last");
        QVERIFY(QDir().mkpath(lastDir) && writeNpy(lastDir + "/x.npy", "<f4", {8, 12, 12, 3}, three.data(), three.size() * 4) &&
                writeNpy(lastDir + "/y.npy", "<i8", {8}, grey.y.data(), grey.y.size() * 8));
        s = ownDataSettings(m_model);
        s.inputShape = {3, 12, 12};
        why = message([&] { (void)loadSource(DataSource{"npy", lastDir, {}}, s, "party 'p'"); });
        QVERIFY2(why.contains("12 x 12 x 3") && why.contains("channels-last") && why.contains("transpose(0, 3, 1, 2)"), qPrintable(why));
        s.inputShape = {1, 6, 72};  // as many values, other dimensions
        why = message([&] { (void)loadSource(DataSource{"npy", lastDir, {}}, s, "party 'p'"); });
        QVERIFY2(why.contains("1 x 6 x 72") && why.contains("training.input_shape"), qPrintable(why));
        QVERIFY(writeNpy(lastDir + "/x.npy", "<f4", {8, 12, 12, 1}, grey.x.data(), grey.x.size() * 4));
        s.inputShape = {1, 12, 12};
        QCOMPARE(loadSource(DataSource{"npy", lastDir, {}}, s, "party 'p'").size(), int64_t(8));
        s = ownDataSettings(m_model);
        s.classes = 2;  // the data holds label 2
        why = message([&] { (void)LocalTrainer(s, TrainingData{source, "party 'p'", 0, 1}, "cpu"); });
        QVERIFY2(why.contains("holds label 2") && why.contains("training.classes"), qPrintable(why));
        s = ownDataSettings(m_model);
        s.classes = 5;  // the model returns 3 logits
        why = message([&] { (void)LocalTrainer(s, TrainingData{source, "party 'p'", 0, 1}, "cpu"); });
        QVERIFY2(why.contains("1 x 3") || why.contains("2 x 3"), qPrintable(why));
        QVERIFY2(why.contains("batch x 5 (training.classes"), qPrintable(why));
        s = ownDataSettings(m_model);
        s.modelSha256 = QString(64, QLatin1Char('0'));
        why = message([&] { (void)FlatModel(s, torch::kCPU); });
        QVERIFY2(why.contains("SHA-256 differs"), qPrintable(why));
        why = message([&] {
            (void)LocalTrainer(ownDataSettings(m_model), TrainingData{DataSource{"npy", m_dir.filePath("none"), {}}, "party 'q'", 0, 1},
                               "cpu");
        });
        QVERIFY2(why.startsWith("party 'q''s data: "), qPrintable(why));
    }

    // A TorchScript model's own error (the interpreter's, a std::runtime_error, not LibTorch's)
    // is a TrainError naming the party, in one line; as is a model whose outputs cannot learn.
    void aScriptedModelsErrorsAreNamed() {
        const auto save = [this](const char* name, const char* forward) {
            torch::jit::Module net("Net");
            net.register_attribute("training", c10::BoolType::get(), true);
            net.register_parameter("w", torch::randn({kClasses, 7}).requires_grad_(), false);
            net.define(forward);
            const QString file = m_dir.filePath(name);
            net.save(file.toStdString());
            return file;
        };
        const DataSource source{"npy", m_data, {}};
        QString why = message([&] {
            (void)LocalTrainer(
                ownDataSettings(save("narrow.pt", "def forward(self, x):\n    return torch.linear(torch.flatten(x, 1), self.w)\n")),
                TrainingData{source, "party 'p'", 0, 1}, "cpu");
        });
        QVERIFY2(why.contains("the model does not take party 'p''s samples (1 x 12 x 12 each)") && why.contains("144") &&
                     !why.contains('\n') && !why.contains("TorchScript interpreter"),
                 qPrintable(why));
        why = message([&] {
            (void)LocalTrainer(
                ownDataSettings(save("cut.pt", "def forward(self, x):\n    return torch.zeros([x.size(0), 3]) + self.w.sum().detach()\n")),
                TrainingData{source, "party 'p'", 0, 1}, "cpu");
        });
        QVERIFY2(why.contains("party 'p''s samples do not depend on its parameters"), qPrintable(why));
        // Half logits pass the check and fail the step (no CPU loss takes them): named too.
        LocalTrainer half(
            ownDataSettings(save("half.pt", "def forward(self, x):\n    return torch.linear(torch.flatten(x, 1)[:, :7], self.w).half()\n")),
            TrainingData{source, "party 'p'", 0, 1}, "cpu");
        why = message([&] { (void)half.trainRound(); });
        QVERIFY2(why.contains("the model failed a training step on party 'p''s samples: ") && !why.contains('\n'), qPrintable(why));
    }

    // The ESync seed's networks, scripted in PyTorch by torchvision (Debian's python3-torchvision):
    // each loads, is checked on 3 x 32 x 32 data, trains a round and evaluates.
    void torchvisionNetsTrain() {
        // (scripts/gpu-check.sh's GPU hosts have no Debian packages to install, and say so.)
        if (qEnvironmentVariableIsSet("HIPS_TEST_NO_DEBIAN_PYTHON")) QSKIP("this host has no Debian python3-torchvision");
        QProcess python;
        python.start("/usr/bin/python3", {HIPS_SOURCE_DIR "/tests/train/make_torchvision_models.py", m_dir.path(), "10"});
        QVERIFY(python.waitForFinished(600000));
        QVERIFY2(python.exitCode() == 0,
                 qPrintable("install python3-torchvision (scripts/setup.sh does): " + python.readAllStandardError()));
        const QByteArray counts = python.readAllStandardOutput();
        torch::manual_seed(5);
        const int64_t n = 16;
        const torch::Tensor x = torch::rand({n, 3, 32, 32});
        const torch::Tensor y = torch::randint(0, 10, {n}, torch::kInt64);
        const QString data = m_dir.filePath("rgb");
        QVERIFY(QDir().mkpath(data));
        QVERIFY(writeNpy(data + "/x.npy", "<f4", {n, 3, 32, 32}, x.data_ptr<float>(), size_t(x.numel()) * 4));
        QVERIFY(writeNpy(data + "/y.npy", "<i8", {n}, y.data_ptr<int64_t>(), size_t(n) * 8));
        for (const char* name : {"resnet50", "mobilenet_v2"}) {
            TrainingSettings s = ownDataSettings(m_dir.filePath(QString(name) + ".pt"));
            s.inputShape = {3, 32, 32};
            s.classes = 10;
            s.localIters = 1;
            s.batchSize = 8;
            const ScriptModelInfo info = inspectScriptModel(s.modelFile);
            QVERIFY2(counts.contains(QByteArray(name) + ' ' + QByteArray::number(qint64(info.parameters))), counts.constData());
            s.modelTensors = info.tensors;
            s.modelBufferTensors = int(info.bufferTensors);
            s.modelSha256 = info.sha256;
            LocalTrainer trainer(s, TrainingData{DataSource{"npy", data, {}}, "party 'p'", 0, 1}, "cpu");
            const RoundStats round = trainer.trainRound();
            QVERIFY2(std::isfinite(round.loss) && round.loss > 0, name);
            std::vector<float> w(trainer.parameterCount());
            trainer.writeWeights(w.data());
            s.evaluationData = DataSource{"npy", data, {}};
            ModelEvaluator evaluator(s, "cpu");
            QCOMPARE(evaluator.evaluate(w.data()).samples, n);
        }
    }

    void unreadableModelsAreRefused() {
        const QString corrupt = m_dir.filePath("corrupt.pt");
        QFile f(corrupt);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("PK\x03\x04 this is not a zip archive");
        f.close();
        QString why = message([&] { (void)inspectScriptModel(corrupt); });
        QVERIFY2(why.contains("cannot load the TorchScript model " + corrupt) && why.contains("LibTorch"), qPrintable(why));
        why = message([&] { (void)fileSha256(QStringLiteral("/dev/zero")); });  // (hashed for ever)
        QVERIFY2(why.contains("/dev/zero is not a regular file"), qPrintable(why));
        torch::jit::Module empty("Empty");
        empty.register_attribute("training", c10::BoolType::get(), true);
        empty.define("def forward(self, x):\n    return x\n");
        const QString noParameters = m_dir.filePath("empty.pt");
        empty.save(noParameters.toStdString());
        why = message([&] { (void)inspectScriptModel(noParameters); });
        QVERIFY2(why.contains("no floating-point parameters"), qPrintable(why));
        why = message([&] { (void)inspectScriptModel(m_dir.filePath("missing.pt")); });
        QVERIFY2(why.contains("does not exist"), qPrintable(why));
    }

    // What a file holds that hips would train otherwise than saved is refused, naming it: a
    // parameter frozen among trained ones, a float64 buffer (neither averaged nor kept). Names
    // that flatten alike ("conv.1.weight", "conv_1.weight") and an empty probe tensor load.
    void modelsThatWouldTrainOtherwiseAreRefused() {
        const auto save = [this](const char* name, const std::function<void(torch::jit::Module&)>& add) {
            torch::jit::Module net("Net");
            net.register_attribute("training", c10::BoolType::get(), true);
            net.register_parameter("w", torch::randn({kClasses, kSide * kSide}).requires_grad_(), false);
            add(net);
            net.define("def forward(self, x):\n    return torch.linear(torch.flatten(x, 1), self.w)\n");
            const QString file = m_dir.filePath(name);
            net.save(file.toStdString());
            return file;
        };
        QString why = message([&] {
            (void)inspectScriptModel(
                save("frozen.pt", [](torch::jit::Module& m) { m.register_parameter("b", torch::zeros({kClasses}), false); }));
        });
        QVERIFY2(why.contains("parameter b is frozen (requires_grad False) while w trains"), qPrintable(why));
        why = message([&] {
            (void)inspectScriptModel(
                save("double.pt", [](torch::jit::Module& m) { m.register_buffer("mean", torch::zeros({3}, torch::kFloat64)); }));
        });
        QVERIFY2(why.contains("buffer mean is Double"), qPrintable(why));
        const ScriptModelInfo alike = inspectScriptModel(save("alike.pt", [](torch::jit::Module& m) {
            m.register_parameter("probe", torch::empty({0}).requires_grad_(), false);
            torch::jit::Module conv("Conv"), one("One"), other("Other");
            for (torch::jit::Module* sub : {&conv, &one, &other}) sub->register_attribute("training", c10::BoolType::get(), true);
            one.register_parameter("weight", torch::ones({2}).requires_grad_(), false);
            other.register_parameter("weight", torch::ones({3}).requires_grad_(), false);
            conv.register_module("1", one);
            m.register_module("conv", conv);
            m.register_module("conv_1", other);
        }));
        QCOMPARE(alike.tensors, (std::vector<size_t>{size_t(kClasses * kSide * kSide), 0, 2, 3}));
    }

    // A buffer that is not float32 (BatchNorm's int64 batch count, here one the logits are
    // divided by) goes on with the worker's state: the resumed steps are bit for bit the
    // uninterrupted ones. Without it the count restarted at the file's 0.
    void aWorkersOwnBuffersGoOnWithItsState() {
        torch::jit::Module net("Counting");
        net.register_attribute("training", c10::BoolType::get(), true);
        net.register_parameter("w", torch::randn({kClasses, kSide * kSide}) * 0.01, false);
        net.register_buffer("count", torch::zeros({}, torch::kInt64));
        net.define(R"(
def forward(self, x):
    self.count.add_(1)
    return torch.linear(torch.flatten(x, 1), self.w) / self.count.float()
)");
        const QString file = m_dir.filePath("counting.pt");
        net.save(file.toStdString());
        const TrainingSettings s = ownDataSettings(file);
        const TrainingData data{DataSource{"npy", m_data, {}}, "party 'p'", 0, 1};
        LocalTrainer first(s, data, "cpu");
        first.trainSteps(5);
        std::vector<float> w(first.parameterCount()), expected(w.size()), resumed(w.size());
        first.writeWeights(w.data());
        const QByteArray state = first.saveState();
        first.trainSteps(3);
        first.writeWeights(expected.data());
        LocalTrainer second(s, data, "cpu");
        second.loadState(state);
        second.setWeights(w.data());
        second.trainSteps(3);
        second.writeWeights(resumed.data());
        QVERIFY(std::memcmp(resumed.data(), expected.data(), w.size() * sizeof(float)) == 0);
    }

    // A shard one sample over a whole number of batches: that sample is left to the next epoch's
    // order, not trained alone. BatchNorm after a linear layer (one value per channel) cannot
    // train on one sample, and the worker ended at the first epoch's end.
    void aLastBatchOfOneSampleIsLeftToTheNextEpoch() {
        torch::jit::Module net("Tabular");
        net.register_attribute("training", c10::BoolType::get(), true);
        net.register_parameter("w", torch::randn({kClasses, kSide * kSide}) * 0.01, false);
        net.register_parameter("bn_w", torch::ones({kClasses}), false);
        net.register_parameter("bn_b", torch::zeros({kClasses}), false);
        net.register_buffer("bn_mean", torch::zeros({kClasses}));
        net.register_buffer("bn_var", torch::ones({kClasses}));
        net.define(R"(
def forward(self, x):
    y = torch.linear(torch.flatten(x, 1), self.w)
    assert not (self.training and y.size(0) == 1), "Expected more than 1 value per channel when training"
    return torch.batch_norm(y, self.bn_w, self.bn_b, self.bn_mean, self.bn_var, self.training, 0.1, 1e-5, False)
)");  // (the check is F.batch_norm's, which a scripted nn.BatchNorm1d runs)
        const QString file = m_dir.filePath("tabular.pt");
        net.save(file.toStdString());
        TrainingSettings s = ownDataSettings(file);
        s.batchSize = 599;  // the shard's 600 samples: a batch and one left over
        s.localIters = 0;
        s.localEpochs = 3;
        LocalTrainer trainer(s, TrainingData{DataSource{"npy", m_data, {}}, "party 'p'", 0, 1}, "cpu");
        const RoundStats round = trainer.trainRound();
        QCOMPARE(round.steps, int64_t(3));
        QCOMPARE(round.samples, int64_t(3 * 599));
        QVERIFY(std::isfinite(round.loss));
    }

    // A traced net's dropout and BatchNorm keep the mode it was traced in (their flag a constant,
    // where a scripted net reads self.training): evaluated with dropout on, or trained with
    // BatchNorm frozen, silently. Refused, naming the op; the same net reading self.training
    // (in a submodule: its forward is looked into) loads.
    void aNetWhoseModeIsFixedIsRefused() {
        const auto save = [this](const char* name, const char* training) {
            torch::jit::Module inner("Inner"), net("Net");
            inner.register_attribute("training", c10::BoolType::get(), true);
            inner.define(QStringLiteral("def forward(self, x):\n    return torch.dropout(x, 0.5, %1)\n").arg(training).toStdString());
            net.register_attribute("training", c10::BoolType::get(), true);
            net.register_parameter("w", torch::randn({kClasses, kSide * kSide}), false);
            net.register_module("drop", inner);
            net.define("def forward(self, x):\n    return torch.linear(self.drop.forward(torch.flatten(x, 1)), self.w)\n");
            const QString file = m_dir.filePath(name);
            net.save(file.toStdString());
            return file;
        };
        const QString traced = save("traced.pt", "True");
        const QString why = message([&] { (void)inspectScriptModel(traced); });
        QVERIFY2(why.contains(traced) && why.contains("dropout runs in one mode") && why.contains("torch.jit.script"), qPrintable(why));
        QCOMPARE(inspectScriptModel(save("scripted.pt", "self.training")).tensors.size(), size_t(1));
    }
};

QTEST_GUILESS_MAIN(OwnDataTest)
#include "tst_owndata.moc"
