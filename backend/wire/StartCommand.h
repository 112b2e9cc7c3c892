#pragma once
// The control plane's "start" command, in one place: the controller builds it, the agent checks
// it. Checking is pure (no file system), so it can be fuzzed: shape and bounds of every field,
// valid keys, and an output directory that lies strictly inside the agent's runs directory once
// "~" and ".." are resolved. The agent then resolves symbolic links (confining the real path)
// and checks the topology and the node.
#include "CurveSecurity.h"
#include "Message.h"

#include <optional>

namespace hips {

struct StartCommand {
    QString node;  // the node id to run
    QString outDir;  // where the role writes (absolute; clean once checked)
    QString topologyJson;  // the run's topology
    CurveKeyPair nodeKey;  // the node's own key pair
    PeerKeys peerKeys;  // the public key of every node of the run
    int threads = 1;
    // When the controller placed the node (its clock, ms since the epoch; 0: unknown). The role
    // gets it as HIPS_PLACEMENT: of two processes of one node, the scheduler keeps the later placed.
    qint64 placement = 0;
    // Whether the agent keeps the role's output in the run folder's logs/ on its host too (a host
    // the controller reached over SSH; the controller's own host has the controller's copy).
    bool logOnHost = false;

    static constexpr int kMaxThreads = 256;
    static constexpr qsizetype kMaxNodeIdChars = 200;

    Message toMessage() const;
    // The command in `m`, or nullopt with *error naming what is wrong. `runsRoot` is clean and
    // absolute; `home` replaces a leading "~" (a remote controller does not know this host's).
    static std::optional<StartCommand> fromMessage(const Message& m, const QString& runsRoot, const QString& home, QString* error);
};

// True when `path` (clean, absolute) is strictly inside `root` (clean, absolute).
bool isInside(const QString& path, const QString& root);

}  // namespace hips
