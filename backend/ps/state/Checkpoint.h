#pragma once
// The global server's checkpoints, and where each worker keeps its own state beside them.
//
// <run dir>/checkpoint/ holds model-<version>.f32 and optimizer-<version>.f32 (raw little-endian
// floats) and checkpoint.json, which names the round they belong to with their sizes and SHA-256
// (with several global servers, each keeps its shard's: rank k > 0 in files marked ".shardk").
// The floats are written first, each to a temporary file renamed into place, and the JSON last:
// a checkpoint exists once its JSON names it, so a crash mid-write leaves the previous one. The
// one before the newest stays (checkpoint.previous.json and its floats) until the next is in.
#include "Topology.h"

#include <optional>
#include <vector>

namespace hips {

struct Checkpoint {
    qint64 round = 0;  // rounds done
    qint64 version = 0;  // the global server's model version after them
    std::vector<float> model;
    std::vector<float> optimizer;  // the server optimizer's state (ssgd: its velocity); may be empty
};

QString checkpointDirectory(const QString& runDir);

// Returns an error text naming the file and the cause, empty on success. Older checkpoints'
// files go once the new one is in place, as do the temporaries of writes killed before their rename.
// `shard`: the rank of the global server whose slice of the model it is (key slicing).
// `keepPrevious`: the one before stays until the next (a checkpoint to resume from; a global
// server's recovery point, kept at every version, is only ever read at its newest).
QString writeCheckpoint(const QString& runDir, const Checkpoint& checkpoint, const TrainingSettings& settings, int shard = 0,
                        bool keepPrevious = true);

// The newest checkpoint, checked against `settings` (model size, seed) and its checksums. Its
// round is one of the run's (1 to rounds), or with `orInitial` also 0: a global server's recovery
// point of the initial model, for a restart during round 1. With `round`: the one of that round
// where the newest is not (the one before it, which each keeps until the next: checkpointRound).
std::optional<Checkpoint> readCheckpoint(const QString& runDir, const TrainingSettings& settings, size_t modelFloats, QString* error,
                                         int shard = 0, bool orInitial = false, qint64 round = 0);

// Whether `runDir` holds a checkpoint (of global server `shard`): its description, written last.
bool hasCheckpoint(const QString& runDir, int shard = 0);

// The round of the newest checkpoint in `runDir` that every global server's shard has (one may
// have written a round's and the others not yet: the round before it, which each still keeps),
// or 0 with *error set when there is none.
qint64 checkpointRound(const QString& runDir, QString* error);

// Where a worker keeps its state (momentum, data order) for `round`, beside the checkpoint: its
// trainer's of part `part` of its data plan (Draco's cyclic code gives a worker 2s + 1).
QString workerStatePath(const QString& runDir, const QString& nodeId, qint64 round, int part = 0);
// Removes the node's state files of rounds before `keepFrom`, and the temporaries of its writes
// that were killed before their rename.
void removeOlderWorkerStates(const QString& runDir, const QString& nodeId, qint64 keepFrom);

}  // namespace hips
