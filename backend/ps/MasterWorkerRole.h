#pragma once
// The master worker: initialises the global model, then evaluates every snapshot the global
// server sends (every eval_every rounds and the last), reports test accuracy and loss, and
// keeps net.meta and net.params in the run directory (HiPS's outputs).
#include "RoleContext.h"

namespace hips {

int runMasterWorker(RoleContext& ctx);

// net.meta in `dir` (HiPS's format), written atomically.
void writeModelMeta(const QString& dir, qint64 version, double accuracy, const TrainingSettings& s, double beginTime);

}  // namespace hips
