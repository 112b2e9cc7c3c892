#pragma once
// The master worker: initialises the global model, then evaluates every snapshot the global
// server sends (every eval_every rounds and the last), reports test accuracy and loss, and
// keeps net.meta and net.params in the run directory (HiPS's outputs).
#include "RoleContext.h"

#include <QCborMap>

namespace hips {

struct EvalStats;

int runMasterWorker(RoleContext& ctx);

// net.meta in `dir` (HiPS's format), written atomically: test_acc, or a regression's test_rmse.
void writeModelMeta(const QString& dir, qint64 version, const EvalStats& e, const TrainingSettings& s, double beginTime);

// An evaluation's score and loss as metric fields: test_acc (and test_top5), or a regression's
// test_rmse; test_loss.
QCborMap scoreFields(const EvalStats& e);

}  // namespace hips
