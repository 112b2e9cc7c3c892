#include "AggregatorRegistry.h"

#include "FedAvgRule.h"

#include <functional>

namespace hips {

using Factory = std::function<std::unique_ptr<AggregationRule>(const ParamLookup&)>;

namespace {
struct Entry {
    StrategyInfo info;
    Factory make;
};

using T = ParamSpec::Type;

const ParamSpec kByzantineF{
    QStringLiteral("byzantine_f"), T::Integer, 0, 1000, 1, QStringLiteral("Byzantine contributions the rule tolerates per round")};

const QList<Entry>& entries() {
    static const QList<Entry> table{
        {{QLatin1String(rule::kFedAvg),
          QStringLiteral("The sum of the contributions, each already weighted by its sender (HiPS's FedAvg)."),
          {},
          {}},
         [](const ParamLookup&) { return std::make_unique<FedAvgRule>(); }},
        {{QStringLiteral("mean"),
          QStringLiteral("The sample-weighted mean of the individual contributions (FedAvg computed from them; not robust)."),
          {},
          {}},
         [](const ParamLookup&) { return std::make_unique<MeanRule>(); }},
        {{QStringLiteral("median"), QStringLiteral("The coordinate-wise median of the contributions (FedMedian)."), {}, {}},
         [](const ParamLookup&) { return std::make_unique<MedianRule>(); }},
        {{QLatin1String(rule::kTrimmedMean),
          QStringLiteral("The coordinate-wise mean without the trim_beta share of smallest and of largest values (FedTrimmedAvg)."),
          {{QStringLiteral("trim_beta"), T::Number, 0, 0.49, 0.1, QStringLiteral("share of values cut at each end")}},
          {}},
         [](const ParamLookup& p) { return std::make_unique<TrimmedMeanRule>(p(QStringLiteral("trim_beta"))); }},
        {{QStringLiteral("krum"),
          QStringLiteral("The contribution closest to its n − f − 2 nearest others (Krum); needs n > 2f + 2."),
          {kByzantineF},
          {}},
         [](const ParamLookup& p) { return std::make_unique<KrumRule>(int(p(QStringLiteral("byzantine_f"))), 0, false); }},
        {{QStringLiteral("multi_krum"),
          QStringLiteral("The mean of the m best Krum scores (Multi-Krum); needs n > 2f + 2."),
          {kByzantineF, {QStringLiteral("multi_krum_m"), T::Integer, 0, 1000, 0, QStringLiteral("contributions averaged (0: n − f)")}},
          {}},
         [](const ParamLookup& p) {
             return std::make_unique<KrumRule>(int(p(QStringLiteral("byzantine_f"))), int(p(QStringLiteral("multi_krum_m"))), true);
         }},
        {{QStringLiteral("bulyan"),
          QStringLiteral("n − 2f contributions chosen by Krum, then per coordinate the mean of the n − 4f closest to "
                         "their median (Bulyan); needs n ≥ 4f + 3."),
          {kByzantineF},
          {}},
         [](const ParamLookup& p) { return std::make_unique<BulyanRule>(int(p(QStringLiteral("byzantine_f")))); }},
        {{QStringLiteral("geometric_median"),
          QStringLiteral("The geometric median by smoothed Weiszfeld iterations (RFA), each contribution counted once "
                         "(a sample count is the sender's claim)."),
          {{QStringLiteral("gm_tolerance"), T::Number, 1e-12, 1, 1e-5, QStringLiteral("relative step that ends the iterations")},
           {QStringLiteral("gm_max_iters"), T::Integer, 1, 10000, 100, QStringLiteral("iteration cap")},
           {QStringLiteral("gm_nu"), T::Number, 0, 1, 1e-6, QStringLiteral("smoothing: the smallest distance a weight divides by")}},
          {}},
         [](const ParamLookup& p) {
             return std::make_unique<GeometricMedianRule>(p(QStringLiteral("gm_tolerance")), int(p(QStringLiteral("gm_max_iters"))),
                                                          std::max(p(QStringLiteral("gm_nu")), 1e-30));
         }},
        {{QLatin1String(rule::kDracoRepetition),
          QStringLiteral("Draco's repetition code at party servers: groups of draco_r workers train on the same data; "
                         "each group's exact majority wins (tolerates (r − 1)/2 liars per group)."),
          {{QStringLiteral("draco_r"), T::Integer, 1, 99, 3, QStringLiteral("workers per group (2s + 1)")}},
          {}},
         [](const ParamLookup& p) { return std::make_unique<DracoRepetitionRule>(int(p(QStringLiteral("draco_r")))); }},
        {{QLatin1String(rule::kDracoCyclic),
          QStringLiteral("Draco's cyclic code at party servers: each worker trains on 2s + 1 partitions and sends a coded "
                         "sum; the exact sum is decoded despite draco_s liars."),
          {{QStringLiteral("draco_s"), T::Integer, 1, 100, 1, QStringLiteral("liars tolerated")}},
          {}},
         [](const ParamLookup& p) { return std::make_unique<DracoCyclicRule>(int(p(QStringLiteral("draco_s")))); }},
    };
    return table;
}

// The registry's defaults behind a lookup that may be empty or not know a name.
ParamLookup withDefaults(const StrategyInfo& info, const ParamLookup& given) {
    return [info, given](const QString& name) {
        if (given) return given(name);
        const ParamSpec* spec = info.param(name);
        return spec ? spec->defaultValue : 0.0;
    };
}
}  // namespace

std::unique_ptr<AggregationRule> AggregatorRegistry::create(const QString& name, const ParamLookup& param) {
    for (const Entry& e : entries())
        if (e.info.name == name) return e.make(withDefaults(e.info, param));
    return nullptr;
}

const StrategyList& AggregatorRegistry::all() {
    static const StrategyList infos = strategiesOf(entries());
    return infos;
}

}  // namespace hips
