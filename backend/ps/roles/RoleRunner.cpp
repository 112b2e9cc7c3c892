#include "RoleRunner.h"

#include "GlobalServerRole.h"
#include "ModelFrame.h"
#include "PartyServerRole.h"
#include "Channel.h"
#include "RoleError.h"
#include "SchedulerRole.h"
#include "StateServiceRole.h"
#include "TopologyLimits.h"
#include "TopologyReader.h"
#include "RoleScope.h"

#include <QCryptographicHash>
#include <QScopeGuard>
#include <algorithm>
#include <cstdio>
#include <iterator>
#include <QFile>
#include <cstdio>
#include <memory>

namespace hips {

namespace {
struct RunKeys {
    CurveKeyPair own;
    PeerKeys peers;
};
constexpr qint64 kMaxPeerKeysBytes = 4 << 20;
}  // namespace

void addRoleOptions(QCommandLineParser& args) {
    args.addOption({QStringLiteral("topology"), QStringLiteral("Topology file (role)."), QStringLiteral("file")});
    args.addOption({QStringLiteral("node"), QStringLiteral("Node id, e.g. party1/worker0 (role)."), QStringLiteral("id")});
    args.addOption({QStringLiteral("out"), QStringLiteral("Output directory (role)."), QStringLiteral("dir"), QStringLiteral(".")});
}

int runRoleFromArgs(const QCommandLineParser& args, const RoleTable& roles) {
    if (!args.isSet(QStringLiteral("topology")) || !args.isSet(QStringLiteral("node"))) {
        std::fprintf(roleErr(), "role: --topology and --node are required\n");
        return kRoleUsage;
    }
    return runRole(args.value(QStringLiteral("topology")), args.value(QStringLiteral("node")), args.value(QStringLiteral("out")), roles);
}

RoleTable coordinationRoles() {
    return {{RoleKind::GlobalScheduler, runScheduler},
            {RoleKind::Scheduler, runScheduler},
            {RoleKind::GlobalServer, runGlobalServer},
            {RoleKind::Server, runPartyServer},
            {RoleKind::StateService, runStateService}};
}

bool isTrainingRole(RoleKind kind) {
    return kind == RoleKind::Worker || kind == RoleKind::MasterWorker;
}

bool runsInTrainer(const Node& node) {
    const bool server = node.kind == RoleKind::GlobalServer || node.kind == RoleKind::Server;
    return isTrainingRole(node.kind) || (server && node.device.startsWith(QLatin1String("cuda")));
}

// A secret handed over on stdin (HIPS_NODE_KEY_STDIN, HIPS_AGENT_KEYS_STDIN): its first
// `maxBytes` bytes up to the end, the buffer wiped after. (In the environment, /proc/PID/environ
// would show it to the same user for the process's whole life, whatever unsetenv does.)
QByteArray readSecretFromStdin(qsizetype maxBytes) {
    QByteArray text;
    char buffer[512];
    for (size_t n; text.size() < maxBytes && (n = std::fread(buffer, 1, sizeof buffer, stdin)) > 0;) text.append(buffer, qsizetype(n));
    std::fill(std::begin(buffer), std::end(buffer), '\0');
    return text.left(maxBytes);
}

// A file the agent wrote from what it was sent, read whole (at most `maxBytes`) and checked
// against the SHA-256 the agent gave in `shaVariable`: a file changed since (by someone who could
// write the run directory) is refused, naming it. Without the variable (a role started by hand)
// the file is taken as it is.
static std::optional<QByteArray> readSentFile(const QString& path, const char* shaVariable, qint64 maxBytes, QString* error) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot read %1 (%2); start the run again").arg(path, file.errorString());
        return std::nullopt;
    }
    const QByteArray bytes = file.read(maxBytes + 1);
    const QByteArray expected = roleVariable(shaVariable);
    if (bytes.size() > maxBytes ||
        (!expected.isEmpty() && QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex() != expected)) {
        *error = QStringLiteral(
                     "%1 is not the file the agent wrote for this run (its SHA-256 differs): someone changed it; this "
                     "role runs only what it was sent: start the run again, in a directory only you can write")
                     .arg(path);
        return std::nullopt;
    }
    return bytes;
}

// The keys the agent hands a role: its own pair on stdin (or, in a trainer forked by the zygote,
// in HIPS_NODE_KEY, taken out of the environment once read), the run's public keys in the file
// named by HIPS_PEER_KEYS_FILE.
static std::optional<RunKeys> readRunKeys(const Topology& topology, QString* error) {
    const CurveKeyPair own = CurveKeyPair::fromText(roleVariable("HIPS_NODE_KEY_STDIN") == "1" ? readSecretFromStdin(1024).trimmed()
                                                                                               : roleVariable("HIPS_NODE_KEY"));
    const QString peersPath = QString::fromLocal8Bit(roleVariable("HIPS_PEER_KEYS_FILE"));
    if (RoleScope* scope = threadRoleScope()) scope->variables.remove("HIPS_NODE_KEY");
    else qunsetenv("HIPS_NODE_KEY");  // (not in a shared trainer: the environment is its threads')
    if (own.isNull()) {
        *error = QStringLiteral(
            "no node key (HIPS_NODE_KEY): roles are started by hips-agent, which gets the keys from "
            "the controller; use hips run");
        return std::nullopt;
    }
    if (peersPath.isEmpty()) {
        *error = QStringLiteral("no file of the run's keys (HIPS_PEER_KEYS_FILE); start the run again");
        return std::nullopt;
    }
    const std::optional<QByteArray> peers = readSentFile(peersPath, "HIPS_PEER_KEYS_SHA256", kMaxPeerKeysBytes, error);
    if (!peers) return std::nullopt;
    RunKeys keys{own, PeerKeys::fromText(*peers)};
    for (const Node& n : topology.nodes())
        if (keys.peers.keyOf(n.id).isEmpty()) {
            *error = QStringLiteral("the run's keys in %1 have none for %2; start the run again").arg(peersPath, n.id);
            return std::nullopt;
        }
    return keys;
}

int runRole(const QString& topologyPath, const QString& nodeId, const QString& outDir, const RoleTable& roles) {
    QString readError;
    const std::optional<QByteArray> sent = readSentFile(topologyPath, "HIPS_TOPOLOGY_SHA256", kMaxTopologyBytes, &readError);
    if (!sent) {
        std::fprintf(roleErr(), "%s: %s\n", qPrintable(nodeId), qPrintable(readError));
        return kRoleUsage;
    }
    const TopologyLoad load = TopologyReader::readJson(*sent, topologyPath);
    if (!load.ok()) {
        std::fprintf(roleErr(), "%s\n", qPrintable(load.errorText()));
        return kRoleUsage;
    }
    const auto node = load.topology->node(nodeId);
    if (!node) {
        std::fprintf(roleErr(), "node '%s' is not in %s\n", qPrintable(nodeId), qPrintable(topologyPath));
        return kRoleUsage;
    }
    const auto role = roles.find(node->kind);
    if (role == roles.end()) {
        std::fprintf(roleErr(), "%s: this executable does not run %s roles\n", qPrintable(nodeId), qPrintable(roleName(node->kind)));
        return kRoleUsage;
    }
    QString keyError;
    const std::optional<RunKeys> keys = readRunKeys(*load.topology, &keyError);
    if (!keys) {
        std::fprintf(roleErr(), "%s: %s\n", qPrintable(nodeId), qPrintable(keyError));
        return kRoleUsage;
    }
    try {
        RoleContext ctx(*load.topology, *node, outDir);
        RoleScope* scope = threadRoleScope();  // (a thread of a shared trainer: how it is stopped)
        if (scope) scope->attach(&ctx.zmq);
        const auto detach = qScopeGuard([scope] {
            if (scope) scope->attach(nullptr);
        });
        ctx.launch = QString::fromLatin1(QCryptographicHash::hash(keys->own.publicKey, QCryptographicHash::Sha256).toHex().left(16));
        ctx.placement = std::max(0LL, roleVariable("HIPS_PLACEMENT").toLongLong());
        // Every socket of this role is encrypted and authenticated with this node's own key;
        // only the run's nodes get in, each under the name its key belongs to.
        Channel::setRunIdentity(keys->own, keys->peers);
        if (ctx.training().transportSecurity == QLatin1String("sealed")) Channel::setRunSealing(runBindingOf(keys->peers));
        Channel::setDefaultLimits(dataPlaneLimits(ctx.training()));
        QHash<QByteArray, QString> members;
        for (auto it = keys->peers.all().begin(); it != keys->peers.all().end(); ++it) members.insert(it.value(), it.key());
        CurveGuard guard(ctx.zmq, members, nodeId);
        return role->second(ctx);
    } catch (const RoleSuperseded& e) {
        std::fprintf(roleErr(), "%s: %s\n", qPrintable(nodeId), e.what());
        return kRoleSuperseded;
    } catch (const RoleError& e) {
        std::fprintf(roleErr(), "%s: %s\n", qPrintable(nodeId), e.what());
        return kRoleFailed;
    } catch (const zmq::error_t& e) {
        if (e.num() == ETERM && threadRoleScope() && threadRoleScope()->stopRequested()) {
            std::fprintf(roleErr(), "%s: stopped\n", qPrintable(nodeId));
            return kRoleFailed;
        }
        const char* hint = e.num() == EADDRINUSE     ? "the port is already in use; choose a free one"
                           : e.num() == EHOSTUNREACH ? "a peer vanished: the process it talked to, or its host, died"
                                                     : "check the addresses and ports of the topology";
        std::fprintf(roleErr(), "%s: network error: %s (%s)\n", qPrintable(nodeId), e.what(), hint);
        return kRoleFailed;
    } catch (const std::exception& e) {
        std::fprintf(roleErr(), "%s: %s\n", qPrintable(nodeId), e.what());
        return kRoleFailed;
    }
}

}  // namespace hips
