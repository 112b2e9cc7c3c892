#include "ModelRegistry.h"

#include <QHash>

namespace hips {

namespace {

struct ModelEntry {
    StrategyInfo info;
    std::vector<size_t> tensors;
};

const QList<ModelEntry>& models() {
    static const QList<ModelEntry> list{
        {{QStringLiteral("cnn"), QStringLiteral("LeNet-5-like: two 5x5 convolutions with pooling, three linear layers"), {}, {}},
         {1 * 6 * 25, 6, 6 * 16 * 25, 16, 16 * 5 * 5 * 120, 120, 120 * 84, 84, 84 * 10, 10}},
        {{QStringLiteral("mlp"), QStringLiteral("784-256-10 with ReLU"), {}, {}}, {784 * 256, 256, 256 * 10, 10}},
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

size_t ModelRegistry::parameterCount(const QString& name) {
    const auto aligned = [](size_t n) { return (n + 15) / 16 * 16; };
    for (const ModelEntry& m : models()) {
        if (m.info.name != name) continue;
        size_t total = 0;
        for (size_t n : m.tensors) total = aligned(total) + n;
        return aligned(total);
    }
    return 0;
}

const StrategyList& DatasetRegistry::all() {
    static const StrategyList list{
        {QStringLiteral("fashion-mnist"),
         QStringLiteral("Fashion-MNIST from data_dir (Debian's dataset-fashion-mnist by default)"), {}, {}},
        {QStringLiteral("synthetic"),
         QStringLiteral("10 fixed class prototypes plus noise, synthetic_samples of them (fast tests)"), {}, {}},
    };
    return list;
}

}  // namespace hips
