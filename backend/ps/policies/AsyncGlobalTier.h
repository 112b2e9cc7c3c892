#pragma once
// The global server in the asynchronous modes (ModePolicy::global == AsPushesCome: asgd, dcasgd,
// mixed_sync): each push is applied alone as soon as it is whole, w ← w + Δ (DC-ASGD compensates
// Δ for the versions applied since its base first), and its sender gets the new model at once.
// A "round", for progress, evaluation and the end of the run, is as many pushes as the
// contributors make in one synchronous round (each party's workers, or each party's sum).
#include "AsyncPushes.h"
#include "RoleContext.h"

#include <map>
#include <optional>

namespace hips {

class AsyncGlobalTier {
public:
    AsyncGlobalTier(const RoleContext& ctx, const QSet<QString>& contributors);

    struct Applied {
        QString sender;  // gets the new model
        QString origin;  // the worker behind it: the sender, or the one its party server names
        qint64 staleness = 0;  // versions applied between the push's base and itself
        bool refused = false;  // a slice was not finite: nothing applied (the version still moves on)
        bool compensated = false;
        bool senderDone = false;  // its last push: it will not push again
        std::optional<qint64> roundDone;  // this push completed a round's worth of pushes
    };
    // Takes one push slice; once a push is whole, applies it to `model` (a new version in a
    // buffer from `pool`) and says whom to answer.
    std::optional<Applied> add(Envelope& push, ModelVersion& model, ModelBufferPool& pool);
    int pushesPerRound() const { return m_perRound; }
    quint64 rejected() const { return m_pushes.rejected() + m_beyondQuota; }

private:
    bool beyondQuota(const Applied& a) const;
    bool compensate(std::vector<float>& delta, const ModelVersion& now, qint64 base);
    void remember(const ModelVersion& model);

    QString originOf(const WholePush& push) const;

    const TrainingSettings& m_settings;
    const Topology& m_topology;
    AsyncPushes m_pushes;
    // Pushes each contributor makes in the run, and has made (and each worker behind a forwarding
    // party server: m_workersPushes, one worker's pushes in the run).
    QHash<QString, qint64> m_quota, m_pushed;
    qint64 m_workersPushes;
    quint64 m_beyondQuota = 0;
    RejectionLog m_log;
    int m_perRound = 0;
    qint64 m_handled = 0;
    bool m_compensation = false;
    // DC-ASGD compensates gradients: the shard's floats that are weights, not BatchNorm's running
    // statistics after them (which are no gradient's and may not go below zero).
    size_t m_weightFloats = 0;
    std::map<qint64, ModelVersion> m_recent;  // the versions pushes may still be based on (DC-ASGD)
};

}  // namespace hips
