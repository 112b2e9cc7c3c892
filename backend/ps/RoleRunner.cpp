#include "RoleRunner.h"

#include "GlobalServerRole.h"
#include "PartyServerRole.h"
#include "Channel.h"
#include "RoleError.h"
#include "SchedulerRole.h"
#include "TopologyReader.h"

#include <cstdio>
#include <memory>

namespace hips {

void addRoleOptions(QCommandLineParser& args) {
    args.addOption({QStringLiteral("topology"), QStringLiteral("Topology file (role)."), QStringLiteral("file")});
    args.addOption({QStringLiteral("node"), QStringLiteral("Node id, e.g. party1/worker0 (role)."), QStringLiteral("id")});
    args.addOption({QStringLiteral("out"), QStringLiteral("Output directory (role)."), QStringLiteral("dir"), QStringLiteral(".")});
}

int runRoleFromArgs(const QCommandLineParser& args, const RoleTable& roles) {
    if (!args.isSet(QStringLiteral("topology")) || !args.isSet(QStringLiteral("node"))) {
        std::fprintf(stderr, "role: --topology and --node are required\n");
        return kRoleUsage;
    }
    return runRole(args.value(QStringLiteral("topology")), args.value(QStringLiteral("node")),
                   args.value(QStringLiteral("out")), roles);
}

RoleTable coordinationRoles() {
    return {{RoleKind::GlobalScheduler, runScheduler}, {RoleKind::Scheduler, runScheduler},
            {RoleKind::GlobalServer, runGlobalServer}, {RoleKind::Server, runPartyServer}};
}

bool isTrainingRole(RoleKind kind) { return kind == RoleKind::Worker || kind == RoleKind::MasterWorker; }

int runRole(const QString& topologyPath, const QString& nodeId, const QString& outDir, const RoleTable& roles) {
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
    const auto role = roles.find(node->kind);
    if (role == roles.end()) {
        std::fprintf(stderr, "%s: this executable does not run %s roles\n", qPrintable(nodeId),
                     qPrintable(roleName(node->kind)));
        return kRoleUsage;
    }
    try {
        RoleContext ctx(*load.topology, *node, outDir);
        // A run spanning hosts: every socket of this role uses the run's CURVE keys, and only
        // holders of those keys get in.
        std::unique_ptr<CurveGuard> guard;
        if (const CurveKeyPair run = CurveKeyPair::fromText(qgetenv("HIPS_RUN_KEYS")); !run.isNull()) {
            Channel::setDefaultCurve(CurveConfig{run, run.publicKey});
            guard = std::make_unique<CurveGuard>(ctx.zmq, QList<QByteArray>{run.publicKey}, nodeId);
        }
        return role->second(ctx);
    } catch (const RoleError& e) {
        std::fprintf(stderr, "%s: %s\n", qPrintable(nodeId), e.what());
        return kRoleFailed;
    } catch (const zmq::error_t& e) {
        const char* hint = e.num() == EADDRINUSE     ? "the port is already in use; choose a free one"
                           : e.num() == EHOSTUNREACH ? "a peer vanished: the process it talked to, or its host, died"
                                                     : "check the addresses and ports of the topology";
        std::fprintf(stderr, "%s: network error: %s (%s)\n", qPrintable(nodeId), e.what(), hint);
        return kRoleFailed;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", qPrintable(nodeId), e.what());
        return kRoleFailed;
    }
}

}  // namespace hips
