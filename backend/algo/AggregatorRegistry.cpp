#include "AggregatorRegistry.h"

#include "FedAvgAggregator.h"

#include <functional>
#include <map>

namespace hips {

using Factory = std::function<std::unique_ptr<Aggregator>()>;

static const std::map<QString, Factory>& factories() {
    static const std::map<QString, Factory> table{
        {QStringLiteral("fedavg"), [] { return std::make_unique<FedAvgAggregator>(); }},
    };
    return table;
}

std::unique_ptr<Aggregator> AggregatorRegistry::create(const QString& name) {
    const auto it = factories().find(name);
    return it == factories().end() ? nullptr : it->second();
}

QStringList AggregatorRegistry::names() {
    QStringList out;
    for (const auto& [name, factory] : factories()) out << name;
    return out;
}

}  // namespace hips
