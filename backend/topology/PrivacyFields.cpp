// training.privacy: its fields against PrivacyRegistry, and what resumes noted in it.
#include "PrivacyFields.h"

#include "PrivacyMechanism.h"
#include "TopologyLimits.h"

#include <QCoreApplication>

namespace hips {

namespace {

// privacy.rerun_rounds: [[first, last], …], what resumes trained again (written by the controller).
QList<std::pair<int, int>> readRerunRounds(JsonFields& f) {
    QList<std::pair<int, int>> ranges;
    const auto list = f.array("rerun_rounds");
    if (!list) return ranges;
    for (const QJsonValue& v : *list) {
        const QJsonArray range = v.toArray();
        const int first = range.size() == 2 && range[0].isDouble() ? range[0].toInt(-1) : -1;
        const int last = range.size() == 2 && range[1].isDouble() ? range[1].toInt(-1) : -1;
        if (first < 1 || last < first || last > kMaxRounds) {  // (how many: the file's size bounds it)
            f.issue("rerun_rounds", QCoreApplication::translate("TopologyCheck",
                                                                "rerun_rounds lists [first, last] pairs of rounds (1 to %1, first <= "
                                                                "last), as a resume writes them; give that or leave it out")
                                        .arg(kMaxRounds));
            return {};
        }
        ranges.append({first, last});
    }
    return ranges;
}

}  // namespace

std::optional<PrivacySettings> readPrivacy(JsonFields& parent, const char* key) {
    const auto o = parent.object(key);
    if (!o) return std::nullopt;
    JsonFields f(*o, parent.path(key), parent.issues());
    f.rejectUnknown({"where", "clip_norm", "noise_multiplier", "delta", "target_epsilon", "sampling", "rerun_rounds"},
                    QCoreApplication::translate("TopologyCheck", "privacy field"));
    PrivacySettings p;
    p.where = f.strategy("where", p.where, PrivacyRegistry::all());
    const StrategyInfo& info = *PrivacyRegistry::find(p.where);
    auto number = [&](const char* key) {
        const ParamSpec& spec = *info.param(QLatin1String(key));
        return f.number(key, spec.defaultValue, spec.min, spec.max);
    };
    p.clipNorm = number("clip_norm");
    if (o->value(QStringLiteral("noise_multiplier")).toString() == QLatin1String("auto")) p.autoNoise = true, p.noiseMultiplier = 0;
    else p.noiseMultiplier = number("noise_multiplier");
    p.delta = number("delta");
    if (f.has("target_epsilon")) p.targetEpsilon = number("target_epsilon");
    p.sampling = f.choice("sampling", p.sampling, {QStringLiteral("none"), QStringLiteral("poisson")});
    if (p.sampling == QLatin1String("poisson"))
        f.issue("sampling",
                QCoreApplication::translate("TopologyCheck",
                                            "poisson sampling needs each example's gradient clipped, which the workers do not do yet; "
                                            "use \"none\" (each round one Gaussian mechanism over the whole update)"));
    p.rerunRounds = readRerunRounds(f);
    if (p.autoNoise && !p.targetEpsilon)
        f.issue("noise_multiplier",
                QCoreApplication::translate("TopologyCheck",
                                            "\"auto\" sets the noise from target_epsilon and the rounds: give target_epsilon, "
                                            "or a number"));
    return p;
}

}  // namespace hips
