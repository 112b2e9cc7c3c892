#include "Dataset.h"

#include "IdxCache.h"
#include "Models.h"
#include "TrainError.h"

#include <QFile>
#include <QFileInfo>
#include <mutex>
#include <utility>

namespace hips {

namespace {

uint32_t bigEndian(const uint8_t* p) {
    return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}

// An IDX file (magic 0,0,type,dims; dims x uint32 big-endian; the data), decoded once per host
// and mapped read-only (IdxCache): `view` reads the mapping without a copy and is valid while
// `file` lives.
struct IdxTensor {
    std::shared_ptr<const MappedIdx> file;
    torch::Tensor view;
};

IdxTensor readIdx(const QString& path, int expectedDims) {
    IdxTensor idx{MappedIdx::open(path), {}};
    const uint8_t* bytes = idx.file->data();
    const size_t size = size_t(idx.file->size());
    const std::string name = path.toStdString();
    if (size < 4 || bytes[0] != 0 || bytes[1] != 0 || bytes[2] != 0x08 || bytes[3] != expectedDims)
        throw TrainError(name + " is not an IDX file of unsigned bytes with " + std::to_string(expectedDims) + " dimensions");
    std::vector<int64_t> shape;
    int64_t count = 1;
    for (int d = 0; d < expectedDims; ++d) {
        if (size < size_t(8 + 4 * d)) throw TrainError(name + ": truncated IDX header");
        shape.push_back(bigEndian(&bytes[4 + 4 * d]));
        count *= shape.back();
    }
    const size_t offset = 4 + 4 * size_t(expectedDims);
    if (size != offset + size_t(count))
        throw TrainError(name + ": IDX header promises " + std::to_string(count) + " bytes, file holds " + std::to_string(size - offset));
    idx.view = torch::from_blob(const_cast<uint8_t*>(bytes + offset), shape, torch::kUInt8);
    return idx;
}

Dataset normalise(torch::Tensor images, torch::Tensor labels) {
    // Fashion-MNIST mean and standard deviation of pixel intensity.
    images = images.to(torch::kFloat32).div_(255.0).sub_(0.2860).div_(0.3530).unsqueeze(1);
    return {images.contiguous(), labels.to(torch::kInt64), {}};
}

}  // namespace

Dataset Dataset::subset(const torch::Tensor& indices) const {
    return {images.index_select(0, indices).contiguous(), labels.index_select(0, indices).contiguous(), classNames, featureNames};
}

Dataset loadFashionMnist(const QString& dir, Split split, int part, int parts, int seed, const PartitionSpec& spec) {
    const QString prefix = split == Split::Train ? "train" : "t10k";
    const QString images = dir + '/' + prefix + "-images-idx3-ubyte.gz";
    const QString labels = dir + '/' + prefix + "-labels-idx1-ubyte.gz";
    for (const QString& f : {images, labels})
        if (!QFileInfo::exists(f))
            throw TrainError("Fashion-MNIST file " + f.toStdString() +
                             " is missing; install the Debian package "
                             "dataset-fashion-mnist (apt-get install dataset-fashion-mnist) or point "
                             "training.data_dir at a folder holding the IDX .gz files");
    const IdxTensor imageFile = readIdx(images, 3), labelFile = readIdx(labels, 1);
    torch::Tensor x = imageFile.view, y = labelFile.view;
    if (x.size(0) != y.size(0) || x.size(1) != 28 || x.size(2) != 28)
        throw TrainError("Fashion-MNIST files in " + dir.toStdString() + " do not match: " + std::to_string(x.size(0)) + " images of " +
                         std::to_string(x.size(1)) + "x" + std::to_string(x.size(2)) + ", " + std::to_string(y.size(0)) + " labels");
    if (parts > 1) {  // only the shard's rows are read off the mapping
        const torch::Tensor shard = shardRows(y, part, parts, seed, spec);
        x = x.index_select(0, shard);
        y = y.index_select(0, shard);
    }
    return normalise(x, y);  // copies into new tensors: nothing refers to the mapping afterwards
}

// CIFAR-10's binary version: records of one label byte and 3 x 32 x 32 image bytes (red, green,
// blue planes), 10,000 to a file.
Dataset loadCifar10(const QString& dir, Split split, int part, int parts, int seed, const PartitionSpec& spec) {
    constexpr int64_t kRecord = 1 + 3 * 32 * 32;
    QStringList names;
    if (split == Split::Train)
        for (int i = 1; i <= 5; ++i) names << QStringLiteral("data_batch_%1.bin").arg(i);
    else names << QStringLiteral("test_batch.bin");
    std::vector<torch::Tensor> records;
    for (const QString& name : names) {
        QFile f(dir + '/' + name);
        if (!f.open(QIODevice::ReadOnly))
            throw TrainError("CIFAR-10 file " + f.fileName().toStdString() + " cannot be read (" + f.errorString().toStdString() +
                             "); download the binary version (cifar-10-binary.tar.gz) from "
                             "https://www.cs.toronto.edu/~kriz/cifar.html, unpack it, and point training.data_dir at "
                             "its cifar-10-batches-bin folder (data_batch_1.bin … data_batch_5.bin, test_batch.bin)");
        const QByteArray bytes = f.readAll();
        if (bytes.isEmpty() || bytes.size() % kRecord != 0)
            throw TrainError(f.fileName().toStdString() + " is not a CIFAR-10 binary batch: " + std::to_string(bytes.size()) +
                             " bytes is not a whole number of " + std::to_string(kRecord) + "-byte records");
        records.push_back(torch::from_blob(const_cast<char*>(bytes.constData()), {bytes.size() / kRecord, kRecord}, torch::kUInt8).clone());
    }
    torch::Tensor all = torch::cat(records);
    torch::Tensor labels = all.select(1, 0);
    if (labels.max().item<int>() > 9)
        throw TrainError("the CIFAR-10 files in " + dir.toStdString() + " hold a label above 9: they are not CIFAR-10");
    if (parts > 1) all = all.index_select(0, shardRows(labels, part, parts, seed, spec));
    const torch::Tensor mean = torch::tensor({0.4914f, 0.4822f, 0.4465f}).view({1, 3, 1, 1});
    const torch::Tensor stdDev = torch::tensor({0.2470f, 0.2435f, 0.2616f}).view({1, 3, 1, 1});
    torch::Tensor images = all.narrow(1, 1, kRecord - 1).view({-1, 3, 32, 32}).to(torch::kFloat32).div_(255.0);
    return {images.sub_(mean).div_(stdDev).contiguous(), all.select(1, 0).to(torch::kInt64).contiguous(), {}};
}

Dataset makeSyntheticDataset(int samples, int seed, Split split) {
    std::lock_guard<std::recursive_mutex> lock(processGeneratorLock());
    torch::manual_seed(seed);
    const torch::Tensor prototypes = torch::rand({10, 28, 28}) * 255;
    torch::manual_seed(seed * 7919 + (split == Split::Train ? 1 : 2));
    const int n = split == Split::Train ? samples : std::max(200, samples / 5);
    const torch::Tensor labels = torch::randint(0, 10, {n}, torch::kInt64);
    torch::Tensor images = prototypes.index_select(0, labels) + torch::randn({n, 28, 28}) * 300;
    return normalise(images.clamp(0, 255), labels);
}

Dataset loadDataset(const TrainingSettings& s, Split split, int part, int parts) {
    const PartitionSpec spec = partitionSpec(s);
    if (s.dataset == QLatin1String("fashion-mnist")) return loadFashionMnist(s.dataDir, split, part, parts, s.seed, spec);
    if (s.dataset == QLatin1String("cifar10")) return loadCifar10(s.dataDir, split, part, parts, s.seed, spec);
    const Dataset all = makeSyntheticDataset(s.syntheticSamples, s.seed, split);
    return parts > 1 ? all.subset(shardRows(all.labels, part, parts, s.seed, spec)) : all;
}

PartitionSpec partitionSpec(const TrainingSettings& s) {
    return {s.partition, int(s.param(QStringLiteral("classes_per_worker"))), s.param(QStringLiteral("alpha"))};
}

torch::Tensor shardRows(const torch::Tensor& labels, int part, int parts, int seed, const PartitionSpec& spec, int classes) {
    if (spec.kind == QLatin1String(partition::kIid)) return iidShard(labels.size(0), part, parts, seed);
    const torch::Tensor asInt = labels.to(torch::kInt32).contiguous();
    const std::vector<int> values(asInt.data_ptr<int>(), asInt.data_ptr<int>() + asInt.numel());
    std::vector<int64_t> rows = labelShard(values, classes, part, parts, spec, uint64_t(seed));
    return torch::tensor(rows, torch::kInt64);
}

// A generator of its own seeded with `seed` draws what LibTorch's process-wide one draws after
// manual_seed(seed), without taking it from the other threads of a shared trainer. The last
// permutation is kept: a shared trainer's workers each cut their shard from the same one, which
// drawn 64 times was a tenth of a 64-worker start's CPU.
torch::Tensor iidShard(int64_t n, int part, int parts, int seed) {
    static std::mutex lock;
    static std::pair<int64_t, int> drawnFor{-1, 0};
    static torch::Tensor permutation;
    std::lock_guard<std::mutex> hold(lock);
    if (drawnFor != std::pair<int64_t, int>{n, seed}) {
        at::Generator generator = torch::make_generator<at::CPUGeneratorImpl>(uint64_t(seed));
        permutation = torch::randperm(n, generator, torch::kInt64);
        drawnFor = {n, seed};
    }
    const int64_t begin = n * part / parts, end = n * (part + 1) / parts;
    return permutation.slice(0, begin, end).clone();  // (not a view of what the next call may replace)
}

}  // namespace hips
