#include "Collusion.h"

#include "Adversary.h"
#include "RobustRules.h"

#include <algorithm>
#include <vector>

namespace hips {

const AdversarySpec* attackOf(const Topology& t, const Node& worker, qint64 round) {
    if (!worker.adversary.kind.isEmpty()) return &worker.adversary;
    const auto& runWide = t.training.adversary;
    if (runWide && drawnToAttack(t.trainingWorkerIndex(worker.id), t.trainingWorkerCount(), runWide->count, t.training.seed, round))
        return &*runWide;
    return nullptr;
}

namespace {

bool declaresCollusion(const Topology& t) {
    if (t.training.adversary && isColluding(t.training.adversary->kind)) return true;
    for (const Node& n : t.nodes())
        if (isColluding(n.adversary.kind)) return true;
    return false;
}

class SimulatedCollusion final : public AggregationRule {
public:
    SimulatedCollusion(std::unique_ptr<AggregationRule> inner, const Topology& t) : m_inner(std::move(inner)), m_topology(t) {}

    QString name() const override { return m_inner->name(); }
    void begin(size_t length) override {
        m_length = length;
        m_held.clear();
        m_inner->begin(length);
    }
    void beginRound(size_t length, qint64 round) override {
        // A worker's round from the server's: several pushes make a round where it pushes each step.
        m_round = (round - 1) / std::max<qint64>(1, m_topology.training.workerPushesPerRound()) + 1;
        begin(length);
    }
    void add(Contribution c) override { m_held.push_back(std::move(c)); }
    // Held until finish(), the inner rule's after (begin() empties both): the collector reads it
    // after finish() to scale a centre to the workers behind it; 0 there left the step k/N long.
    int contributions() const override { return int(m_held.size()) + m_inner->contributions(); }

    void finish() override {
        // In the senders' order, whatever the arrival: the lie sums the honest values (in that
        // order) and takes the first liar's settings, and two runs with one seed made other bits.
        std::stable_sort(m_held.begin(), m_held.end(),
                         [](const Contribution& a, const Contribution& b) { return naturalLess(a.from, b.from); });
        std::vector<const float*> honest;
        std::vector<std::pair<size_t, AdversarySpec>> liars;  // (a copy: the node is gone after each pass)
        for (size_t i = 0; i < m_held.size(); ++i) {
            const std::optional<Node> node = m_topology.node(m_held[i].from);
            const AdversarySpec* attack = node && node->kind == RoleKind::Worker ? attackOf(m_topology, *node, m_round) : nullptr;
            if (attack && isColluding(attack->kind)) liars.emplace_back(i, *attack);
            else honest.push_back(m_held[i].values);
        }
        if (!liars.empty() && !honest.empty()) {
            auto lie = std::make_shared<std::vector<float>>(m_length);
            colludingUpdate(liars.front().second, honest, m_length, int(m_held.size()), int(liars.size()), lie->data());
            for (const auto& [index, attack] : liars) {  // they collude: one vector for all
                m_held[index].values = lie->data();
                m_held[index].owner = lie;
            }
        }
        for (Contribution& c : m_held) m_inner->add(std::move(c));
        m_held.clear();
        m_inner->finish();
    }

    void write(float* out, const float* base, size_t b, size_t e) const override { m_inner->write(out, base, b, e); }
    bool comparesWholeUpdates() const override { return m_inner->comparesWholeUpdates(); }
    bool codesWorkers() const override { return m_inner->codesWorkers(); }
    bool centres() const override { return m_inner->centres(); }
    int minimumContributions() const override { return m_inner->minimumContributions(); }
    QString minimumReason() const override { return m_inner->minimumReason(); }
    QCborMap report() const override { return m_inner->report(); }
    bool shortRound() const override { return m_inner->shortRound(); }

private:
    std::unique_ptr<AggregationRule> m_inner;
    const Topology& m_topology;
    size_t m_length = 0;
    qint64 m_round = 1;
    std::vector<Contribution> m_held;
};

}  // namespace

std::unique_ptr<AggregationRule> withCollusion(std::unique_ptr<AggregationRule> rule, const Topology& topology) {
    if (!declaresCollusion(topology)) return rule;
    return std::make_unique<SimulatedCollusion>(std::move(rule), topology);
}

}  // namespace hips
