#pragma once
// "Check data" for a party whose host is another machine: its deployed hips-trainer reads the
// source there, under that host's data roots, and answers with the counts (DataCheck.h); the
// data never leaves the host.
#include "DataCheck.h"
#include "Deployer.h"

#include <atomic>

namespace hips {

// Reads `source` on `host` as the party's workers would (`read`) and puts its counts in *counts.
// Empty on success, else what went wrong and what to do (an unknown host key, no agent deployed
// there, the reader's own message). Blocks: call it off the GUI thread.
QString checkDataOnHost(const Host& host, const DeployOptions& options, const DataSource& source, const ReadOptions& read, QString* counts,
                        const std::atomic<bool>* cancelled = nullptr);

}  // namespace hips
