#include "ModelRegistry.h"

#include <algorithm>

namespace hips {

namespace {

// The sizes of a net's float tensors in FlatModel's order: the parameters in registration order
// (a module's own, then each child's), then the float buffers (BatchNorm's running mean and
// variance) in the same order. backend/train/Models.cpp builds the nets; tst_train checks both.
struct Tensors {
    std::vector<size_t> parameters, buffers;
    void conv(size_t in, size_t out, size_t k, bool bias = true) {
        parameters.push_back(out * in * k * k);
        if (bias) parameters.push_back(out);
    }
    void linear(size_t in, size_t out) {
        parameters.push_back(in * out);
        parameters.push_back(out);
    }
    void batchNorm(size_t channels) {
        parameters.insert(parameters.end(), {channels, channels});  // weight, bias
        buffers.insert(buffers.end(), {channels, channels});  // running mean, variance
    }
};

size_t pooled(size_t size, int times) {
    for (int i = 0; i < times; ++i) size /= 2;
    return size;
}

Tensors mlp(InputShape in, size_t classes) {
    Tensors t;
    t.linear(size_t(in.channels * in.size * in.size), 256);
    t.linear(256, classes);
    return t;
}

Tensors cnn(InputShape in, size_t classes) {
    // 28x28 inputs are padded to 32 (LeNet-5's own size); 32x32 ones are taken as they are.
    Tensors t;
    t.conv(size_t(in.channels), 6, 5);
    t.conv(6, 16, 5);
    t.linear(16 * 5 * 5, 120);
    t.linear(120, 84);
    t.linear(84, classes);
    return t;
}

Tensors alexnet(InputShape in, size_t classes) {
    Tensors t;
    t.conv(size_t(in.channels), 64, 3);
    t.conv(64, 192, 3);
    t.conv(192, 384, 3);
    t.conv(384, 256, 3);
    t.conv(256, 256, 3);
    const size_t side = pooled(size_t(in.size), 3);
    t.linear(256 * side * side, 1024);
    t.linear(1024, 1024);
    t.linear(1024, classes);
    return t;
}

// ResNet-18 as for CIFAR (He et al. 2016; kuangliu/pytorch-cifar): a 3x3 stem without pooling,
// four stages of two basic blocks (64, 128, 256, 512 channels), global average pooling.
Tensors resnet18(InputShape in, size_t classes) {
    Tensors t;
    t.conv(size_t(in.channels), 64, 3, false);
    t.batchNorm(64);
    size_t channels = 64;
    for (size_t width : {64, 128, 256, 512})
        for (int block = 0; block < 2; ++block) {
            const bool project = block == 0 && width != channels;  // stride 2, or more channels
            t.conv(channels, width, 3, false);
            t.batchNorm(width);
            t.conv(width, width, 3, false);
            t.batchNorm(width);
            if (project) {
                t.conv(channels, width, 1, false);
                t.batchNorm(width);
            }
            channels = width;
        }
    t.linear(512, classes);
    return t;
}

QString anyInput(InputShape) {
    return {};
}

QString lenetInput(InputShape in) {
    if (in.size == 28 || in.size == 32) return {};
    return QStringLiteral("cnn takes 28 x 28 or 32 x 32 images, not %1; use mlp or resnet18, or input_shape [%2, 28, 28]")
        .arg(in.size == 1 ? QStringLiteral("%1 features").arg(in.channels) : QStringLiteral("%1 x %1").arg(in.size))
        .arg(in.size == 1 ? 1 : in.channels);
}

QString alexnetInput(InputShape in) {
    if (in.size >= 8 && in.size % 8 == 0) return {};
    return QStringLiteral(
               "alexnet takes images whose side is a multiple of 8 (it pools three times), not %1; "
               "use mlp for feature vectors")
        .arg(in.size);
}

QString resnetInput(InputShape in) {
    if (in.size >= 8) return {};
    return QStringLiteral("resnet18 takes images of at least 8 x 8, not %1; use mlp for feature vectors").arg(in.size);
}

struct ModelEntry {
    StrategyInfo info;
    Tensors (*tensors)(InputShape, size_t classes);
    QString (*inputProblem)(InputShape);
};

const QList<ModelEntry>& models() {
    static const QList<ModelEntry> list{
        {{QStringLiteral("cnn"), QStringLiteral("LeNet-5-like: two 5x5 convolutions with pooling, three linear layers"), {}, {}},
         &cnn,
         &lenetInput},
        {{QStringLiteral("mlp"), QStringLiteral("one hidden layer of 256 with ReLU"), {}, {}}, &mlp, &anyInput},
        {{QStringLiteral("alexnet"),
          QStringLiteral("AlexNet for 32x32 images: five 3x3 convolutions, three linear layers "
                         "(1024 wide) with dropout"),
          {},
          {}},
         &alexnet,
         &alexnetInput},
        {{QStringLiteral("resnet18"),
          QStringLiteral("ResNet-18 for 32x32 images (3x3 stem, no pooling), with BatchNorm "
                         "whose running statistics are averaged with the weights"),
          {},
          {}},
         &resnet18,
         &resnetInput},
    };
    return list;
}

struct DatasetEntry {
    StrategyInfo info;
    InputShape shape;
};

const QList<DatasetEntry>& datasets() {
    static const QList<DatasetEntry> list{
        {{QStringLiteral("fashion-mnist"),
          QStringLiteral("Fashion-MNIST from data_dir (Debian's dataset-fashion-mnist by default)"),
          {},
          {}},
         {1, 28}},
        {{QStringLiteral("cifar10"),
          QStringLiteral("CIFAR-10's binary batches (data_batch_1..5.bin, test_batch.bin) from data_dir"),
          {},
          {}},
         {3, 32}},
        {{QStringLiteral("synthetic"),
          QStringLiteral("10 fixed class prototypes plus noise, synthetic_samples of them (fast tests)"),
          {},
          {}},
         {1, 28}},
    };
    return list;
}

}  // namespace

const StrategyList& ModelRegistry::all() {
    static const StrategyList infos = [] {
        StrategyList out;
        for (const ModelEntry& m : models()) out << m.info;
        return out;
    }();
    return infos;
}

std::vector<size_t> ModelRegistry::tensorSizes(const ModelSpec& model) {
    if (!model.tensors.empty()) return model.tensors;
    for (const ModelEntry& m : models()) {
        if (m.info.name != model.name) continue;
        Tensors t = m.tensors(model.input, size_t(std::max(model.classes, 1)));
        t.parameters.insert(t.parameters.end(), t.buffers.begin(), t.buffers.end());
        return t.parameters;
    }
    return {};
}

std::vector<size_t> ModelRegistry::tensorSizes(const QString& model, const QString& dataset) {
    return tensorSizes(ModelSpec{model, DatasetRegistry::inputShape(dataset), 10, {}});
}

bool ModelRegistry::hasRunningStatistics(const QString& model) {
    for (const ModelEntry& m : models())
        if (m.info.name == model) return !m.tensors(InputShape{}, 10).buffers.empty();
    return false;
}

QString ModelRegistry::inputProblem(const QString& model, InputShape input) {
    for (const ModelEntry& m : models())
        if (m.info.name == model) return m.inputProblem ? m.inputProblem(input) : QString();
    return {};
}

size_t ModelRegistry::parameterCount(const ModelSpec& model) {
    const auto aligned = [](size_t n) { return (n + 15) / 16 * 16; };
    size_t total = 0;
    for (size_t n : tensorSizes(model)) total = aligned(total) + n;
    return aligned(total);
}

size_t ModelRegistry::trainableFloats(const ModelSpec& model) {
    size_t buffers = size_t(std::max(0, model.bufferTensors));
    if (model.tensors.empty())
        for (const ModelEntry& m : models())
            if (m.info.name == model.name) buffers = m.tensors(model.input, size_t(std::max(model.classes, 1))).buffers.size();
    const std::vector<size_t> sizes = tensorSizes(model);
    const auto aligned = [](size_t n) { return (n + 15) / 16 * 16; };
    size_t total = 0;
    for (size_t i = 0; i + buffers < sizes.size(); ++i) total = aligned(total) + sizes[i];
    return buffers > 0 && buffers <= sizes.size() ? aligned(total) : parameterCount(model);
}

size_t ModelRegistry::parameterCount(const QString& model, const QString& dataset) {
    return parameterCount(ModelSpec{model, DatasetRegistry::inputShape(dataset), 10, {}});
}

const StrategyList& DatasetRegistry::all() {
    static const StrategyList infos = [] {
        StrategyList out;
        for (const DatasetEntry& d : datasets()) out << d.info;
        return out;
    }();
    return infos;
}

InputShape DatasetRegistry::inputShape(const QString& dataset) {
    for (const DatasetEntry& d : datasets())
        if (d.info.name == dataset) return d.shape;
    return {};
}

}  // namespace hips
