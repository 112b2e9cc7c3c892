#include "RoleRunner.h"

#include "GlobalServerRole.h"
#include "LocalTrainer.h"
#include "MasterWorkerRole.h"
#include "PartyServerRole.h"
#include "RoleError.h"
#include "SchedulerRole.h"
#include "TopologyReader.h"
#include "TrainError.h"
#include "WorkerRole.h"

#include <cstdio>

namespace hips {

static int dispatch(RoleContext& ctx) {
    switch (ctx.node.kind) {
        case RoleKind::GlobalScheduler:
        case RoleKind::Scheduler: return runScheduler(ctx);
        case RoleKind::GlobalServer: return runGlobalServer(ctx);
        case RoleKind::Server: return runPartyServer(ctx);
        case RoleKind::MasterWorker: return runMasterWorker(ctx);
        case RoleKind::Worker: return runWorker(ctx);
    }
    return kRoleUsage;
}

int runRole(const QString& topologyPath, const QString& nodeId, const QString& outDir) {
    const TopologyLoad load = TopologyReader::readFile(topologyPath);
    if (!load.ok()) {
        std::fprintf(stderr, "%s\n", qPrintable(load.errorText()));
        return kRoleUsage;
    }
    const auto node = load.topology->node(nodeId);
    if (!node) {
        std::fprintf(stderr, "node '%s' is not in %s\n", qPrintable(nodeId), qPrintable(topologyPath));
        return kRoleUsage;
    }
    setTorchThreads(load.topology->training.threads);
    try {
        RoleContext ctx(*load.topology, *node, outDir);
        return dispatch(ctx);
    } catch (const TrainError& e) {
        std::fprintf(stderr, "%s: %s\n", qPrintable(nodeId), e.what());
        return kRoleTrainFailed;
    } catch (const RoleError& e) {
        std::fprintf(stderr, "%s: %s\n", qPrintable(nodeId), e.what());
        return kRoleFailed;
    } catch (const zmq::error_t& e) {
        std::fprintf(stderr, "%s: network error: %s (is the port already in use?)\n", qPrintable(nodeId), e.what());
        return kRoleFailed;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", qPrintable(nodeId), e.what());
        return kRoleFailed;
    }
}

}  // namespace hips
