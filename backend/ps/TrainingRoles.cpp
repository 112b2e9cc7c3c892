#include "TrainingRoles.h"

#include "LocalTrainer.h"
#include "MasterWorkerRole.h"
#include "RoleError.h"
#include "TrainError.h"
#include "WorkerRole.h"

#include <cstdio>

namespace hips {

// Sets the role's intra-op threads, and maps training failures (missing data set, device
// without CUDA) to their own exit status.
static std::function<int(RoleContext&)> training(int (*run)(RoleContext&)) {
    return [run](RoleContext& ctx) {
        setTorchThreads(ctx.training().threads);
        try {
            return run(ctx);
        } catch (const TrainError& e) {
            std::fprintf(stderr, "%s: %s\n", qPrintable(ctx.node.id), e.what());
            return int(kRoleTrainFailed);
        }
    };
}

RoleTable trainingRoles() {
    return {{RoleKind::Worker, training(runWorker)}, {RoleKind::MasterWorker, training(runMasterWorker)}};
}

}  // namespace hips
