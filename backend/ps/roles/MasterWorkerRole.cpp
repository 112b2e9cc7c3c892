#include "MasterWorkerRole.h"

#include "Channel.h"
#include "DeviceProbe.h"
#include "GlobalPolicies.h"
#include "LocalTrainer.h"
#include "ModelFrame.h"
#include "ModelSlices.h"
#include "ShardedLinks.h"
#include "PrivateFiles.h"
#include "RoleError.h"
#include "SchedulerClient.h"
#include "StartupClock.h"
#include "Vocabulary.h"

#include <QCborArray>
#include <QDateTime>
#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>

namespace hips {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

// One snapshot, whole (every global server's shard of one round), if one completes within `timeout`.
std::optional<ModelVersion> receiveSnapshot(ShardedLinks& links, std::chrono::milliseconds timeout) {
    return links.receive(QStringLiteral("snapshot"), 0, timeout);
}

}  // namespace

void writeModelMeta(const QString& dir, qint64 version, const EvalStats& e, const TrainingSettings& s, double beginTime) {
    QJsonObject meta{{"global_iters", version}, {"learning_rate", s.learningRate}, {"batch_size", s.batchSize}, {"begin_time", beginTime}};
    meta.insert(e.regression() ? metric::kTestRmse : metric::kTestAccuracy, e.regression() ? e.rmse : e.accuracy);
    const QByteArray bytes = QJsonDocument(meta).toJson(QJsonDocument::Compact);
    if (const QString error = writeFileAtomically(QDir(dir).filePath(QStringLiteral("net.meta")), bytes); !error.isEmpty())
        throw RoleError(error.toStdString());
}

QCborMap scoreFields(const EvalStats& e) {
    QCborMap fields{{metric::kTestLoss, e.loss}};
    if (e.regression()) {
        fields.insert(metric::kTestRmse, e.rmse);
        return fields;
    }
    fields.insert(metric::kTestAccuracy, e.accuracy);
    if (e.top5 >= 0) fields.insert(metric::kTestTop5, e.top5);
    return fields;
}

int runMasterWorker(RoleContext& ctx) {
    const double beginTime = double(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
    StartupClock startup;
    ModelEvaluator evaluator(ctx.training(), ctx.node.device);
    ctx.metrics.report(metric::kDevice, describeDevice(ctx.node.device));
    startup.mark(QStringLiteral("data_s"));
    SchedulerClient scheduler(ctx, ctx.scheduler(true), {});
    const QList<PeerInfo> servers = serversByRank(scheduler.join(), QStringLiteral("global_server"), ctx.topology);
    startup.mark(QStringLiteral("join_s"));
    evaluator.setProgress([&scheduler] { scheduler.working(); });  // each batch vouches for the heartbeats
    scheduler.watchWorkThread();
    ShardedLinks links(ctx, servers, evaluator.parameterCount());

    const FloatBuffer initial = std::make_shared<std::vector<float>>(evaluator.initialWeights());
    // (A global server that already has a model, restarted or resumed, keeps it: the init then
    // makes this node known to it and has it send the round it goes on from, to evaluate: that
    // round's evaluation may have died with the run before. A pull(0) in its place, until
    // 2026-12-02, was answered with a model this loop does not take.)
    links.init(initial);
    // A restarted global server reaches this node only once it has heard from it again: the init
    // tells it (it keeps its own model, and sends the newest round's to evaluate).
    if (recoversGlobalServer(ctx.training())) scheduler.watchMembership();
    startup.mark(QStringLiteral("init_s"));
    QCborMap fields = startup.fields();
    insertDataNames(fields, evaluator.classNames(), evaluator.featureNames());
    ctx.metrics.report(metric::kStartup, fields);

    const qint64 rounds = ctx.training().rounds;
    qint64 evaluated = -1;
    for (qint64 version = 0; version < rounds;) {  // as long as rounds take: liveness is the heartbeats'
        scheduler.throwIfAborted();
        for (const MembershipChange& c : scheduler.takeMembershipChanges())
            if (c.up && c.restarted && ctx.topology.node(c.node) && ctx.topology.node(c.node)->kind == RoleKind::GlobalServer) {
                links.follow(c.node, c.endpoint);  // (on its standby host, when it lost its own)
                links.init(initial);
            }
        std::optional<ModelVersion> snapshot = receiveSnapshot(links, 200ms);
        if (!snapshot) continue;
        // Snapshots that came while the last evaluation ran: only the newest is evaluated, so
        // the evaluator never lags behind training; the final model is always the newest.
        QCborArray skipped;
        while (std::optional<ModelVersion> newer = receiveSnapshot(links, 0ms)) {
            skipped.append(snapshot->version);
            snapshot = std::move(newer);
        }
        // (A restarted global server sends the newest round's model, which may be one done here.)
        if (snapshot->version <= evaluated) continue;
        version = evaluated = snapshot->version;
        if (snapshot->size != evaluator.parameterCount())
            throw RoleError("snapshot has " + std::to_string(snapshot->size) + " parameters, expected " +
                            std::to_string(evaluator.parameterCount()));
        const EvalStats stats = evaluator.evaluate(snapshot->data);
        QCborMap eval = scoreFields(stats);
        eval.insert(metric::kRound, version);
        eval.insert(QStringLiteral("eval_s"), stats.seconds);
        eval.insert(QStringLiteral("skipped"), skipped);
        eval.insert(QStringLiteral("skipped_rounds"), skipped.size());
        if (version >= rounds && !stats.confusion.empty() &&
            stats.confusion.size() <= 100 * 100) {  // the final model's confusion matrix, row = true class
            QCborArray confusion;
            for (int64_t c : stats.confusion) confusion.append(qint64(c));
            eval.insert(metric::kConfusion, confusion);
        }
        ctx.metrics.report(metric::kEval, eval);
        writeModelMeta(ctx.outDir, version, stats, ctx.training(), beginTime);
        evaluator.saveParameters(QDir(ctx.outDir).filePath(QStringLiteral("net.params")));
        // The trained model for PyTorch: the user's TorchScript module with its trained weights, or
        // a built-in model's state_dict (docs/topology.md: "The trained model in PyTorch").
        if (version >= rounds) evaluator.exportModel(QDir(ctx.outDir).filePath(QStringLiteral("model.pt")));
        if (version >= rounds) links.sendToAll(Message(message::kEvaluated, {{QStringLiteral("round"), version}}));
    }
    QCborMap traffic = links.trafficFields();
    traffic.insert(QStringLiteral("round"), rounds);
    ctx.metrics.report(metric::kTraffic, traffic);
    scheduler.leave();
    links.lingerOnClose(2s);  // (sealed links: tells the global servers it closes, so they need not wait for it)
    return kRoleOk;
}

}  // namespace hips
