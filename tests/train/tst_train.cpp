// Training side: the IDX loader on files made here, the missing-data message, IID shards,
// devices, and that local training actually learns.
#include "Dataset.h"
#include "IdxCache.h"
#include "FlatModel.h"
#include "LocalTrainer.h"
#include "ModelRegistry.h"
#include "Models.h"
#include "ServerOptimizer.h"
#include "ModelFrame.h"
#include "TrainError.h"

#include <QCryptographicHash>
#include <QTemporaryDir>
#include <QtTest>
#include <cstring>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <mutex>
#include <optional>
#include <random>
#include <stdexcept>
#include <thread>
#include <zlib.h>

using namespace hips;

namespace {

void writeGz(const QString& path, const std::vector<uint8_t>& bytes) {
    gzFile f = gzopen(path.toLocal8Bit().constData(), "wb");
    gzwrite(f, bytes.data(), unsigned(bytes.size()));
    gzclose(f);
}

std::vector<uint8_t> idxHeader(uint8_t dims, std::vector<uint32_t> shape) {
    std::vector<uint8_t> h{0, 0, 0x08, dims};
    for (uint32_t d : shape)
        for (int shift : {24, 16, 8, 0}) h.push_back(uint8_t(d >> shift));
    return h;
}

// A tiny Fashion-MNIST look-alike: `n` images whose pixels all equal their label.
void writeFakeMnist(const QString& dir, const QString& prefix, uint32_t n) {
    std::vector<uint8_t> images = idxHeader(3, {n, 28, 28}), labels = idxHeader(1, {n});
    for (uint32_t i = 0; i < n; ++i) {
        labels.push_back(uint8_t(i % 10));
        images.insert(images.end(), 28 * 28, uint8_t(i % 10));
    }
    writeGz(dir + "/" + prefix + "-images-idx3-ubyte.gz", images);
    writeGz(dir + "/" + prefix + "-labels-idx1-ubyte.gz", labels);
}

// A tiny CIFAR-10 look-alike in the binary format: record i has label i % 10, red plane 10·label,
// green 20, blue 30.
QString writeFakeCifar(const QString& dir, const QString& name, int records) {
    QByteArray bytes;
    for (int i = 0; i < records; ++i) {
        bytes += char(i % 10);
        for (char plane : {char(10 * (i % 10)), char(20), char(30)}) bytes += QByteArray(32 * 32, plane);
    }
    QFile f(dir + '/' + name);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size()) return {};
    return f.fileName();
}

// A stored member of a zip archive (what a worker's state is: LibTorch's archive), found by a test
// on its contents and rewritten in place with its CRC-32 made again in both headers, so that the
// reader takes it: a damaged state as someone with the file could make it. False if none matches.
// A state with its trailing SHA-256 made again after its archive changed: what someone who can
// write the file could make (the checksum stops damage, not them).
QByteArray rehashed(QByteArray archive) {
    return archive + QCryptographicHash::hash(archive, QCryptographicHash::Sha256);
}

bool rewriteZipMember(QByteArray& zip, const std::function<bool(QByteArray&)>& edit) {
    const auto u16 = [&](qsizetype at) { return quint32(quint8(zip[at])) | quint32(quint8(zip[at + 1])) << 8; };
    const auto u32 = [&](qsizetype at) { return u16(at) | u16(at + 2) << 16; };
    const auto put32 = [&](qsizetype at, quint32 v) {
        for (int i = 0; i < 4; ++i) zip[at + i] = char(v >> (8 * i));
    };
    const qsizetype end = zip.lastIndexOf(QByteArray("PK\x05\x06", 4));
    if (end < 0) return false;
    qsizetype entry = u32(end + 16);
    for (quint32 i = 0, n = u16(end + 10); i < n && u32(entry) == 0x02014b50; ++i) {
        const qsizetype local = u32(entry + 42), size = u32(entry + 24);
        const qsizetype data = local + 30 + u16(local + 26) + u16(local + 28);
        QByteArray member = zip.mid(data, size);
        if (u16(entry + 10) == 0 && edit(member) && member.size() == size) {  // stored, not deflated
            zip.replace(data, size, member);
            const quint32 crc = quint32(crc32(0, reinterpret_cast<const Bytef*>(member.constData()), uInt(size)));
            put32(entry + 16, crc);
            put32(local + 14, crc);
            return true;
        }
        entry += 46 + u16(entry + 28) + u16(entry + 30) + u16(entry + 32);
    }
    return false;
}

}  // namespace

class TrainTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Decoded IDX files go to this test's own cache, not the user's.
    void initTestCase() {
        QVERIFY(m_cache.isValid());
        qputenv("XDG_CACHE_HOME", QFile::encodeName(m_cache.path()));
    }

    // The .gz is decoded once into the private cache; trainers loading at once share that one
    // file; a changed source gets a new entry, never the stale one.
    void idxFilesAreDecodedOncePerHost() {
        QTemporaryDir dir;
        writeFakeMnist(dir.path(), "train", 40);
        std::vector<std::thread> trainers;
        std::atomic<int64_t> loaded{0};
        for (int part = 0; part < 4; ++part)
            trainers.emplace_back([&, part] { loaded += loadFashionMnist(dir.path(), Split::Train, part, 4, 5).size(); });
        for (std::thread& t : trainers) t.join();
        QCOMPARE(loaded.load(), int64_t(40));
        const QDir cache(idxCacheDir());
        QCOMPARE(cache.entryList({"train-*.idx"}).size(), 2);  // images and labels, once each
        QCOMPARE(QFileInfo(cache.path()).permissions() & (QFile::ReadOther | QFile::ReadGroup), QFile::Permissions());
        writeFakeMnist(dir.path(), "train", 30);
        QCOMPARE(loadFashionMnist(dir.path(), Split::Train).size(), 30);
        QCOMPARE(cache.entryList({"train-*.idx"}).size(), 4);
    }

    // Servers bound what they accept by the flat size of the run's model, which they know
    // without LibTorch (ModelFrame.cpp): it must be what the trainer really sends.
    void wireModelSizesMatchTheTrainer() {
        for (const QString model : {"mlp", "cnn"}) {
            TrainingSettings s;
            s.dataset = "synthetic";
            s.syntheticSamples = 64;
            s.model = model;
            QCOMPARE(LocalTrainer(s, 0, 1, "cpu").parameterCount(), hips::modelParameterCount(s));
        }
        TrainingSettings unknown;
        unknown.model = "no-such-model";
        QCOMPARE(hips::modelParameterCount(unknown), size_t(0));
    }

    // Every registered model, for both image shapes: the registry's tensor sizes (what servers
    // bound pushes by) are the net's parameters then its float buffers, the flat model holds them
    // all, and a batch gives 10 logits. ResNet-18's BatchNorm statistics are in the flat model,
    // so loading weights sets them too.
    void everyModelMatchesTheRegistryForEveryShape() {
        for (const QString dataset : {"fashion-mnist", "cifar10"})
            for (const StrategyInfo& m : ModelRegistry::all()) {
                const InputShape in = DatasetRegistry::inputShape(dataset);
                FlatModel model(m.name, in, torch::kCPU, 1);
                std::vector<size_t> sizes;
                for (const torch::Tensor& p : model.net().parameters()) sizes.push_back(size_t(p.numel()));
                for (const torch::Tensor& b : model.net().buffers())
                    if (b.scalar_type() == torch::kFloat32) sizes.push_back(size_t(b.numel()));
                QCOMPARE(sizes, ModelRegistry::tensorSizes(m.name, dataset));
                QCOMPARE(size_t(model.parameterCount()), ModelRegistry::parameterCount(m.name, dataset));
                model.net().eval();
                const torch::Tensor logits = model.net().forward(torch::randn({2, in.channels, in.size, in.size}));
                QCOMPARE(logits.sizes().vec(), (std::vector<int64_t>{2, 10}));
            }
        FlatModel resnet("resnet18", DatasetRegistry::inputShape("cifar10"), torch::kCPU, 1);
        std::vector<float> weights = resnet.weights();
        std::fill(weights.begin(), weights.end(), 0.5f);
        resnet.load(weights.data());
        for (const torch::Tensor& b : resnet.net().buffers())
            if (b.scalar_type() == torch::kFloat32) QCOMPARE(b.flatten()[0].item<float>(), 0.5f);
        QCOMPARE(ModelRegistry::parameterCount("resnet18", "cifar10") > 11000000, true);
        // A server optimizer steps the weights only: ResNet-18's flat model starts its statistics
        // at the registry's trainable floats, which the cnn (no BatchNorm) has none beyond.
        const ModelSpec resnetSpec{"resnet18", DatasetRegistry::inputShape("cifar10"), 10, {}};
        const size_t trainable = ModelRegistry::trainableFloats(resnetSpec);
        size_t weightFloats = 0;
        for (const torch::Tensor& p : resnet.net().parameters()) weightFloats += size_t(p.numel());
        QVERIFY2(trainable >= weightFloats && trainable < weightFloats + 16 * resnet.net().parameters().size(),
                 qPrintable(QString("%1 trainable floats for %2 weights").arg(trainable).arg(weightFloats)));
        QVERIFY(trainable < ModelRegistry::parameterCount(resnetSpec));
        const ModelSpec cnn{"cnn", DatasetRegistry::inputShape("fashion-mnist"), 10, {}};
        QCOMPARE(ModelRegistry::trainableFloats(cnn), ModelRegistry::parameterCount(cnn));
    }

    // Dropout's masks come from the generator the calling thread names (ThreadDropoutGenerator):
    // the masks LibTorch's own dropout draws from the same state (a saved worker state goes on as
    // before), whatever another thread draws meanwhile (the workers of a shared trainer).
    void dropoutDrawsFromTheThreadsOwnGenerator() {
        const InputShape in = DatasetRegistry::inputShape("cifar10");
        const std::shared_ptr<Net> net = createNet("alexnet", in);
        net->train();
        const torch::Tensor x = torch::randn({2, in.channels, in.size, in.size});
        auto forwards = [&](uint64_t seed, int times) {
            at::Generator own = torch::make_generator<at::CPUGeneratorImpl>(seed);
            const ThreadDropoutGenerator scope(own);
            torch::NoGradGuard noGrad;
            std::vector<torch::Tensor> out;
            for (int i = 0; i < times; ++i) out.push_back(net->forward(x));
            return out;
        };
        torch::Tensor libtorchs;
        {
            at::Generator global = at::detail::getDefaultCPUGenerator();
            global.set_state(torch::make_generator<at::CPUGeneratorImpl>(7).get_state());
            torch::NoGradGuard noGrad;
            libtorchs = net->forward(x);
        }
        QVERIFY(torch::equal(forwards(7, 1)[0], libtorchs));
        const std::vector<torch::Tensor> alone11 = forwards(11, 12), alone12 = forwards(12, 12);
        QVERIFY(!torch::equal(alone11[0], alone12[0]));  // (other seeds, other masks)
        std::vector<torch::Tensor> together11, together12;
        std::thread a([&] { together11 = forwards(11, 12); }), b([&] { together12 = forwards(12, 12); });
        a.join();
        b.join();
        for (size_t i = 0; i < alone11.size(); ++i) {
            QVERIFY(torch::equal(together11[i], alone11[i]));
            QVERIFY(torch::equal(together12[i], alone12[i]));
        }
    }

    // CIFAR-10's binary batches: labels and channel planes where they belong, normalised per
    // channel, shards cut by the partition; a missing or cut file named with what to do.
    void loadsCifar10Batches() {
        QTemporaryDir dir;
        for (int i = 1; i <= 5; ++i) QVERIFY(!writeFakeCifar(dir.path(), QString("data_batch_%1.bin").arg(i), 20).isEmpty());
        QVERIFY(!writeFakeCifar(dir.path(), "test_batch.bin", 10).isEmpty());
        const Dataset train = loadCifar10(dir.path(), Split::Train);
        QCOMPARE(train.images.sizes().vec(), (std::vector<int64_t>{100, 3, 32, 32}));
        QCOMPARE(train.labels[13].item<int64_t>(), 3);
        QCOMPARE(train.images[13][0][5][7].item<float>(), (30.0f / 255.0f - 0.4914f) / 0.2470f);  // red: 10·label
        QCOMPARE(train.images[13][2][0][0].item<float>(), (30.0f / 255.0f - 0.4465f) / 0.2616f);  // blue: 30
        QCOMPARE(loadCifar10(dir.path(), Split::Test).size(), 10);
        PartitionSpec byClass{"by_class", 2, 0};
        const Dataset shard = loadCifar10(dir.path(), Split::Train, 1, 5, 1, byClass);
        QCOMPARE(shard.size(), 20);
        QCOMPARE(std::get<0>(at::_unique(shard.labels)).numel(), 2);

        TrainingSettings s;
        s.dataset = "cifar10";
        s.dataDir = dir.path();
        s.model = "cnn";
        s.localIters = 2;
        LocalTrainer trainer(s, 0, 2, "cpu");
        QCOMPARE(trainer.shardSize(), 50);
        QCOMPARE(trainer.trainRound().samples, 100);  // a batch of 64 is cut to the shard's 50, twice

        QFile::resize(dir.filePath("data_batch_3.bin"), 3073 * 4 + 100);
        try {
            loadCifar10(dir.path(), Split::Train);
            QFAIL("no error for a cut file");
        } catch (const TrainError& e) {
            QVERIFY2(QString(e.what()).contains("data_batch_3.bin is not a CIFAR-10 binary batch"), e.what());
        }
        try {
            loadCifar10(dir.filePath("nothing"), Split::Test);
            QFAIL("no error for a missing data set");
        } catch (const TrainError& e) {
            QVERIFY2(QString(e.what()).contains("cifar-10-batches-bin") && QString(e.what()).contains("data_dir"), e.what());
        }
    }

    void loadsIdxGz() {
        QTemporaryDir dir;
        writeFakeMnist(dir.path(), "t10k", 25);
        const Dataset d = loadFashionMnist(dir.path(), Split::Test);
        QCOMPARE(d.size(), 25);
        QCOMPARE(d.images.sizes(), (c10::IntArrayRef{25, 1, 28, 28}));
        QCOMPARE(d.labels[13].item<int64_t>(), 3);
        // pixel value 3 normalised with the Fashion-MNIST mean/std
        QVERIFY(std::abs(d.images[13][0][5][5].item<float>() - float((3 / 255.0 - 0.2860) / 0.3530)) < 1e-5f);
    }

    void shardsAreCutBeforeConversion() {
        QTemporaryDir dir;
        writeFakeMnist(dir.path(), "train", 40);
        std::vector<int> perLabel(10, 0);
        int64_t total = 0;
        for (int part = 0; part < 3; ++part) {
            const Dataset d = loadFashionMnist(dir.path(), Split::Train, part, 3, 5);
            total += d.size();
            for (int64_t i = 0; i < d.size(); ++i) {
                const int64_t label = d.labels[i].item<int64_t>();
                ++perLabel[size_t(label)];
                // images stay paired with their labels (every pixel of image i equals its label)
                QVERIFY(std::abs(d.images[i][0][0][0].item<float>() - float((label / 255.0 - 0.2860) / 0.3530)) < 1e-5f);
            }
        }
        QCOMPARE(total, 40);
        for (int c : perLabel) QCOMPARE(c, 4);
    }

    void truncatedIdxIsRejected() {
        QTemporaryDir dir;
        writeFakeMnist(dir.path(), "t10k", 5);
        std::vector<uint8_t> labels = idxHeader(1, {9});  // promises 9 labels, holds 2
        labels.push_back(1);
        labels.push_back(2);
        writeGz(dir.path() + "/t10k-labels-idx1-ubyte.gz", labels);
        try {
            loadFashionMnist(dir.path(), Split::Test);
            QFAIL("a truncated file was accepted");
        } catch (const TrainError& e) {
            QVERIFY2(QString(e.what()).contains("promises 9 bytes"), e.what());
        }
    }

    void missingDataNamesThePackage() {
        try {
            loadFashionMnist("/nonexistent/fmnist", Split::Train);
            QFAIL("no error for a missing data set");
        } catch (const TrainError& e) {
            QVERIFY2(QString(e.what()).contains("dataset-fashion-mnist"), e.what());
        }
    }

    void iidShardsAreDisjointAndCoverAll() {
        std::vector<int> seen(103, 0);
        for (int part = 0; part < 4; ++part) {
            const torch::Tensor s = iidShard(103, part, 4, 7);
            QVERIFY(s.size(0) == 25 || s.size(0) == 26);
            for (int64_t i = 0; i < s.size(0); ++i) ++seen[size_t(s[i].item<int64_t>())];
        }
        for (int c : seen) QCOMPARE(c, 1);
    }

    // The last permutation is kept for the next worker of the process; another seed or size
    // draws anew, and coming back to the first draws what it drew.
    void iidShardsDoNotDependOnTheDrawBefore() {
        const torch::Tensor first = iidShard(103, 1, 4, 7);
        QVERIFY(!iidShard(103, 1, 4, 8).equal(first));
        QVERIFY(!iidShard(97, 1, 4, 7).equal(first.slice(0, 0, 24)));
        QVERIFY(iidShard(103, 1, 4, 7).equal(first));
        torch::manual_seed(7);  // what the process-wide generator drew before shards had their own
        QVERIFY(torch::randperm(103, torch::kInt64).slice(0, 103 / 4, 103 * 2 / 4).equal(first));
    }

    void cudaIsRefusedWithoutCuda() {
        if (torchHasCuda()) QSKIP("this LibTorch build has CUDA and sees a GPU");
        try {
            LocalTrainer t(TrainingSettings{}, 0, 1, "cuda:0");
            QFAIL("cuda accepted without CUDA");
        } catch (const TrainError& e) {
            QVERIFY2(QString(e.what()).contains("set the role's device to cpu"), e.what());
        }
    }

    void localTrainingLearnsAndDeltaIsScaled() {
        TrainingSettings s;
        s.dataset = "synthetic";
        s.model = "mlp";
        s.syntheticSamples = 1024;
        s.localIters = 40;
        setTorchThreads(1);
        LocalTrainer trainer(s, 0, 2, "cpu");
        ModelEvaluator evaluator(s, "cpu");
        QCOMPARE(trainer.parameterCount(), evaluator.parameterCount());
        QCOMPARE(trainer.shardSize(), 512);
        const std::vector<float> w0 = evaluator.initialWeights();
        const double before = evaluator.evaluate(w0.data()).accuracy;
        trainer.setWeights(w0.data());
        const RoundStats stats = trainer.trainRound();
        QCOMPARE(stats.samples, 40 * 64);
        std::vector<float> delta(w0.size());
        trainer.writeDelta(w0.data(), 1.0f, delta.data());
        std::vector<float> w1(w0.size());
        for (size_t i = 0; i < w0.size(); ++i) w1[i] = w0[i] + delta[i];
        const double after = evaluator.evaluate(w1.data()).accuracy;
        QVERIFY2(after > before + 0.3, qPrintable(QString("accuracy %1 -> %2").arg(before).arg(after)));
        std::vector<float> half(w0.size());
        trainer.writeDelta(w0.data(), 0.5f, half.data());
        QCOMPARE(half[17], delta[17] * 0.5f);
    }

    // Synchronous SGD's worker half: gradient() takes the step's gradient without stepping, in
    // the flat layout the wire carries; a server applying it with the same rule (MomentumSgd)
    // lands where the trainer's own optimizer does, over two steps (the second uses momentum).
    void gradientStepsMatchTheLocalOptimizer() {
        TrainingSettings s;
        s.dataset = "synthetic";
        s.model = "mlp";
        s.syntheticSamples = 512;
        s.learningRate = 0.1;
        s.momentum = 0.9;
        setTorchThreads(1);
        LocalTrainer stepping(s, 0, 1, "cpu"), pushing(s, 0, 1, "cpu");  // same seed: the same batches
        const std::vector<float> w0 = ModelEvaluator(s, "cpu").initialWeights();
        stepping.setWeights(w0.data());
        std::vector<float> w = w0, g(w0.size());
        MomentumSgd server(float(s.learningRate), float(s.momentum));
        for (int step = 0; step < 2; ++step) {
            QCOMPARE(stepping.step().samples, 64);
            pushing.setWeights(w.data());
            QCOMPARE(pushing.gradient().samples, 64);
            pushing.writeGradient(1.0f, g.data());
            server.step(w.data(), w.data(), g.data(), w.size());
        }
        std::vector<float> local(w0.size());
        stepping.writeWeights(local.data());
        double maxDiff = 0, moved = 0;
        for (size_t i = 0; i < w.size(); ++i) {
            maxDiff = std::max(maxDiff, double(std::abs(local[i] - w[i])));
            moved = std::max(moved, double(std::abs(w[i] - w0[i])));
        }
        QVERIFY2(moved > 1e-3, "the steps did not move the weights");
        QVERIFY2(maxDiff < 1e-5, qPrintable(QString("server and trainer differ by %1").arg(maxDiff)));
    }

    // A worker's state (momentum, data order and position, generators) saved after some steps and
    // loaded into a fresh trainer makes the next steps bit-identical to the ones the first trainer
    // takes: what a resumed run relies on. Without it the fresh trainer's steps differ.
    void savedStateContinuesBitForBit() {
        const TrainingSettings s = smallMlp();
        setTorchThreads(1);
        LocalTrainer first(s, 0, 1, "cpu");
        first.trainSteps(11);  // past an epoch's end (8 batches): a reshuffle happened
        std::vector<float> w(first.parameterCount()), expected(w.size()), resumed(w.size()), fresh(w.size());
        first.writeWeights(w.data());
        const QByteArray state = first.saveState();
        first.trainSteps(6);
        first.writeWeights(expected.data());

        LocalTrainer second(s, 0, 1, "cpu"), third(s, 0, 1, "cpu");
        second.loadState(state);
        for (LocalTrainer* t : {&second, &third}) {
            t->setWeights(w.data());
            t->trainSteps(6);
        }
        second.writeWeights(resumed.data());
        third.writeWeights(fresh.data());
        QVERIFY(std::memcmp(resumed.data(), expected.data(), w.size() * sizeof(float)) == 0);
        QVERIFY(std::memcmp(fresh.data(), expected.data(), w.size() * sizeof(float)) != 0);

        LocalTrainer otherShard(s, 0, 2, "cpu");
        QVERIFY_THROWS_EXCEPTION(TrainError, otherShard.loadState(state));
        QVERIFY_THROWS_EXCEPTION(TrainError, otherShard.loadState("not an archive"));
    }

    // hips simulate parks a worker's trainer between its turns: its weights' memory goes back, and
    // the next turn's setWeights takes it again. The turns after a park train exactly what an
    // unparked trainer trains (the momentum and the data order are kept); the weights cannot be
    // read while parked.
    void aParkedTrainerTrainsOnAsIfNeverParked() {
        const TrainingSettings s = smallMlp();
        setTorchThreads(1);
        LocalTrainer parked(s, 0, 1, "cpu"), kept(s, 0, 1, "cpu");
        std::vector<float> global(parked.parameterCount()), a(global.size()), b(global.size());
        parked.writeWeights(global.data());
        for (int turn = 0; turn < 3; ++turn) {
            for (LocalTrainer* t : {&parked, &kept}) {
                t->setWeights(global.data());
                t->trainSteps(5);
            }
            parked.writeDelta(global.data(), 1.0f, a.data());
            kept.writeDelta(global.data(), 1.0f, b.data());
            QVERIFY2(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0, qPrintable(QString("turn %1").arg(turn)));
            parked.park();
            parked.releaseWeights();
            QVERIFY_THROWS_EXCEPTION(TrainError, parked.writeWeights(a.data()));
            for (size_t i = 0; i < global.size(); ++i) global[i] += 0.5f * b[i];  // the next round's model
        }
    }

    // A damaged state is refused, naming what: a momentum of NaNs (it would train with loss NaN
    // every round); and no state is larger than the bound a worker reads a state file to.
    void aDamagedStateIsRefused() {
        const TrainingSettings s = smallMlp();
        setTorchThreads(1);
        LocalTrainer first(s, 0, 1, "cpu");
        first.trainSteps(3);
        const QByteArray state = first.saveState();
        QVERIFY(state.size() <= first.stateBytesBound());

        LocalTrainer fresh(s, 0, 1, "cpu");
        QString why;
        // Weights of NaN: the next step's momentum is NaN, and a state saved then is refused.
        LocalTrainer diverged(s, 0, 1, "cpu");
        std::vector<float> nan(diverged.parameterCount(), std::numeric_limits<float>::quiet_NaN());
        diverged.setWeights(nan.data());
        diverged.trainSteps(1);
        try {
            fresh.loadState(diverged.saveState());
        } catch (const TrainError& e) {
            why = e.what();
        }
        QVERIFY2(why.contains("momentum holds NaN"), qPrintable(why));
    }

    // A state whose data order is not an order of the shard (a sample twice, one never) is
    // refused, though its archive is whole: it would train on some samples twice an epoch.
    void aDamagedDataOrderIsRefused() {
        const TrainingSettings s = smallMlp();
        setTorchThreads(1);
        LocalTrainer first(s, 0, 1, "cpu");
        first.trainSteps(3);
        QByteArray state = first.saveState().chopped(32);  // the archive, without its SHA-256
        const bool found = rewriteZipMember(state, [](QByteArray& member) {
            if (member.size() != 512 * 8) return false;  // the order: 512 int64 sample indices
            std::vector<qint64> order(512);
            std::memcpy(order.data(), member.constData(), 512 * 8);
            std::vector<qint64> sorted = order;
            std::sort(sorted.begin(), sorted.end());
            for (qint64 i = 0; i < 512; ++i)
                if (sorted[size_t(i)] != i) return false;
            order[1] = order[0];
            std::memcpy(member.data(), order.data(), 512 * 8);
            return true;
        });
        QVERIFY2(found, "no member of the state holds the data order");
        LocalTrainer fresh(s, 0, 1, "cpu");
        const auto refusal = [&](const QByteArray& bytes) {
            try {
                fresh.loadState(bytes);
            } catch (const TrainError& e) {
                return QString::fromUtf8(e.what());
            }
            return QString();
        };
        QVERIFY2(refusal(rehashed(state)).contains("data order is not an order"), qPrintable(refusal(rehashed(state))));
        // With the checksum it had: refused as damaged before anything in it is read.
        QVERIFY(refusal(state + first.saveState().right(32)).contains("not what its checksum says"));
    }

    // Worker states as a stranger could leave them: a valid state with bytes changed, cut short or
    // zeroed at random (seeded). As they are, every one is refused (its checksum differs); with the
    // checksum made again (a crafted file) each is refused with a TrainError or loads, nothing else
    // (no crash, no other exception), and one that loads can train.
    void mangledStatesAreRefusedOrLoad() {
        const TrainingSettings s = smallMlp();
        setTorchThreads(1);
        LocalTrainer first(s, 0, 1, "cpu");
        first.trainSteps(3);
        const QByteArray archive = first.saveState().chopped(32);
        std::mt19937 rng(44);
        int refused = 0, loaded = 0;
        LocalTrainer target(s, 0, 1, "cpu");
        for (int i = 0; i < 300; ++i) {
            QByteArray bytes = archive;
            std::uniform_int_distribution<qsizetype> at(0, bytes.size() - 1);
            switch (i % 3) {
                case 0:
                    for (int k = 0; k < 1 + i % 7; ++k) bytes[at(rng)] = char(rng());
                    break;
                case 1: bytes.truncate(at(rng)); break;
                default: {
                    const qsizetype from = at(rng);
                    for (qsizetype k = from; k < std::min(bytes.size(), from + 64); ++k) bytes[k] = 0;
                }
            }
            QVERIFY_THROWS_EXCEPTION(TrainError, target.loadState(bytes + first.saveState().right(32)));
            try {
                target.loadState(rehashed(bytes));
                ++loaded;
            } catch (const TrainError&) {
                ++refused;
                continue;
            }
            target.trainSteps(1);  // (a state of the wrong shapes would throw here: refused above instead)
        }
        qInfo("300 crafted states: %d refused, %d loaded", refused, loaded);
        QVERIFY(refused > 0);
    }

    // The optimizer's options in a state (its learning rate, momentum) are not taken: a state
    // saved before any step by a run with learning rate 50 holds those options and the same data
    // order as a fresh trainer's; loaded, its steps are the fresh trainer's at 0.05, bit for bit.
    void aStateDoesNotSetTheLearningRate() {
        TrainingSettings wild = smallMlp();
        wild.learningRate = 50;
        setTorchThreads(1);
        const QByteArray state = LocalTrainer(wild, 0, 1, "cpu").saveState();
        const TrainingSettings s = smallMlp();
        LocalTrainer resumed(s, 0, 1, "cpu"), fresh(s, 0, 1, "cpu");
        resumed.loadState(state);
        std::vector<float> w(resumed.parameterCount()), a(w.size()), b(w.size());
        fresh.writeWeights(w.data());
        resumed.setWeights(w.data());
        resumed.trainSteps(2), fresh.trainSteps(2);
        resumed.writeWeights(a.data()), fresh.writeWeights(b.data());
        QVERIFY(a != w);
        QVERIFY(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
    }

private:
    // The mlp on 512 synthetic samples: a worker whose state is quick to make.
    static TrainingSettings smallMlp() {
        TrainingSettings s;
        s.dataset = "synthetic";
        s.model = "mlp";
        s.syntheticSamples = 512;
        return s;
    }

    QTemporaryDir m_cache;
};

QTEST_GUILESS_MAIN(TrainTest)
#include "tst_train.moc"
