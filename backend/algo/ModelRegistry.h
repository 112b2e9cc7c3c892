#pragma once
// The models and data sets a run may name (`training.model`, `training.dataset`): the only lists
// of them. A model's entry holds its tensors' sizes in registration order, so that servers know a
// model's size without LibTorch (backend/train builds the nets; tst_train checks the two agree).
#include "StrategyInfo.h"

#include <vector>

namespace hips {

// A model's input per sample: channels x size x size images, or (size 1) a vector of `channels`
// features.
struct InputShape {
    int channels = 1;
    int size = 28;
    bool operator==(const InputShape& o) const { return channels == o.channels && size == o.size; }
};

// A model as servers and trainers size it. A built-in one is sized by its name, input and classes;
// a TorchScript one (name "torchscript") by the tensors the controller read from its file.
struct ModelSpec {
    QString name = QStringLiteral("cnn");
    InputShape input;
    int classes = 10;
    std::vector<size_t> tensors;  // TorchScript only: parameters, then floating buffers
    int bufferTensors = 0;  // TorchScript only: how many of `tensors`, the last, are floating buffers
};

class ModelRegistry {
public:
    static const StrategyList& all();
    static const StrategyInfo* find(const QString& name) { return findStrategy(all(), name); }
    // The sizes of the model's float tensors for the data set's images, parameters then buffers
    // (BatchNorm's running statistics), as FlatModel lays them out; empty for an unknown name.
    static std::vector<size_t> tensorSizes(const ModelSpec& model);
    static std::vector<size_t> tensorSizes(const QString& model, const QString& dataset);
    // Floats of the model's flat buffer (each tensor on a 16-float boundary, the whole padded to
    // one, as FlatModel lays it out); 0 for an unknown name.
    static size_t parameterCount(const ModelSpec& model);
    static size_t parameterCount(const QString& model, const QString& dataset);
    // Floats of the flat buffer before its floating buffers (BatchNorm's running statistics): what
    // a server optimizer steps. The statistics after them are averaged, as FedAvg does: they are
    // no weights, and a momentum or a second moment on them would push a variance below zero.
    static size_t trainableFloats(const ModelSpec& model);
    // Empty when the built-in model takes this input, else why not and what to use.
    static QString inputProblem(const QString& model, InputShape input);
    // The model has buffers that training changes without gradients (BatchNorm's statistics).
    static bool hasRunningStatistics(const QString& model);
};

class DatasetRegistry {
public:
    static const StrategyList& all();
    static const StrategyInfo* find(const QString& name) { return findStrategy(all(), name); }
    static InputShape inputShape(const QString& dataset);  // 1 x 28 x 28 for an unknown name
};

}  // namespace hips
