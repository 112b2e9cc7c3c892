#include "PrivacyBudget.h"

#include "PrivacyAccountant.h"

#include "ClientSampling.h"

#include <QHash>
#include <algorithm>

namespace hips {

PrivacyPlan settlePrivacy(TrainingSettings* s) {
    PrivacyPlan plan;
    if (!s->privacy) return plan;
    PrivacySettings& p = *s->privacy;
    if (p.autoNoise) {  // validation made sure a target is given
        p.noiseMultiplier = privacy::noiseFor(1, s->rounds, p.delta, *p.targetEpsilon);
        if (p.noiseMultiplier <= 0) {
            plan.error = QStringLiteral("no noise multiplier up to 1000 keeps %1 rounds within target_epsilon %2; give fewer rounds")
                             .arg(s->rounds)
                             .arg(*p.targetEpsilon);
            return plan;
        }
        p.autoNoise = false;
        plan.note = QStringLiteral("privacy: noise multiplier %1 keeps %2 rounds within target_epsilon %3 (delta %4)")
                        .arg(p.noiseMultiplier, 0, 'f', 4)
                        .arg(s->rounds)
                        .arg(*p.targetEpsilon)
                        .arg(p.delta);
        return plan;
    }
    if (!p.targetEpsilon) return plan;
    const qint64 within = privacy::usesWithin(1, p.noiseMultiplier, p.delta, *p.targetEpsilon);
    if (within < 1) {
        plan.error = QStringLiteral(
                         "one round of noise multiplier %1 already spends epsilon %2, more than target_epsilon %3: raise the "
                         "noise multiplier, or set it to \"auto\"")
                         .arg(p.noiseMultiplier)
                         .arg(privacyEpsilon(p, 1), 0, 'f', 3)
                         .arg(*p.targetEpsilon);
        return plan;
    }
    if (within >= s->rounds) return plan;
    plan.note = QStringLiteral(
                    "privacy: target_epsilon %1 allows %2 of the %3 rounds (epsilon %4 after round %2); the run stops "
                    "there: privacy budget reached")
                    .arg(*p.targetEpsilon)
                    .arg(within)
                    .arg(s->rounds)
                    .arg(privacyEpsilon(p, int(within)), 0, 'f', 3);
    s->rounds = int(within);
    s->evalEvery = std::min(s->evalEvery, s->rounds);
    plan.cut = true;
    return plan;
}

double privacyEpsilon(const PrivacySettings& p, int rounds) {
    return privacy::epsilon(1, p.noiseMultiplier, rounds, p.delta);
}

int mostDraws(const Topology& t, int rounds) {
    if (!samplesClients(t)) return rounds;
    QHash<QString, int> draws;
    int most = 0;
    for (int round = 1; round <= rounds; ++round)
        for (const QString& worker : sampledWorkers(t, round)) most = std::max(most, ++draws[worker]);
    return most;
}

double privacyEpsilon(const Topology& t, int rounds) {
    return t.training.privacy ? privacyEpsilon(*t.training.privacy, mostDraws(t, rounds)) : 0;
}

QJsonObject privacyGuarantee(const PrivacySettings& p, int rounds, bool cut) {
    QJsonObject o{{"epsilon", privacyEpsilon(p, rounds)},  {"delta", p.delta}, {"where", p.where},           {"clip_norm", p.clipNorm},
                  {"noise_multiplier", p.noiseMultiplier}, {"rounds", rounds}, {"secure_aggregation", false}};
    if (p.targetEpsilon) o.insert("target_epsilon", *p.targetEpsilon);
    if (cut) o.insert("budget_reached", true);
    return o;
}

QJsonObject privacyGuarantee(const Topology& t, int rounds, bool cut) {
    const TrainingSettings& s = t.training;
    QJsonObject o = s.privacy ? privacyGuarantee(*s.privacy, rounds, cut) : QJsonObject{};
    if (s.privacy && samplesClients(t)) {  // each worker's data spent only in the rounds it trained in
        const int draws = mostDraws(t, rounds);
        o.insert("epsilon", privacyEpsilon(*s.privacy, draws));
        o.insert("most_draws", draws);
    }
    if (!s.secureAggregation) return o;
    int parties = 0;
    for (const Party& p : t.parties) parties += !p.central && !p.servers.isEmpty();
    o.insert("secure_aggregation", true);
    o.insert("secure_aggregation_threshold", s.secureThreshold(parties));
    return o;
}

}  // namespace hips
