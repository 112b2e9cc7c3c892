#include "AsyncGlobalTier.h"

#include "ModeRegistry.h"
#include "ModelRegistry.h"
#include "ShardedLinks.h"
#include "VectorMath.h"

#include <algorithm>

namespace hips {

AsyncGlobalTier::AsyncGlobalTier(const RoleContext& ctx, const QSet<QString>& contributors)
    : m_settings(ctx.training()),
      m_topology(ctx.topology),
      m_pushes(ctx.node.id, contributors),
      m_workersPushes(m_settings.rounds * m_settings.workerPushesPerRound()),
      m_log(ctx.node.id) {
    const ModePolicy policy = ModeRegistry::policy(m_settings.mode);
    m_compensation = policy.delayCompensation;
    if (const Party* central = ctx.topology.centralParty(); m_compensation && central)
        m_weightFloats = shardMapOf(m_settings, int(central->servers.size()))
                             .floatsBelow(ctx.node.rank, ModelRegistry::trainableFloats(m_settings.modelSpec()));
    for (const QString& id : contributors) {
        const auto node = ctx.topology.node(id);
        const Party* party = node ? ctx.topology.party(node->party) : nullptr;
        // A party server forwards each worker's push (party tier async) or one sum per round.
        const int perRound =
            node && node->kind == RoleKind::Server && party && policy.party == TierSync::AsPushesCome ? party->workerCount() : 1;
        m_perRound += perRound;
        m_quota.insert(id, perRound * m_workersPushes);
    }
}

// A push beyond its sender's pushes in the run, or beyond those of the worker its party server
// forwards it for, is refused: answered (its sender waits for a model), not applied, and no share
// of a round, so that one worker can neither outweigh the others nor end the run early.
bool AsyncGlobalTier::beyondQuota(const Applied& a) const {
    const bool forwarded = a.origin != a.sender;
    return m_pushed.value(a.sender) >= m_quota.value(a.sender) || (forwarded && m_pushed.value(a.origin) >= m_workersPushes);
}

std::optional<AsyncGlobalTier::Applied> AsyncGlobalTier::add(Envelope& push, ModelVersion& model, ModelBufferPool& pool) {
    std::optional<WholePush> whole = m_pushes.add(push, model.size, model.version);
    if (!whole) return std::nullopt;
    Applied a;
    a.sender = whole->sender;
    a.origin = originOf(*whole);
    a.staleness = model.version - whole->base;
    a.refused = !whole->values;
    if (beyondQuota(a)) {
        ++m_beyondQuota;
        m_log.reject(a.sender, QStringLiteral("push %1 is beyond the %2 pushes %3 makes in the run; not applied")
                                   .arg(whole->round)
                                   .arg(a.origin != a.sender ? m_workersPushes : m_quota.value(a.sender))
                                   .arg(a.origin));
        a.refused = true;
        model.version += 1;  // answered with a newer version all the same
        return a;
    }
    if (m_compensation && !m_recent.count(model.version)) remember(model);  // the initial model
    if (whole->values) {
        if (m_compensation && a.staleness > 0) a.compensated = compensate(*whole->values, model, whole->base);
        FloatBuffer next = pool.acquire(model.size);
        sumInto(next->data(), model.data, whole->values->data(), model.size);
        model = ModelVersion::fromBuffer(model.version + 1, next);
    } else {
        model.version += 1;  // every push is answered with a newer version, so its sender never waits in vain
    }
    if (m_compensation) remember(model);
    if (a.origin != a.sender) ++m_pushed[a.origin];
    a.senderDone = ++m_pushed[a.sender] >= m_quota.value(a.sender);
    if (++m_handled % m_perRound == 0) a.roundDone = m_handled / m_perRound;
    return a;
}

// A party server names the worker whose push it forwards; only one of that party's workers is
// believed (anything else is reported as the party server's own).
QString AsyncGlobalTier::originOf(const WholePush& push) const {
    const auto claimed = push.origin.isEmpty() ? std::nullopt : m_topology.node(push.origin);
    const auto sender = m_topology.node(push.sender);
    const bool believable = claimed && sender && claimed->kind == RoleKind::Worker && claimed->party == sender->party;
    return believable ? push.origin : push.sender;
}

bool AsyncGlobalTier::compensate(std::vector<float>& delta, const ModelVersion& now, qint64 base) {
    const auto backup = m_recent.find(base);
    if (backup == m_recent.end()) return false;  // older than any version kept: applied as it is
    const double share =
        ModeRegistry::pushShare(m_settings.mode, m_settings.param(QStringLiteral("whole_push")), m_topology.trainingWorkerCount());
    // (Under local_epochs a push's steps are its shard's: known to its worker only, taken as one.)
    const float steps = float(std::max(1, m_settings.localIters));
    compensateDelay(delta.data(), now.data, backup->second.data, std::min(delta.size(), m_weightFloats),
                    float(m_settings.param(QStringLiteral("dc_lambda"))), float(m_settings.learningRate), float(share), steps,
                    float(m_settings.momentum));
    return true;
}

// The versions a push may be based on. A slow worker's base can be many versions old while fast
// ones push; one older than what is kept is applied uncompensated (the metric says so).
void AsyncGlobalTier::remember(const ModelVersion& model) {
    m_recent[model.version] = model;
    while (m_recent.size() > size_t(4 * m_perRound + 8)) m_recent.erase(m_recent.begin());
}

}  // namespace hips
