#pragma once
// What a run leaves on its hosts comes back to the controller's run directory once the run ends,
// fetched over SSH as the deployment connected: the master's trained model (model.pt) and its
// weights (net.params, net.meta), and each host's role logs.
#include "Deployer.h"

#include <atomic>

namespace hips {

// The files of a run the controller's run directory keeps from the master's host.
QStringList runFilesToFetch();

// Copies the files `names` of the run directory `remoteDir` ("~/" allowed) on `host` into
// `localDir` (created, 0700, at the first file); files the host lacks are skipped. Empty on success, else what went wrong and what to
// do. Blocks: call it off the GUI thread.
QString fetchRunFiles(const Host& host, const DeployOptions& options, const QString& remoteDir, const QStringList& names,
                      const QString& localDir, const std::atomic<bool>* cancelled);

}  // namespace hips
