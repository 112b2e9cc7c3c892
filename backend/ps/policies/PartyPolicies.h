#pragma once
// The party server's policies (ServerPolicy): rounds inside the party (fedavg, ssgd, esync,
// mixed_sync: every worker's push folded, the sum up slice by slice), HFA (k2 party syncs on the
// party's own model before one goes up), and forwarding (asgd, dcasgd: each push up alone, the
// global server's answer back to its worker).
#include "ModelBuffers.h"
#include "ModelSlices.h"
#include "PendingPulls.h"
#include "RoleContext.h"
#include "SecureParty.h"
#include "ServerPolicy.h"

#include <QSet>
#include <functional>
#include <memory>

namespace hips {

// The model as it arrives from the global server, slice by slice, or as the party made it
// (HFA); the party's workers see the party's rounds as versions.
struct PartyModel {
    qint64 version = -1;
    qint64 round = 0;  // the party round whose push this model answers (0: the initial model)
    size_t total = 0, received = 0;
    std::vector<ModelSlice> slices;
    QStringList forwarding;  // pullers being served this version as it arrives
    bool complete() const { return received == total && total > 0; }
};

// What the party server's policies act on, owned by the role.
struct PartyTier {
    RoleContext& ctx;
    Channel& workers;
    Channel* upstream = nullptr;
    PartyModel& model;
    PendingPulls& pulls;
    ModelBufferPool& pool;
    QSet<QString> workerIds;
    qint64 pushedRound = 0;  // the party's last round pushed up
    qint64 globalVersion = -1;  // the global server's version of the model held
    qint64 newestVersion = 0;  // the newest global version seen
    quint64 latePushes = 0;
    quint64 overclaims = 0;  // workers' pushes that claimed more samples than the plan (RoundCollector)
    std::function<void(const QString& worker)> done;  // a worker got its last answer
    std::function<void(qint64 round, const FloatBuffer& weights)> publish;  // a model made here, for the workers
    SecureParty* secure = nullptr;  // secure aggregation: the party's sums go up masked through it
};

class PartyPolicy : public ServerPolicy {
public:
    // A slice from the global server; true when the policy took it (an answer to a forwarded push).
    virtual bool onUpstreamSlice(const ModelSlice&) { return false; }
    // A new global model is here, whole.
    virtual void onGlobalModel() {}
    // The global server was restarted (recoversGlobalServer): what it may not have had of this
    // party's open round goes up again.
    virtual void onUpstreamBack() {}
};

std::unique_ptr<PartyPolicy> makePartyPolicy(PartyTier& tier);

}  // namespace hips
