#include "TrainingRoles.h"

#include "DeviceProbe.h"
#include "GpuVectorBackend.h"
#include "LocalBaselineRole.h"
#include "LocalTrainer.h"
#include "ModeRegistry.h"
#include "MasterWorkerRole.h"
#include "RoleError.h"
#include "TrainError.h"
#include "Vocabulary.h"
#include "WorkerRole.h"
#include "RoleScope.h"

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
            std::fprintf(roleErr(), "%s: %s\n", qPrintable(ctx.node.id), e.what());
            return int(kRoleTrainFailed);
        }
    };
}

// The master evaluates what the servers send, or, in mode `local`, trains alone.
static int runMaster(RoleContext& ctx) {
    return ModeRegistry::policy(ctx.training().mode).standalone ? runLocalBaseline(ctx) : runMasterWorker(ctx);
}

// A server on a GPU: its robust rules' whole-vector work moves there (VectorBackend.h).
static std::function<int(RoleContext&)> onDevice(std::function<int(RoleContext&)> run) {
    return [run](RoleContext& ctx) {
        try {
            if (ctx.node.device.startsWith(QLatin1String("cuda"))) setVectorBackend(makeGpuVectorBackend(ctx.node.device));
        } catch (const TrainError& e) {
            std::fprintf(roleErr(), "%s: %s\n", qPrintable(ctx.node.id), e.what());
            return int(kRoleTrainFailed);
        }
        ctx.metrics.report(metric::kDevice, describeDevice(ctx.node.device));
        return run(ctx);
    };
}

RoleTable trainingRoles() {
    const RoleTable servers = coordinationRoles();
    return {{RoleKind::Worker, training(runWorker)},
            {RoleKind::MasterWorker, training(runMaster)},
            {RoleKind::GlobalServer, onDevice(servers.at(RoleKind::GlobalServer))},
            {RoleKind::Server, onDevice(servers.at(RoleKind::Server))}};
}

}  // namespace hips
