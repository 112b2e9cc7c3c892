#include "AggregatorRegistry.h"

#include "FedAvgRule.h"

#include <functional>

namespace hips {

using Factory = std::function<std::unique_ptr<AggregationRule>()>;

namespace {
struct Entry {
    StrategyInfo info;
    Factory make;
};

const QList<Entry>& entries() {
    static const QList<Entry> table{
        {{QStringLiteral("fedavg"),
          QStringLiteral("The sum of the contributions, each already weighted by its sender (HiPS's FedAvg)."), {}, {}},
         [] { return std::make_unique<FedAvgRule>(); }},
    };
    return table;
}
}  // namespace

std::unique_ptr<AggregationRule> AggregatorRegistry::create(const QString& name) {
    for (const Entry& e : entries())
        if (e.info.name == name) return e.make();
    return nullptr;
}

const StrategyList& AggregatorRegistry::all() {
    static const StrategyList infos = [] {
        StrategyList out;
        for (const Entry& e : entries()) out << e.info;
        return out;
    }();
    return infos;
}

}  // namespace hips
