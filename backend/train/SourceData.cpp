#include "SourceData.h"

#include "DataCheck.h"
#include "TrainError.h"

#include <QCryptographicHash>
#include <QDir>
#include <QStandardPaths>

namespace hips {

namespace {

QString shapeText(const std::vector<int64_t>& shape) {
    QStringList dims;
    for (int64_t d : shape) dims << QString::number(d);
    return dims.join(QStringLiteral(" x "));
}

// The sample shape the model takes: [C, H, W] images or [F] features. A TorchScript model with
// no input_shape takes the data as it comes.
std::vector<int64_t> modelShape(const TrainingSettings& s, const SampleSet& data) {
    if (s.torchScript() && s.inputShape.isEmpty()) return data.sampleShape;
    const InputShape in = s.modelInput();
    if (!s.inputShape.isEmpty() && s.inputShape.size() == 3) return {s.inputShape[0], s.inputShape[1], s.inputShape[2]};
    if (in.size == 1) return {in.channels};
    return {in.channels, in.size, in.size};
}

std::vector<int64_t> withoutOnes(const std::vector<int64_t>& shape) {
    std::vector<int64_t> out;
    for (int64_t d : shape)
        if (d != 1) out.push_back(d);
    return out;
}

// The samples' shape as the model's: the same elements in C order (an H x W grey image for a
// 1 x H x W input, a flat row of a table for an image, an image for a feature vector). Where both
// have two dimensions or more (beside those of size 1), the same dimensions in the same order: an
// H x W x C image has the elements of a C x H x W one, in another layout, and read as one would
// be scrambled.
void checkShape(const SampleSet& data, const std::vector<int64_t>& wanted, const QString& owner) {
    int64_t elements = 1;
    for (int64_t d : wanted) elements *= d;
    const std::vector<int64_t> have = withoutOnes(data.sampleShape), want = withoutOnes(wanted);
    if (data.elements() == elements && (have.size() < 2 || want.size() < 2 || have == want)) return;
    const bool channelsLast = have.size() == 3 && want.size() == 3 && have[2] == want[0] && have[0] == want[1] && have[1] == want[2];
    throw TrainError(QStringLiteral("%1's samples are %2, and the model takes %3; %4")
                         .arg(owner, shapeText(data.sampleShape), shapeText(wanted),
                              channelsLast ? QStringLiteral("the data is channels-last (height, width, channels): store it "
                                                            "channels-first, e.g. x.transpose(0, 3, 1, 2) in NumPy")
                                           : QStringLiteral("set training.input_shape to the data's shape, or reshape the data"))
                         .toStdString());
}

void checkLabels(const SampleSet& data, int classes, const QString& owner) {
    if (data.size() == 0) throw TrainError(QStringLiteral("%1's data holds no samples; check its path and files").arg(owner).toStdString());
    if (data.regression()) {
        if (data.targetWidth != classes)
            throw TrainError(QStringLiteral("%1's data has %2 target(s) a sample, and the model %3 output(s); set "
                                            "training.outputs to %2")
                                 .arg(owner)
                                 .arg(data.targetWidth)
                                 .arg(classes)
                                 .toStdString());
        return;
    }
    for (int64_t label : data.labels)
        if (label < 0 || label >= classes)
            throw TrainError(QStringLiteral("%1's data holds label %2, and the model has %3 classes (0 to %4); set "
                                            "training.classes, or check the label column")
                                 .arg(owner)
                                 .arg(label)
                                 .arg(classes)
                                 .arg(classes - 1)
                                 .toStdString());
    if (!data.classNames.isEmpty() && data.classNames.size() > classes)
        throw TrainError(QStringLiteral("%1's data names %2 classes, and the model has %3; set training.classes to %2")
                             .arg(owner)
                             .arg(data.classNames.size())
                             .arg(classes)
                             .toStdString());
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
    const std::vector<int64_t> shape = modelShape(s, data);
    checkShape(data, shape, owner);
    checkLabels(data, s.classes, owner);
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
