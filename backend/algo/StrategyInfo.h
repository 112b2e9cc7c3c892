#pragma once
// What a registry says about one strategy (a mode, an aggregation rule): its name, a line of
// description and the parameters it takes. The registries are the only lists of names: the
// topology reader, `hips validate`, `hips run --help` and the designer all read them.
#include <QList>
#include <QString>
#include <QStringList>

namespace hips {

struct ParamSpec {
    enum class Type {
        Integer,
        Number,
        CountOrFraction,  // 0 (all), a fraction in (0, 1), or a whole count in [1, max]
    };
    QString name;  // the training setting that holds it, e.g. "dc_lambda"
    Type type = Type::Number;
    double min = 0, max = 0, defaultValue = 0;
    QString help;

    // Empty when `value` is acceptable, else what is wrong and what to use.
    QString problem(double value) const;
    QString rangeText() const;  // "[0, 1]", "an integer in [1, 64]"
};

struct StrategyInfo {
    QString name;
    QString summary;
    QList<ParamSpec> params;
    QStringList aliases;  // older names still read (a topology written by an earlier version)

    const ParamSpec* param(const QString& name) const;
    bool answersTo(const QString& nameOrAlias) const { return name == nameOrAlias || aliases.contains(nameOrAlias); }
};

using StrategyList = QList<StrategyInfo>;

const StrategyInfo* findStrategy(const StrategyList& list, const QString& nameOrAlias);
// The StrategyInfo of each entry of a registry's table (entries hold theirs as `info`, beside
// their factory or traits), in the table's order.
template <typename Entries>
StrategyList strategiesOf(const Entries& entries) {
    StrategyList list;
    for (const auto& e : entries) list.append(e.info);
    return list;
}
QStringList strategyNames(const StrategyList& list);
// "  fedavg  Federated averaging…\n      dc_lambda (number in [0, 10], default 0.04): …" for --help.
QString strategyHelp(const StrategyList& list);

}  // namespace hips
