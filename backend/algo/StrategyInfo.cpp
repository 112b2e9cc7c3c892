#include "StrategyInfo.h"

#include "NumberText.h"

#include <cmath>

namespace hips {

QString ParamSpec::rangeText() const {
    if (type == Type::CountOrFraction)
        return QStringLiteral("0 (all), a fraction in (0, 1) or a whole count in [1, %1]").arg(numberText(max));
    return QStringLiteral("%1 in [%2, %3]")
        .arg(type == Type::Integer ? QStringLiteral("an integer") : QStringLiteral("a number"))
        .arg(numberText(min), numberText(max));
}

QString ParamSpec::problem(double value) const {
    const bool whole = std::floor(value) == value;
    const bool wholeEnough = type == Type::Number || whole || (type == Type::CountOrFraction && value > 0 && value < 1);
    if (std::isfinite(value) && wholeEnough && value >= min && value <= max) return {};
    return QStringLiteral("%1 %2 is out of range; use %3").arg(name, numberText(value), rangeText());
}

const ParamSpec* StrategyInfo::param(const QString& wanted) const {
    for (const ParamSpec& p : params)
        if (p.name == wanted) return &p;
    return nullptr;
}

const StrategyInfo* findStrategy(const StrategyList& list, const QString& nameOrAlias) {
    for (const StrategyInfo& s : list)
        if (s.answersTo(nameOrAlias)) return &s;
    return nullptr;
}

QStringList strategyNames(const StrategyList& list) {
    QStringList out;
    for (const StrategyInfo& s : list) out << s.name;
    return out;
}

QString strategyHelp(const StrategyList& list) {
    QString out;
    for (const StrategyInfo& s : list) {
        out += QStringLiteral("  %1  %2\n").arg(s.name.leftJustified(13), s.summary);
        for (const ParamSpec& p : s.params)
            out += QStringLiteral("      %1: %2 (%3, default %4)\n").arg(p.name, p.help, p.rangeText()).arg(p.defaultValue);
    }
    return out;
}

}  // namespace hips
