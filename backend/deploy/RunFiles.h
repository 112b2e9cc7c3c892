#pragma once
// What a run leaves on the master's host comes back to the controller's run directory: the
// trained model (model.pt), its weights (net.params, net.meta), fetched over SSH as the
// deployment connected, once the run ends.
#include "Deployer.h"

#include <atomic>

namespace hips {

// The files of a run the controller's run directory keeps from the master's host.
QStringList runFilesToFetch();

// Copies the files `names` of the run directory `remoteDir` ("~/" allowed) on `host` into
// `localDir`; files the host lacks are skipped. Empty on success, else what went wrong and what to
// do. Blocks: call it off the GUI thread.
QString fetchRunFiles(const Host& host, const DeployOptions& options, const QString& remoteDir, const QStringList& names,
                      const QString& localDir, const std::atomic<bool>* cancelled);

}  // namespace hips
