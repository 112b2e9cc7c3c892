#pragma once
// `hips stop` for a Slurm party (`launcher: slurm`). Its agents listen on the job's nodes, where
// only the run's controller knew, so a run whose controller is gone is stopped from the queue: on
// the party's login host, the user's jobs that SlurmJob submitted for the party (named
// hips-<run>-<party>, working in INSTALL_DIR/slurm/<run>/<party>-<attempt>) are cancelled, and their agents and roles
// end with them.
#include "Deployer.h"
#include "Topology.h"

namespace hips {

// The ids, among `squeue --me --noheader --format=%i|%j|%Z` lines, of `party`'s jobs from the
// install directory `installDir` (absolute).
QStringList slurmPartyJobs(const QByteArray& squeue, const QString& party, const QString& installDir);

struct SlurmStop {
    QStringList cancelled;  // the jobs' ids
    QString error;  // empty unless the login host, squeue or scancel failed
};

// Cancels `party`'s jobs on its login host (over SSH as a deployment logs in, or this machine).
SlurmStop stopSlurmParty(const Topology& topology, const Party& party, const DeployOptions& options);

}  // namespace hips
