#pragma once
#include "Aggregator.h"

#include <QStringList>
#include <memory>

namespace hips {

// Aggregation rules by name. Adding a rule is one class plus one line in the .cpp.
class AggregatorRegistry {
public:
    static std::unique_ptr<Aggregator> create(const QString& name);  // nullptr when unknown
    static QStringList names();
};

}  // namespace hips
