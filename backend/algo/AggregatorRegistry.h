#pragma once
#include "AggregationRule.h"
#include "RobustRules.h"
#include "StrategyInfo.h"

#include <QStringList>
#include <memory>

namespace hips {

// The names other code must refer to (defaults, Draco's data layout, a rule's own validation):
// each is written once, here.
namespace rule {
inline constexpr char kFedAvg[] = "fedavg";
inline constexpr char kTrimmedMean[] = "trimmed_mean";
inline constexpr char kDracoRepetition[] = "draco_repetition";
inline constexpr char kDracoCyclic[] = "draco_cyclic";
}  // namespace rule

// Aggregation rules by name (`training.aggregation`). Adding a rule is one class plus one entry
// in the .cpp: its description, parameters and factory.
class AggregatorRegistry {
public:
    // nullptr when unknown. `param` gives the rule's parameters (default: the registry's defaults).
    static std::unique_ptr<AggregationRule> create(const QString& name, const ParamLookup& param = {});
    static const StrategyList& all();
    static QStringList names() { return strategyNames(all()); }
    static const StrategyInfo* find(const QString& name) { return findStrategy(all(), name); }
};

}  // namespace hips
