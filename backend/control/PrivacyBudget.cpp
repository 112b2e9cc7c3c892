#include "PrivacyBudget.h"

#include "PrivacyAccountant.h"

#include "ClientSampling.h"

#include <QHash>
#include <algorithm>

namespace hips {

PrivacyPlan settlePrivacy(Topology* t) {
    PrivacyPlan plan;
    TrainingSettings* s = &t->training;
    if (!s->privacy) return plan;
    PrivacySettings& p = *s->privacy;
    // Under client sampling a worker's data is used only in the rounds it is drawn for: the
    // budget is spent over the most draws of any worker, as the guarantee is stated.
    const int uses = mostDraws(*t, s->rounds);
    const QString usesText = uses < s->rounds ? QStringLiteral(" (at most %1 of them for any worker)").arg(uses) : QString();
    if (p.autoNoise) {  // validation made sure a target is given
        p.noiseMultiplier = privacy::noiseFor(1, uses, p.delta, *p.targetEpsilon);
        if (p.noiseMultiplier <= 0) {
            plan.error = QStringLiteral("no noise multiplier up to 1000 keeps %1 rounds%2 within target_epsilon %3; give fewer rounds")
                             .arg(s->rounds)
                             .arg(usesText)
                             .arg(*p.targetEpsilon);
            return plan;
        }
        p.autoNoise = false;
        plan.note = QStringLiteral("privacy: noise multiplier %1 keeps %2 rounds%3 within target_epsilon %4 (delta %5)")
                        .arg(p.noiseMultiplier, 0, 'f', 4)
                        .arg(s->rounds)
                        .arg(usesText)
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
    if (within >= uses) return plan;
    const int rounds = roundsWithinDraws(*t, s->rounds, int(within));
    if (rounds <= s->resumeRound) {
        plan.error = QStringLiteral(
                         "target_epsilon %1 is spent by round %2, counting the rounds resumes trained again (rerun_rounds): "
                         "the run cannot go on past its checkpoint of round %3")
                         .arg(*p.targetEpsilon)
                         .arg(rounds)
                         .arg(s->resumeRound);
        return plan;
    }
    plan.note = QStringLiteral(
                    "privacy: target_epsilon %1 allows %2 of the %3 rounds (epsilon %4 after round %2); the run stops "
                    "there: privacy budget reached")
                    .arg(*p.targetEpsilon)
                    .arg(rounds)
                    .arg(s->rounds)
                    .arg(privacyEpsilon(*t, rounds), 0, 'f', 3);
    s->rounds = rounds;
    s->evalEvery = std::min(s->evalEvery, s->rounds);
    plan.cut = true;
    return plan;
}

double privacyEpsilon(const PrivacySettings& p, int rounds) {
    return privacy::epsilon(1, p.noiseMultiplier, rounds, p.delta);
}

namespace {

// Each worker's uses of its data in the rounds resumes trained again (a round's draw is the same
// each time it is trained: seeded by the round).
QHash<QString, int> rerunDraws(const Topology& t) {
    QHash<QString, int> draws;
    if (!t.training.privacy) return draws;
    const bool sampling = samplesClients(t);
    for (const auto& [first, last] : t.training.privacy->rerunRounds)
        for (int round = first; round <= last; ++round)
            if (sampling)
                for (const QString& worker : sampledWorkers(t, round)) ++draws[worker];
            else ++draws[QString()];  // (every worker alike)
    return draws;
}

}  // namespace

int mostDraws(const Topology& t, int rounds) {
    QHash<QString, int> draws = rerunDraws(t);
    if (!samplesClients(t)) return rounds + draws.value(QString());
    int most = 0;
    for (int d : draws) most = std::max(most, d);
    for (int round = 1; round <= rounds; ++round)
        for (const QString& worker : sampledWorkers(t, round)) most = std::max(most, ++draws[worker]);
    return most;
}

DrawTally::DrawTally(Topology t) : m_topology(std::move(t)) {}

int DrawTally::mostBy(int round) {
    if (!samplesClients(m_topology)) return mostDraws(m_topology, round);  // (no draws: no cost)
    if (round < m_counted || m_counted == 0) {
        m_draws = rerunDraws(m_topology);
        m_counted = 0;
        m_most = 0;
        for (int d : std::as_const(m_draws)) m_most = std::max(m_most, d);
    }
    for (; m_counted < round; ++m_counted)
        for (const QString& worker : sampledWorkers(m_topology, m_counted + 1)) m_most = std::max(m_most, ++m_draws[worker]);
    return m_most;
}

double DrawTally::epsilonBy(int round) {
    const auto& privacy = m_topology.training.privacy;
    return privacy ? privacyEpsilon(*privacy, mostBy(round)) : 0;
}

int roundsWithinDraws(const Topology& t, int rounds, int draws) {
    QHash<QString, int> drawn = rerunDraws(t);
    if (!samplesClients(t)) return std::clamp(draws - drawn.value(QString()), 0, rounds);
    for (int d : drawn)
        if (d > draws) return 0;
    for (int round = 1; round <= rounds; ++round)
        for (const QString& worker : sampledWorkers(t, round))
            if (++drawn[worker] > draws) return round - 1;
    return rounds;
}

void noteRerunRounds(Topology* t, int checkpointRound, int lastRoundRecorded, bool rolesOutlivedRecords) {
    int lastTrained = std::max(lastRoundRecorded, checkpointRound) + 1;
    if (rolesOutlivedRecords) lastTrained = std::max(lastTrained, checkpointRound + std::max(1, t->training.checkpointEvery));
    const int inFlight = std::min(lastTrained, t->training.rounds);
    if (t->training.privacy && inFlight > checkpointRound) t->training.privacy->rerunRounds.append({checkpointRound + 1, inFlight});
}

double privacyEpsilon(const Topology& t, int rounds) {
    return t.training.privacy ? privacyEpsilon(*t.training.privacy, mostDraws(t, rounds)) : 0;
}

bool RestartUses::countRestart(int round, const QString& role) {
    const int restarts = ++m_restarts[round][role] + m_earlier.value(round);
    if (restarts <= m_uses.value(round)) return false;
    ++m_uses[round];
    return true;
}

void RestartUses::takeUpEarlier(int round) {
    ++m_earlier[round];
    ++m_uses[round];
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
    if (s.privacy && (samplesClients(t) || !s.privacy->rerunRounds.isEmpty())) {
        // each worker's data spent in the rounds it trained in: drawn, and trained again by a resume
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
