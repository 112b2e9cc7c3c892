#pragma once
#include "AggregationRule.h"
#include "StrategyInfo.h"

#include <QStringList>
#include <memory>

namespace hips {

// Aggregation rules by name (`training.aggregation`). Adding a rule is one class plus one entry
// in the .cpp: its description, parameters and factory.
class AggregatorRegistry {
public:
    static std::unique_ptr<AggregationRule> create(const QString& name);  // nullptr when unknown
    static const StrategyList& all();
    static QStringList names() { return strategyNames(all()); }
    static const StrategyInfo* find(const QString& name) { return findStrategy(all(), name); }
};

}  // namespace hips
