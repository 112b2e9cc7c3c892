#pragma once
// Runs one role process: `<binary> role --topology FILE --node ID --out DIR`.
// Roles are split over two executables so that LibTorch is loaded only where it trains:
// hips-agent runs schedulers and servers, hips-trainer runs workers and the master worker.
#include "RoleContext.h"

#include <QCommandLineParser>
#include <functional>
#include <map>

namespace hips {

using RoleTable = std::map<RoleKind, std::function<int(RoleContext&)>>;

RoleTable coordinationRoles();  // schedulers and servers (no LibTorch)
bool isTrainingRole(RoleKind kind);
// Whether hips-trainer runs the node: the training roles, and servers on a GPU (their robust
// rules run there through LibTorch: VectorBackend.h).
bool runsInTrainer(const Node& node);

// Returns the process exit status (RoleExit); errors go to stderr with the node id.
// A secret handed to this process on its stdin (the agent's keys, a role's node key): at most
// `maxBytes` bytes, read to the end of its input.
QByteArray readSecretFromStdin(qsizetype maxBytes);

int runRole(const QString& topologyPath, const QString& nodeId, const QString& outDir, const RoleTable& roles);

// The `role --topology FILE --node ID [--out DIR]` command line, shared by hips-agent and
// hips-trainer: options to declare, and the run once parsed.
void addRoleOptions(QCommandLineParser& args);
int runRoleFromArgs(const QCommandLineParser& args, const RoleTable& roles);

}  // namespace hips
