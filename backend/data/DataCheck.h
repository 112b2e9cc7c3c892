#pragma once
// "Check data": what a party's source holds, counts only, read as the party's workers would read
// it. The designer reads a source itself where the party's host is this machine; on any other
// host, `hips-trainer check-data REQUEST` reads it there (RemoteDataCheck.h sends the request over
// SSH) under that host's data roots, and answers with the counts, never the contents.
#include "DataReaders.h"
#include "Topology.h"

namespace hips {

// How the workers of a run under `s` read a source: images decoded to the model's input (a
// TorchScript model without input_shape takes them as they are), float targets for a regression,
// this host's data roots. (Where decoded images are cached is the trainer's business.)
ReadOptions readOptionsFor(const TrainingSettings& s);

// Reads `source` and returns describeSamples() of it. Throws DataError when it cannot be read, or
// cannot train the run's model (SampleChecks.h: a label beyond the classes, samples of another
// shape, none at all), saying which.
QString checkSource(const DataSource& source, const ReadOptions& options);

// A check for another host, as one shell-safe argument: base64 of
// {"data": SOURCE, "regression": bool, "channels": C, "height": H, "width": W, "shape": [..], "classes": N}.
QByteArray dataCheckRequest(const DataSource& source, const ReadOptions& options);

// Reads the source of `request` on this host (its data roots apply, whatever the request says)
// and returns checkSource() of it. Throws DataError for a malformed request or an unreadable
// source, naming which.
QString runDataCheckRequest(const QByteArray& request);

}  // namespace hips
