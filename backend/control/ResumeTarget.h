#pragma once
// What a resumed run goes on with (`hips run --resume`, the History tab's Resume): the run's own
// topology and directory, from the last checkpoint that all its global servers have.
#include "Topology.h"

#include <QString>
#include <optional>

namespace hips {

class RunStore;

struct ResumeTarget {
    QString runDir;
    qint64 historyRun = 0;
    Topology topology;  // the run's own, with resume_round set to its checkpoint's round
};

// Run `run` of `store`, if it can go on: it stopped, failed or was interrupted (or finished,
// given more `rounds`), its directory and topology are there, its agents no longer keep it, and
// it has a checkpoint. `rounds` > 0 makes that the run's number of rounds from now on. Else
// nullopt, with *error saying why and what to do.
std::optional<ResumeTarget> resumeTarget(const RunStore& store, qint64 run, QString* error, int rounds = 0);

}  // namespace hips
