#include "SourceData.h"

#include "DataCheck.h"
#include "SampleChecks.h"
#include "TrainError.h"

#include <QCryptographicHash>
#include <QDir>
#include <QStandardPaths>

namespace hips {

namespace {

// The samples refused where they cannot train the model (SampleChecks.h), naming the owner.
void checkSamples(const SampleSet& data, const std::vector<int64_t>& shape, int classes, const QString& owner) {
    if (const QString problem = samplesProblem(data, shape, classes); !problem.isEmpty())
        throw TrainError(QStringLiteral("%1's data %2").arg(owner, problem).toStdString());
}

torch::Tensor featureTensor(SampleSet& data, const std::vector<int64_t>& shape) {
    std::vector<int64_t> sizes{data.size()};
    sizes.insert(sizes.end(), shape.begin(), shape.end());
    if (data.type == SampleSet::Type::Float32) return torch::from_blob(data.floats.data(), sizes, torch::kFloat32).clone();
    return torch::from_blob(data.bytes.data(), sizes, torch::kUInt8).to(torch::kFloat32).div_(255.0);  // uint8 to [0, 1]
}

// The rows of `all` kept for training; the `fraction` held out go to *heldOut. Every worker that
// reads the source holds out the same rows: a permutation of the run's seed, not the worker's.
Dataset holdOut(const Dataset& all, double fraction, int seed, const QString& owner, Dataset* heldOut) {
    const int64_t n = all.size(), out = std::max<int64_t>(1, std::llround(double(n) * fraction));
    if (n - out < 1)
        throw TrainError(QStringLiteral("%1's data holds %2 samples, too few to hold out %3 of them and train on the rest; "
                                        "lower its holdout or bring more data")
                             .arg(owner)
                             .arg(n)
                             .arg(out)
                             .toStdString());
    auto generator = torch::make_generator<at::CPUGeneratorImpl>(uint64_t(seed) * 9973 + 17);
    const torch::Tensor order = torch::randperm(n, generator, torch::kInt64);
    if (heldOut) *heldOut = all.subset(std::get<0>(order.narrow(0, n - out, out).sort()));
    return all.subset(std::get<0>(order.narrow(0, 0, n - out).sort()));
}

QString digestOf(const Dataset& all) {
    QCryptographicHash hash(QCryptographicHash::Sha256);
    const auto add = [&hash](const torch::Tensor& t) {
        const torch::Tensor bytes = t.contiguous().cpu();
        hash.addData(QByteArrayView(static_cast<const char*>(bytes.data_ptr()), qsizetype(bytes.nbytes())));
    };
    add(all.labels);
    const int64_t n = all.size(), sampled = std::min<int64_t>(n, 1024);
    if (sampled > 0) add(all.images.index_select(0, torch::linspace(0, double(n - 1), sampled).round().to(torch::kInt64)));
    return QStringLiteral("%1 rows, %2").arg(n).arg(QString::fromLatin1(hash.result().toHex().left(16)));
}

}  // namespace

QString dataCacheDir() {
    return QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation) + QStringLiteral("/hips-studio/data");
}

Dataset loadSource(const DataSource& source, const TrainingSettings& s, const QString& owner, int part, int parts, Dataset* heldOut,
                   uint32_t stream, QString* digest) {
    const int seed = int(uint32_t(s.seed) ^ stream);
    ReadOptions options = readOptionsFor(s);  // images decoded to the model's input, the host's data roots
    options.cacheDir = dataCacheDir();
    SampleSet data;
    try {
        data = readSamples(source, options);
    } catch (const DataError& e) {
        throw TrainError(QStringLiteral("%1's data: %2").arg(owner, QString::fromStdString(e.what())).toStdString());
    }
    std::vector<int64_t> shape = modelSampleShape(s);
    if (shape.empty()) shape = data.sampleShape;
    checkSamples(data, shape, s.classes, owner);
    const torch::Tensor labels = data.regression()
                                     ? torch::from_blob(data.targets.data(), {data.size(), data.targetWidth}, torch::kFloat32).clone()
                                     : torch::tensor(data.labels, torch::kInt64);
    Dataset all{featureTensor(data, shape), labels, data.classNames, data.featureNames};
    if (digest) *digest = digestOf(all);
    if (const double holdout = source.option(QStringLiteral("holdout")).toDouble(); holdout > 0)
        all = holdOut(all, holdout, seed, owner, heldOut);
    if (parts <= 1) return all;
    if (s.regression()) return all.subset(iidShard(all.size(), part, parts, seed));  // no classes to split by
    return all.subset(shardRows(all.labels, part, parts, seed, partitionSpec(s), s.classes));
}

}  // namespace hips
