#pragma once
// One worker's side of a collective party (Party::transport): instead of pushing to a party
// server, the party's workers sum each push among themselves (Collective.h over MeshPeers), the
// weight behind it riding along as one more float (with party_compression fp16, whose chunks
// travel as half floats, summed on its own, exactly). The lowest-ranked worker then does what a
// party server does upstream: it joins the global scheduler, pushes the party's sum to the global
// servers and waits for the answer, which it broadcasts down through the same mesh.
#include "Collective.h"
#include "MeshPeers.h"
#include "ModelBuffers.h"
#include "RoleContext.h"
#include "SchedulerClient.h"

#include <functional>
#include <memory>

namespace hips {

class PartyCollective {
public:
    // Binds this worker's end of the mesh on its host's address, on a port the kernel chooses.
    explicit PartyCollective(RoleContext& ctx);
    ~PartyCollective();

    QString endpoint() const { return m_mesh->endpoint(); }  // what it registers with its party scheduler
    // The party scheduler's table (every worker's endpoint). The pushing worker then joins the
    // global scheduler: the global servers, by rank, are what it pushes to.
    QList<PeerInfo> connect(const QList<PeerInfo>& partyTable);
    bool pushes() const { return m_rank == 0; }
    SchedulerClient* globalScheduler() { return m_global.get(); }  // the pushing worker's; null elsewhere
    // Called while a step waits (it may throw: a scheduler's abort).
    void setWhileWaiting(std::function<void()> f) { m_mesh->setWhileWaiting(std::move(f)); }

    // `update` ← the party's sum of its workers' updates of `round`; returns the sum of their weights.
    double sum(std::vector<float>& update, double weight, qint64 round);
    // The pushing worker's `model` (the global answer of `round`, `floats` long) on every worker of the party.
    ModelVersion share(const ModelVersion& model, size_t floats, qint64 round);

    QString transport() const { return m_transport; }
    // The mesh's channels (every link inside the party), for the traffic records.
    std::vector<const Channel*> channels() const { return m_mesh->channels(); }
    // The sealed links' traffic (transport_security sealed), as a traffic record's links.
    QCborArray sealedTraffic() const { return m_mesh->bulkTraffic(); }
    void leave();

private:
    RoleContext& m_ctx;
    QString m_transport;
    int m_rank = 0;
    std::unique_ptr<Collective> m_collective;
    std::unique_ptr<Collective> m_weights;  // at half precision: the weights' own exact sum
    std::unique_ptr<MeshPeers> m_mesh;
    std::unique_ptr<SchedulerClient> m_global;
};

}  // namespace hips
