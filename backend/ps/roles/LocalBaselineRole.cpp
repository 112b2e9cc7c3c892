#include "LocalBaselineRole.h"

#include "LocalTrainer.h"
#include "MasterWorkerRole.h"
#include "StartupClock.h"
#include "Vocabulary.h"

#include <QDateTime>
#include <QDir>
#include <chrono>

namespace hips {

int runLocalBaseline(RoleContext& ctx) {
    using Clock = std::chrono::steady_clock;
    const double beginTime = double(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
    const TrainingSettings& s = ctx.training();
    StartupClock startup;
    ModelEvaluator evaluator(s, ctx.node.device);
    // Plain SGD: a proximal term would pull it toward its random start all run long (it has no
    // round's model to be near: proximal_mu has no effect here, as validation says).
    TrainingSettings plain = s;
    plain.proximalMu = 0;
    LocalTrainer trainer(plain, 0, 1, ctx.node.device);  // shard 0 of 1: the whole training set
    std::vector<float> weights = evaluator.initialWeights();
    trainer.setWeights(weights.data());
    startup.mark(QStringLiteral("data_s"));
    ctx.metrics.report(metric::kStartup, startup.fields());

    for (qint64 round = 1; round <= s.rounds; ++round) {
        const auto start = Clock::now();
        const RoundStats stats = trainer.trainRound();
        ctx.metrics.report(metric::kTrain, {{metric::kRound, round},
                                            {metric::kLoss, stats.loss},
                                            {metric::kSamples, qint64(stats.samples)},
                                            {metric::kComputeSeconds, stats.computeSeconds},
                                            {metric::kCommSeconds, 0.0}});
        ctx.metrics.report(metric::kAggregate, {{metric::kRound, round},
                                                {metric::kApplySeconds, 0.0},
                                                {metric::kRoundSeconds, std::chrono::duration<double>(Clock::now() - start).count()}});
        if (round % s.evalEvery != 0 && round != s.rounds) continue;
        trainer.writeWeights(weights.data());
        const EvalStats e = evaluator.evaluate(weights.data());
        QCborMap eval = scoreFields(e);
        eval.insert(metric::kRound, round);
        eval.insert(QStringLiteral("eval_s"), e.seconds);
        eval.insert(QStringLiteral("skipped_rounds"), 0);
        ctx.metrics.report(metric::kEval, eval);
        writeModelMeta(ctx.outDir, round, e, s, beginTime);
        evaluator.saveParameters(QDir(ctx.outDir).filePath(QStringLiteral("net.params")));
    }
    return kRoleOk;
}

}  // namespace hips
