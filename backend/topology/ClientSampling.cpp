#include "ClientSampling.h"

#include "AggregatorRegistry.h"
#include "ModeRegistry.h"
#include "RuleValidation.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace hips {

int drawnAmong(const Topology& t, const QSet<QString>& contributors, qint64 round) {
    return int(samplesClients(t) ? sampledContributors(t, contributors, round).size() : contributors.size());
}

namespace {

// Where party `index`'s own clients_per_round is in the file.
QString partySetting(qsizetype index) {
    return QStringLiteral("$.parties[%1].clients_per_round").arg(index);
}

qsizetype partyIndex(const Topology& t, const QString& id) {
    for (qsizetype i = 0; i < t.parties.size(); ++i)
        if (t.parties[i].id == id) return i;
    return -1;
}

// The workers a draw is made among: those of the parties without their own setting (id "") and
// those of each party with one (by its id), in the topology's order.
QHash<QString, QStringList> pools(const Topology& t) {
    QHash<QString, double> own;
    for (const Party& p : t.parties)
        if (p.clientsPerRound > 0) own.insert(p.id, p.clientsPerRound);
    QHash<QString, QStringList> out;
    for (const Node& n : t.nodes())
        if (n.kind == RoleKind::Worker) out[own.contains(n.party) ? n.party : QString()] << n.id;
    return out;
}

double settingOf(const Topology& t, const QString& pool) {
    if (pool.isEmpty()) return t.training.clientsPerRound;
    for (const Party& p : t.parties)
        if (p.id == pool) return p.clientsPerRound;
    return 0;
}

// A generator seeded by the run's seed, the round and the pool: the same draw in every process,
// on every machine (std::mt19937_64 is specified to the bit, and the shuffle below is ours).
std::mt19937_64 generatorFor(int seed, qint64 round, const QString& pool) {
    const QByteArray key = QByteArray::number(seed) + '/' + QByteArray::number(round) + '/' + pool.toUtf8();
    const QByteArray digest = QCryptographicHash::hash(key, QCryptographicHash::Sha256);
    // Each byte as a signed one, as x86's char is (char is unsigned on ARM: a byte of 0x80 or more
    // seeded another draw there, and a mixed federation's servers and workers disagreed on it).
    std::vector<uint32_t> words;
    for (char c : digest) words.push_back(uint32_t(int32_t(int8_t(c))));
    std::seed_seq seq(words.begin(), words.end());
    return std::mt19937_64(seq);
}

}  // namespace

bool samplesClients(const Topology& t) {
    if (t.training.clientsPerRound > 0) return true;
    return std::any_of(t.parties.begin(), t.parties.end(), [](const Party& p) { return p.clientsPerRound > 0; });
}

int clientsDrawn(double setting, int n) {
    if (setting <= 0 || n <= 0) return n;
    if (setting < 1) return std::clamp(ceilOfFraction(setting, n), 1, n);
    return std::min(int(setting), n);
}

QSet<QString> sampledWorkers(const Topology& t, qint64 round) {
    QSet<QString> out;
    const QHash<QString, QStringList> all = pools(t);
    for (auto it = all.begin(); it != all.end(); ++it) {
        QStringList pool = it.value();
        const int drawn = clientsDrawn(settingOf(t, it.key()), int(pool.size()));
        if (drawn < pool.size()) {  // the first `drawn` of a Fisher–Yates shuffle
            std::mt19937_64 rng = generatorFor(t.training.seed, round, it.key());
            for (int i = 0; i < drawn; ++i) pool.swapItemsAt(i, i + int(rng() % quint64(pool.size() - i)));
            pool = pool.mid(0, drawn);
        }
        for (const QString& w : pool) out.insert(w);
    }
    return out;
}

int sampledPerRound(const Topology& t) {
    int n = 0;
    const QHash<QString, QStringList> all = pools(t);
    for (auto it = all.begin(); it != all.end(); ++it) n += clientsDrawn(settingOf(t, it.key()), int(it.value().size()));
    return n;
}

QSet<QString> sampledContributors(const Topology& t, const QSet<QString>& contributors, qint64 round) {
    const QSet<QString> workers = sampledWorkers(t, round);
    QSet<QString> parties;
    for (const QString& w : workers)
        if (const auto n = t.node(w)) parties.insert(n->party);
    QSet<QString> out;
    for (const QString& c : contributors) {
        const auto n = t.node(c);
        if (!n) continue;
        if (n->kind == RoleKind::Worker ? workers.contains(c) : parties.contains(n->party)) out.insert(c);
    }
    return out;
}

namespace {

// A rule that needs several contributions (Krum: n > 2f + 2) gets only the drawn ones: as few as
// the draw gives a party (its own setting's count; from the run's draw, what is left once the
// other parties' workers are drawn, at least one), or a flat run. Fewer leave the model as it was.
void checkRuleMinimums(const Topology& t, TopologyIssues* issues) {
    const TrainingSettings& s = t.training;
    const QHash<QString, QStringList> all = pools(t);
    const int runPool = int(all.value(QString()).size()), runDrawn = clientsDrawn(s.clientsPerRound, runPool);
    const auto tooFew = [issues](const QString& path, const QString& rule, int needs, int fewest, const QString& where) {
        issues->append({path, QCoreApplication::translate("TopologyCheck",
                                                          "%1 needs at least %2 contributions a round, and clients_per_round draws as "
                                                          "few as %3 %4: draw more, or lower its byzantine_f")
                                  .arg(rule)
                                  .arg(needs)
                                  .arg(fewest)
                                  .arg(where)});
    };
    // (trimmed_mean trims what is drawn: a draw too small for trim_beta was the plain mean)
    const auto untrimmed = [issues](const QString& path, const QString& why) {
        if (!why.isEmpty()) issues->append({path, why});
    };
    if (s.flat()) {
        const auto rule = AggregatorRegistry::create(s.aggregation, [&s](const QString& n) { return s.param(n); });
        if (rule && sampledPerRound(t) < rule->minimumContributions())
            tooFew(QStringLiteral("$.training.clients_per_round"), s.aggregation, rule->minimumContributions(), sampledPerRound(t),
                   QCoreApplication::translate("TopologyCheck", "in the run"));
        if (sampledPerRound(t) < t.trainingWorkerCount())  // (all drawn: the round the rule check saw)
            untrimmed(QStringLiteral("$.training.clients_per_round"),
                      trimmedMeanDoesNotTrim(s.aggregation, s.param(QStringLiteral("trim_beta")), sampledPerRound(t),
                                             QCoreApplication::translate("TopologyCheck", "a round of the draw")));
        return;
    }
    const auto rule = AggregatorRegistry::create(s.partyAggregation, [&s](const QString& n) { return s.partyParam(n); });
    const bool trims = s.partyAggregation == QLatin1String(rule::kTrimmedMean);
    if (!rule || (rule->minimumContributions() <= 1 && !trims)) return;
    for (qsizetype i = 0; i < t.parties.size(); ++i) {
        const Party& p = t.parties[i];
        const int workers = p.workerCount();
        if (p.central || workers == 0) continue;
        const int fewest = all.contains(p.id)    ? clientsDrawn(p.clientsPerRound, workers)
                           : runDrawn >= runPool ? workers
                                                 : std::max(1, runDrawn - (runPool - workers));
        const QString path = all.contains(p.id) ? partySetting(i) : QStringLiteral("$.training.clients_per_round");
        if (fewest < rule->minimumContributions())
            tooFew(path, s.partyAggregation, rule->minimumContributions(), fewest,
                   QCoreApplication::translate("TopologyCheck", "in party %1").arg(p.id));
        if (all.contains(p.id) && fewest < workers)  // (its own draw; a run-wide draw's fewest is its worst case, often 1)
            untrimmed(path, trimmedMeanDoesNotTrim(s.partyAggregation, s.partyParam(QStringLiteral("trim_beta")), fewest,
                                                   QCoreApplication::translate("TopologyCheck", "party '%1''s drawn round").arg(p.id)));
    }
}

}  // namespace

void checkClientSampling(const Topology& t, TopologyIssues* issues) {
    if (!samplesClients(t)) return;
    const TrainingSettings& s = t.training;
    const auto add = [issues](const QString& path, const QString& message) { issues->append({path, message}); };
    const QHash<QString, QStringList> all = pools(t);
    for (auto it = all.begin(); it != all.end(); ++it) {
        const double setting = settingOf(t, it.key());
        if (setting >= 1 && setting > it.value().size())
            add(it.key().isEmpty() ? QStringLiteral("$.training.clients_per_round") : partySetting(partyIndex(t, it.key())),
                QCoreApplication::translate("TopologyCheck", "clients_per_round %1 draws more workers than the %2 there are%3")
                    .arg(setting)
                    .arg(it.value().size())
                    .arg(it.key().isEmpty() ? QString() : QCoreApplication::translate("TopologyCheck", " in party %1").arg(it.key())));
    }
    if (t.training.clientsPerRound > 0 && !all.contains(QString()))
        add(QStringLiteral("$.training.clients_per_round"),
            QCoreApplication::translate("TopologyCheck",
                                        "every party draws its own clients_per_round: remove the "
                                        "run's, or a party's"));
    if (const StrategyInfo* mode = ModeRegistry::find(s.mode)) {
        const ModePolicy p = ModeRegistry::policy(s.mode);
        if (p.party != TierSync::Rounds || p.global != TierSync::Rounds || p.hierarchicalFrequency || p.stateService || p.standalone ||
            s.workerPushesPerRound() != 1)
            add(QStringLiteral("$.training.mode"),
                QCoreApplication::translate("TopologyCheck",
                                            "clients_per_round draws the workers of each round, and mode %1 "
                                            "does not train in rounds of one push per worker: use fedavg")
                    .arg(mode->name));
    }
    const auto rule = AggregatorRegistry::create(s.aggregation);
    if (rule && !rule->foldsOnArrival() && !s.flat())
        add(QStringLiteral("$.training.aggregation"),
            QCoreApplication::translate("TopologyCheck",
                                        "aggregation %1 takes every worker's own update through its party "
                                        "server, which a drawn-out party would not send: use fedavg, or "
                                        "hierarchy flat")
                .arg(s.aggregation));
    checkRuleMinimums(t, issues);
    if (s.param(QStringLiteral("quorum")) > 0)
        add(QStringLiteral("$.training.quorum"),
            QCoreApplication::translate("TopologyCheck", "a quorum and clients_per_round both leave workers out of a round: keep one"));
    if (s.secureAggregation)
        add(QStringLiteral("$.training.secure_aggregation"),
            QCoreApplication::translate("TopologyCheck",
                                        "a party none of whose workers is drawn would have its masks recovered every such round: "
                                        "remove clients_per_round or secure_aggregation"));
    bool attacks = s.adversary.has_value();
    for (const Party& p : t.parties) {
        attacks = attacks || p.adversary.has_value();
        for (const WorkerGroup& g : p.workers) attacks = attacks || g.adversary.has_value();
    }
    if (attacks)
        add(QStringLiteral("$.training.adversary"),
            QCoreApplication::translate("TopologyCheck",
                                        "the adversaries attack in every round, and clients_per_round would "
                                        "leave them out of some: remove one"));
}

}  // namespace hips
