#pragma once
// What a worker's startup record says of the data it trains on.
#include "DataPlan.h"

#include <QCborMap>
#include <memory>
#include <vector>

namespace hips {

class LocalTrainer;

// The samples and class counts of every part of the worker's plan together (Draco's cyclic code
// gives it 2s + 1 parts), the data's names, and each part under a name of its own with its
// samples (data_parts), so that a party's summary counts a part that several of its workers
// hold (Draco's repetition code: r of them) once.
QCborMap describeShards(const DataPlan& plan, const std::vector<std::unique_ptr<LocalTrainer>>& trainers, bool regression);

}  // namespace hips
