#pragma once
// Runs one role process: `hips-agent role --topology FILE --node ID --out DIR`.
#include <QString>

namespace hips {

// Returns the process exit status (RoleExit); errors go to stderr with the node id.
int runRole(const QString& topologyPath, const QString& nodeId, const QString& outDir);

}  // namespace hips
