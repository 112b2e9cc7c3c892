#pragma once
// The topology's data and model fields: a party's (or host's) `data` source, the master's
// `evaluation_data`, and `model` as a built-in name or {"torchscript": FILE}.
#include "JsonFields.h"
#include "Topology.h"

#include <QJsonObject>
#include <QJsonValue>

namespace hips {

// Reads parent[key] as {"format": F, "path": P, <the format's options>}; nullopt when absent or
// wrong (with an issue naming what to write).
std::optional<DataSource> readDataSource(JsonFields& parent, const char* key);
QJsonObject dataSourceJson(const DataSource& source);

// `model` and `input_shape`: a ModelRegistry name, or {"torchscript": FILE} (with the "sha256" and
// "tensors" a controller wrote into a run's copy).
void readModel(JsonFields& training, const StrategyList& builtIns, TrainingSettings* t);
QJsonValue modelJson(const TrainingSettings& t);

}  // namespace hips
