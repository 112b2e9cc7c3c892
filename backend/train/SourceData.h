#pragma once
// A party's own data (DataSource) as tensors for the model: read by backend/data's readers, its
// shape fitted to the model's input, its labels checked against the model's classes, and cut
// into the shard of one of the party's workers.
#include "Dataset.h"
#include "DataSource.h"

namespace hips {

// The whole source (the master's test set), or with `parts` > 1 only shard `part` of it, cut
// under the run's partition. `owner` names the source in errors ("party 'hospital1'").
// A source's `holdout` fraction is left out of every shard (the same rows for each worker that
// reads it), and given in *heldOut where asked for: the party's own test rows.
// `stream` (sourceStream) is mixed into the seeds of the holdout and the shards; `digest`, where
// asked for, gets what the whole source holds here: "N rows, " and a digest of its labels and of
// the features of up to 1,024 rows spread over it (every host that reads it must read the same).
// Throws TrainError naming the source, the file and what to do.
Dataset loadSource(const DataSource& source, const TrainingSettings& settings, const QString& owner, int part = 0, int parts = 1,
                   Dataset* heldOut = nullptr, uint32_t stream = 0, QString* digest = nullptr);

// Where decoded image folders are kept between starts: $XDG_CACHE_HOME/hips-studio/data.
QString dataCacheDir();

}  // namespace hips
