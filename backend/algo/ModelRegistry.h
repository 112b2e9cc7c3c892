#pragma once
// The models and data sets a run may name (`training.model`, `training.dataset`): the only lists
// of them. A model's entry holds its tensors' sizes in registration order, so that servers know a
// model's size without LibTorch (backend/train builds the nets; tst_train checks the two agree).
#include "StrategyInfo.h"

#include <vector>

namespace hips {

class ModelRegistry {
public:
    static const StrategyList& all();
    static const StrategyInfo* find(const QString& name) { return findStrategy(all(), name); }
    // Floats of the model's flat parameter buffer (each tensor on a 16-float boundary, the whole
    // padded to one, as FlatModel lays it out); 0 for an unknown name.
    static size_t parameterCount(const QString& name);
};

class DatasetRegistry {
public:
    static const StrategyList& all();
    static const StrategyInfo* find(const QString& name) { return findStrategy(all(), name); }
};

}  // namespace hips
