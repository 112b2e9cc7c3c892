// The worker strategies of the modes (ALGORITHMS.md has the formulas).
#include "WorkerStrategy.h"

#include "ModeRegistry.h"
#include "ModelRegistry.h"
#include "StateServiceRole.h"

#include <cstdint>

namespace hips {

namespace {

// fedavg, asgd, dcasgd, mixed_sync: local_iters steps (or local_epochs passes), then the delta
// (w_local − w)·scale. hfa: k1 steps, the delta scaled for the party's own average.
class ModelDelta : public WorkerStrategy {
public:
    ModelDelta(float scale, qint64 steps) : m_scale(scale), m_steps(steps) {}
    RoundStats work(LocalTrainer& trainer, qint64) override { return m_steps > 0 ? trainer.trainSteps(m_steps) : trainer.trainRound(); }
    void update(const LocalTrainer& trainer, const ModelVersion& base, float* out) const override {
        trainer.writeDelta(base.data, m_scale, out);
        for (size_t i = m_statsFrom; i < base.size; ++i) out[i] *= m_statsScale / m_scale;
    }
    // The floats from `from` on (BatchNorm's running statistics) scaled by `scale` instead: averaged
    // where the weights take a step of their own (ESync's global_lr would push a variance below 0).
    void scaleStatistics(size_t from, float scale) { m_statsFrom = from, m_statsScale = scale; }

protected:
    float m_scale;
    qint64 m_steps;  // 0: a round's worth (local_iters or local_epochs)
    size_t m_statsFrom = SIZE_MAX;
    float m_statsScale = 1;
};

// ssgd: the gradient of one batch at w, scaled by 1/N; the global server owns the optimizer.
class Gradient final : public WorkerStrategy {
public:
    explicit Gradient(float scale) : m_scale(scale) {}
    RoundStats work(LocalTrainer& trainer, qint64) override { return trainer.gradient(); }
    void update(const LocalTrainer& trainer, const ModelVersion&, float* out) const override { trainer.writeGradient(m_scale, out); }

private:
    float m_scale;
};

// esync: steps until the state service says ready (fast devices do several while the slowest
// does one), then the delta scaled by global_lr / N.
class Esync final : public ModelDelta {
public:
    Esync(RoleContext& ctx, float scale) : ModelDelta(scale, 0), m_service(ctx) {}
    void start(LocalTrainer& trainer) override { m_service.ready(0, trainer.gradient().computeSeconds); }
    RoundStats work(LocalTrainer& trainer, qint64 sync) override {
        m_service.beginRound(sync);
        RoundStats total, s;
        do {
            s = trainer.step();
            total.loss += s.loss;
            total.samples += s.samples;
            total.computeSeconds += s.computeSeconds;
            ++total.steps;
        } while (!m_service.ready(int(total.steps), s.computeSeconds));
        total.loss /= double(total.steps);
        return total;
    }
    void finish() override { m_service.leave(); }
    void setWhileWaiting(std::function<void()> f) override { m_service.setWhileWaiting(std::move(f)); }

private:
    StateServiceClient m_service;
};

// ESync's w + global_lr·Σ(w_i − w)/N for the weights; BatchNorm's statistics averaged.
template <typename Strategy>
std::unique_ptr<Strategy> esyncScaled(std::unique_ptr<Strategy> strategy, const TrainingSettings& s, float workers) {
    strategy->scaleStatistics(ModelRegistry::trainableFloats(s.modelSpec()), 1.0f / workers);
    return strategy;
}

}  // namespace

std::unique_ptr<WorkerStrategy> makeWorkerStrategy(RoleContext& ctx) {
    const TrainingSettings& s = ctx.training();
    const float workers = float(ctx.topology.trainingWorkerCount());
    if (ModeRegistry::policy(s.mode).stateService)
        return esyncScaled(std::make_unique<Esync>(ctx, float(s.param(QStringLiteral("global_lr"))) / workers), s, workers);
    return makeWorkerStrategy(ctx.topology, ctx.node);
}

std::unique_ptr<WorkerStrategy> makeWorkerStrategy(const Topology& t, const Node& node) {
    const TrainingSettings& s = t.training;
    const ModePolicy policy = ModeRegistry::policy(s.mode);
    const float workers = float(t.trainingWorkerCount());
    // esync's update (its steps end when the state service says: the RoleContext overload asks it,
    // hips simulate asks the rule itself).
    if (policy.stateService)
        return esyncScaled(std::make_unique<ModelDelta>(float(s.param(QStringLiteral("global_lr"))) / workers, 0), s, workers);
    if (policy.gradientEveryStep) return std::make_unique<Gradient>(1.0f / workers);
    if (policy.hierarchicalFrequency) {  // the party's average: its own workers count
        const float partyWorkers = float(t.party(node.party)->workerCount());
        return std::make_unique<ModelDelta>(1.0f / partyWorkers, qint64(s.param(QStringLiteral("k1"))));
    }
    return std::make_unique<ModelDelta>(float(ModeRegistry::pushShare(s.mode, s.param(QStringLiteral("whole_push")), int(workers))), 0);
}

}  // namespace hips
