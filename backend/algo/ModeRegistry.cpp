#include "ModeRegistry.h"

namespace hips {

const StrategyList& ModeRegistry::all() {
    static const StrategyList modes{
        {mode::kFedAvg,
         QStringLiteral("HiPS's synchronous federated averaging: every worker trains local_iters steps from the "
                        "global model, both tiers sum the deltas, w <- w + sum of (w_i - w) / N."),
         {},
         {QStringLiteral("sync")}},
        {mode::kLocal,
         QStringLiteral("The standalone baseline: the master trains the same model alone on the whole training set "
                        "(same batch size, learning rate and evaluation cadence); no other role starts."),
         {},
         {}},
    };
    return modes;
}

}  // namespace hips
