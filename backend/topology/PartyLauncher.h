#pragma once
// A party's `launcher`: how its hosts come to run its roles. "ssh" (the default) deploys an agent
// to each host; "slurm" submits one batch job from a login host, and the job's nodes, once Slurm
// allocates them, are the party's hosts (SlurmJob.h runs it). Read, written and checked here.
#include "JsonFields.h"
#include "StrategyInfo.h"
#include "Topology.h"
#include "TopologyIssue.h"

#include <QJsonObject>
#include <QSet>

namespace hips {

// The launchers a party may name, with what each does and its numeric settings (`hips
// reference`, the designer, the reader's ranges).
const StrategyList& launcherRegistry();

// `launcher` of a party: absent or {"kind": "ssh"} leaves `slurm` empty.
std::optional<SlurmLauncher> readLauncher(JsonFields& party);
QJsonObject launcherJson(const SlurmLauncher& slurm);

// The sbatch options a launcher may add, as `--name=value` (or `--name` alone for the flags):
// anything else (an --output, a --wrap, a script) is the launcher's own, or not for a run.
const QStringList& allowedSbatchOptions();
// Empty when `option` is one of them with a value of safe characters; else what is wrong.
QString sbatchOptionProblem(const QString& option);

// The hosts a party's roles name, in the order they first appear: a Slurm party's allocation
// gives its nodes to them in this order (node 0 to the first).
QStringList partyHosts(const Party& party);

// Hosts no agent is deployed to over SSH: those of Slurm parties (their nodes come from the
// allocation) and the login hosts that run no role.
QSet<QString> hostsWithoutSshAgent(const Topology& topology);
// The Slurm party whose roles `host` runs, or null.
const Party* slurmPartyOf(const Topology& topology, const QString& host);

// What a Slurm party needs: a login host that is declared, settings in range, as many nodes as
// its hosts, hosts of its own, and not the central party (whose master's files come back over SSH).
void checkLaunchers(const Topology& topology, TopologyIssues* issues);

}  // namespace hips
