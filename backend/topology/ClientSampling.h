#pragma once
// Client sampling (`clients_per_round`, McMahan et al.'s C in FedAvg): each round only a seeded
// draw of the training workers trains and pushes; the others sit the round out and pull its model.
// Every process computes the same draw from the run's seed and the round, so no message carries
// it: the workers know whether they train, the party servers whom they wait for, the global
// server which parties push, and the controller how many rounds' reports to expect.
//   - `training.clients_per_round`: that many workers (a fraction below 1: of them, rounded up,
//     at least 1) drawn across the parties that have no setting of their own;
//   - a party's `clients_per_round`: drawn among its own workers.
// A drawn party's sum stands for all of its workers, and the parties' for all parties, as when a
// worker or a party is down (RoundCollector's scaling).
#include "Topology.h"
#include "TopologyIssue.h"

#include <QSet>
#include <QStringList>

namespace hips {

// Whether the run samples its clients at all.
bool samplesClients(const Topology& topology);
// How many of `n` workers a setting draws: a fraction (rounded up), a count (at most n), 0: all.
int clientsDrawn(double setting, int n);
// The training workers that train in `round` (1-based): every one when the run does not sample.
QSet<QString> sampledWorkers(const Topology& topology, qint64 round);
// How many train in each round (the controller's train reports per round).
int sampledPerRound(const Topology& topology);
// Of the global server's contributors (party servers, central or flat workers), those that push in `round`.
QSet<QString> sampledContributors(const Topology& topology, const QSet<QString>& contributors, qint64 round);
// How many of `contributors` `round` draws, up or not (all of them without client sampling):
// what round_timeout_s's min_workers and min_parties count.
int drawnAmong(const Topology& topology, const QSet<QString>& contributors, qint64 round);

// What sampling needs of a run, refused with the setting in the way: rounds of one push per worker
// at both tiers (fedavg's family), and nothing that counts on every worker pushing.
void checkClientSampling(const Topology& topology, TopologyIssues* issues);

}  // namespace hips
