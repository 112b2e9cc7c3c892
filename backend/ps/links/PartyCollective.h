#pragma once
// One worker's side of a collective party (Party::transport): instead of pushing to a party
// server, the party's workers sum each push among themselves (Collective.h over MeshPeers), the
// weight behind it riding along as one more float (with party_compression fp16, whose chunks
// travel as half floats, summed on its own, exactly). The lowest-ranked worker then does what a
// party server does upstream: it joins the global scheduler, pushes the party's sum to the global
// servers and waits for the answer, which it broadcasts down through the same mesh.
//
// Under fault_policy continue the party goes on without a lost member: its scheduler says who is
// down, every member drops it at the same point of the scheduler's one ordered list of losses
// (so all agree on the ranks left), and a round's exchange is done again over those left. The
// model then goes down from the pushing worker to each member directly (a chain would leave those
// behind a lost member without it), under one tag a round, so that a member whose retried sum
// can no longer complete (the others had finished theirs) takes the model as soon as it comes.
// The lowest rank left pushes: when the pushing worker is lost, the next joins the global tier in
// its place and hands every member the newest global model, which they all go on from (some had
// its last round's model, some not: this is where they agree again).
#include "Collective.h"
#include "MeshPeers.h"
#include "ModelBuffers.h"
#include "ModelFrame.h"
#include "RoleError.h"
#include "RoleContext.h"
#include "SchedulerClient.h"

#include <chrono>
#include <functional>
#include <memory>
#include <optional>

namespace hips {

// The party cannot go on without a member it lost (its pushing worker): this worker leaves the run.
struct PartyCannotGoOn : RoleError {
    using RoleError::RoleError;
};

class PartyCollective {
public:
    // Binds this worker's end of the mesh on its host's address, on a port the kernel chooses.
    explicit PartyCollective(RoleContext& ctx);
    ~PartyCollective();

    QString endpoint() const { return m_mesh->endpoint(); }  // what it registers with its party scheduler
    // The party scheduler's table (every worker's endpoint). The pushing worker then joins the
    // global scheduler: the global servers, by rank, are what it pushes to.
    QList<PeerInfo> connect(const QList<PeerInfo>& partyTable);
    bool pushes() const { return m_rank == pusherRank(); }
    SchedulerClient* globalScheduler() { return m_global.get(); }  // the pushing worker's; null elsewhere
    // Joins the global scheduler (once; then its table again): the global servers, by rank.
    QList<PeerInfo> joinGlobal();
    // Called while a step waits (it may throw: a scheduler's abort).
    void setWhileWaiting(std::function<void()> f) { m_whileWaiting = std::move(f); }
    // fault_policy continue: the losses `partyScheduler` reports (a member down, or restarted: a
    // new process that holds nothing) leave that member out of every exchange from then on.
    void followLosses(SchedulerClient& partyScheduler) { m_partyScheduler = &partyScheduler; }
    // What this worker does when it becomes the pushing worker mid-run: joins the global tier
    // (joinGlobal) and returns the newest global model.
    void setTakeOver(std::function<ModelVersion()> f) { m_takeOver = std::move(f); }

    // The pushing worker's way up: pushes the party's sum (none: a pull) and returns the answer.
    using Upstream = std::function<ModelVersion(const FloatBuffer& sum, double weight)>;
    // One round of the party: `update` (none: a pull) summed over its workers, pushed up by its
    // pushing worker (`upstream`), and the answer, `floats` long, on every worker.
    ModelVersion exchange(const FloatBuffer& update, double weight, qint64 round, size_t floats, const Upstream& upstream);
    // The parts of an exchange (HFA's syncs, never under fault_policy continue):
    // `update` ← the party's sum of its workers' updates of `round`; returns the sum of their weights.
    double sum(std::vector<float>& update, double weight, qint64 round);
    // The pushing worker's `model` (the global answer of `round`, `floats` long) on every worker of the party.
    ModelVersion share(const ModelVersion& model, size_t floats, qint64 round);

    QString transport() const { return m_transport; }
    // The mesh's channels (every link inside the party), for the traffic records.
    std::vector<const Channel*> channels() const { return m_mesh->channels(); }
    // The sealed links' traffic (transport_security sealed), as a traffic record's links.
    QCborArray sealedTraffic() const { return m_mesh->bulkTraffic(); }
    // What the mesh refused (a stranger's, a malformed or replayed frame, a chunk that did not open).
    quint64 refused() const { return m_mesh->refused(); }
    void leave();

private:
    // What a worker is doing in an exchange that goes on without lost members: what its waits check.
    enum class Phase { Idle, Reducing, AwaitingModel, Broadcasting };
    struct ViewChanged {};  // a member was lost since this attempt began: the exchange starts again
    struct ModelCame {};  // the round's model is coming: the others finished their sum

    using TagOf = std::function<quint64(size_t chunk)>;
    ModelVersion exchangeGoingOn(const FloatBuffer& update, double weight, qint64 round, size_t floats, const Upstream& upstream);
    // After its pushing worker was lost: the new one's newest global model on every member.
    ModelVersion agreeAgain(std::optional<ModelVersion>& newest, size_t floats);
    double sumOver(CollectivePeers& peers, std::vector<float>& update, double weight, qint64 round, size_t epoch);
    void fanOut(const ModelVersion& model, size_t floats, const TagOf& tagOf);
    ModelVersion takeModel(size_t floats, const TagOf& tagOf);
    int pusherRank() const;  // the lowest rank left
    // Takes in the scheduler's losses (a lost pushing worker: the party must agree again).
    void takeLosses();
    // A new attempt at `round`: the losses so far, the stash without an abandoned attempt's chunks.
    void beginAttempt(qint64 round);
    std::vector<int> liveRanks() const;
    std::vector<float> leaveOutWhatIsNoNumber(std::vector<float>& update, qint64 round);
    void whileWaiting();

    RoleContext& m_ctx;
    QString m_transport;
    int m_rank = 0;
    std::unique_ptr<Collective> m_collective;
    std::unique_ptr<Collective> m_weights;  // at half precision: the weights' own exact sum
    std::unique_ptr<MeshPeers> m_mesh;
    std::unique_ptr<SchedulerClient> m_global;
    QList<PeerInfo> m_globalTable;
    std::function<void()> m_whileWaiting;
    std::function<ModelVersion()> m_takeOver;
    SchedulerClient* m_partyScheduler = nullptr;  // under fault_policy continue
    quint64 m_roundsNotANumber = 0;  // rounds whose update held NaN or infinite values
    float m_unreached = 0.0f;  // a slice of the sum no member reached (partiesPassOnUnreached)
    std::chrono::steady_clock::time_point m_notANumberSaid;
    std::vector<int> m_lost;  // ranks lost, in the order the scheduler said: the view's epoch is its size
    Phase m_phase = Phase::Idle;
    size_t m_attemptEpoch = 0;
    qint64 m_round = 0;
    bool m_modelStarted = false;  // the model's first chunk was taken
    int m_modelFrom = 0;  // the rank the model being taken comes from
    std::optional<size_t> m_agreeAt;  // the epoch whose new pushing worker hands out the newest model, until it is taken
    size_t m_chunkFloats = 1;
};

}  // namespace hips
