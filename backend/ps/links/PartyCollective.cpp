#include "PartyCollective.h"

#include "Channel.h"
#include "ModelFrame.h"
#include "ModelSlices.h"
#include "PartySequence.h"
#include "PeerSubset.h"
#include "RoleError.h"
#include "RoleScope.h"

#include <QCryptographicHash>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>

namespace hips {

using namespace party_sequence;

namespace {

// The party's training workers in rank order: the collective's ranks.
QList<MeshPeers::Member> membersOf(const Topology& t, const QString& party) {
    QList<Node> workers;
    for (const Node& n : t.nodes())
        if (n.party == party && n.kind == RoleKind::Worker) workers.append(n);
    std::sort(workers.begin(), workers.end(), [](const Node& a, const Node& b) { return a.rank < b.rank; });
    QList<MeshPeers::Member> members;
    for (const Node& n : workers) members.append({n.id, {}, Channel::runPeerKeys().keyOf(n.id)});
    return members;
}

quint64 modelTag(qint64 round, size_t chunk) {
    return collectiveTag(sequenceOf(round, kModel), 0, quint32(chunk));
}

}  // namespace

PartyCollective::PartyCollective(RoleContext& ctx) : m_ctx(ctx) {
    const Party* party = ctx.topology.party(ctx.node.party);
    if (!party || !party->collective()) throw RoleError("party " + ctx.node.party.toStdString() + " has no collective transport");
    m_transport = party->transport;
    if (partiesPassOnUnreached(ctx.training())) m_unreached = std::numeric_limits<float>::quiet_NaN();
    const auto params = [party](const QString& name) { return party->transportParam(name); };
    m_collective = CollectiveRegistry::create(m_transport, params);
    // party_compression fp16: the sums' chunks travel as half floats, the weights apart and exact.
    if (ctx.training().partyCompression == QLatin1String("fp16")) {
        m_collective->setHalfPrecision(true);
        m_weights = CollectiveRegistry::create(m_transport, params);
    }
    QList<MeshPeers::Member> members = membersOf(ctx.topology, ctx.node.party);
    m_rank = ctx.node.rank;
    if (m_rank < 0 || m_rank >= members.size()) throw RoleError("this worker is not among its party's workers");
    const Host* host = ctx.topology.host(ctx.node.host);
    members[m_rank].endpoint = tcpEndpoint(host ? host->address : QStringLiteral("127.0.0.1"), 0);
    const auto timeout = std::chrono::seconds(qint64(party->transportParam(QStringLiteral("transport_timeout_s"))));
    // A chunk is at most transport_chunk_kb, and at most the model with the floats that ride
    // along (a sum's weight and counts per slice, or a broadcast's version: two).
    const size_t floats = modelParameterCount(ctx.training()), along = std::max<size_t>(2, 1 + sliceCount(floats));
    const size_t chunk =
        std::min(size_t(party->transportParam(QStringLiteral("transport_chunk_kb"))) * 1024, (floats + along) * sizeof(float));
    m_mesh = std::make_unique<MeshPeers>(ctx.zmq, members, m_rank, Channel::runKeyPair(), timeout, chunk);
    m_chunkFloats = std::max<size_t>(1, chunk / sizeof(float));
    // What one member may have here ahead of its turn: a ring's whole call is ~2 models from a
    // neighbour; an attempt abandoned after a loss stays until the next round (a member may be an
    // attempt ahead) and the model's broadcast comes beside the next round's sum: 5, and one spare.
    // In chunks: a model's, and a partial one at the end of each segment of a call (two a member).
    const size_t modelBytes = (floats + along) * sizeof(float);
    m_mesh->setStashLimit(6 * modelBytes, 6 * ((modelBytes + chunk - 1) / chunk + 2 * size_t(members.size())));
    m_mesh->setWhileWaiting([this] { whileWaiting(); });
}

PartyCollective::~PartyCollective() = default;

QList<PeerInfo> PartyCollective::connect(const QList<PeerInfo>& partyTable) {
    for (const PeerInfo& p : partyTable) {
        const auto n = m_ctx.topology.node(p.id);
        if (!n || n->kind != RoleKind::Worker || n->party != m_ctx.node.party || n->rank == m_rank) continue;
        if (p.endpoint.isEmpty())
            throw RoleError(p.id.toStdString() + " registered no endpoint for the party's " + m_transport.toStdString() +
                            "; every worker of the party must run this version");
        m_mesh->setEndpoint(n->rank, p.endpoint);
    }
    if (m_ctx.training().transportSecurity == QLatin1String("sealed")) {
        // What every member agrees on and no other run has: the party's members' keys of this run.
        QCryptographicHash binding(QCryptographicHash::Sha256);
        for (int r = 0; r < m_mesh->size(); ++r) binding.addData(Channel::runPeerKeys().keyOf(QString::fromStdString(m_mesh->nameOf(r))));
        try {
            m_mesh->sealLinks(binding.result().toHex());
        } catch (const CollectiveError& e) {
            throw RoleError("the party's sealed links: " + std::string(e.what()));
        }
    }
    return pushes() ? joinGlobal() : QList<PeerInfo>{};
}

QList<PeerInfo> PartyCollective::joinGlobal() {
    if (!m_global) {
        m_global = std::make_unique<SchedulerClient>(m_ctx, m_ctx.scheduler(true), QString());
        if (m_ctx.training().continuesThroughFailures()) m_global->watchMembership();  // its global servers may come back
        m_globalTable = m_global->join();
    }
    return m_globalTable;
}

ModelVersion PartyCollective::exchange(const FloatBuffer& update, double weight, qint64 round, size_t floats, const Upstream& upstream) {
    if (m_partyScheduler) return exchangeGoingOn(update, weight, round, floats, upstream);
    if (update) weight = sum(*update, weight, round);
    ModelVersion answer;
    if (pushes()) answer = upstream(update, weight);
    return share(answer, floats, round);
}

double PartyCollective::sum(std::vector<float>& update, double weight, qint64 round) {
    return sumOver(*m_mesh, update, weight, round, 0);
}

// Along with the sum go the weight and a count per slice of the members whose slice is in (those
// left out: lost, or whose values are no numbers), by which the sum stands for every member.
double PartyCollective::sumOver(CollectivePeers& peers, std::vector<float>& update, double weight, qint64 round, size_t epoch) {
    const size_t floats = update.size();
    std::vector<float> along = leaveOutWhatIsNoNumber(update, round);
    along.insert(along.begin(), float(weight));  // (a float is exact for a count of samples up to 2^24)
    m_collective->setRound(round);
    if (m_weights) m_weights->setRound(round);
    try {
        if (m_weights) {  // (a half float holds no count of samples beyond 2048 exactly)
            m_collective->allreduce(update.data(), update.size(), peers, sequenceOf(round, kSum, epoch));
            m_weights->allreduce(along.data(), along.size(), peers, sequenceOf(round, kWeights, epoch));
        } else {
            update.insert(update.end(), along.begin(), along.end());
            m_collective->allreduce(update.data(), update.size(), peers, sequenceOf(round, kSum, epoch));
            std::copy(update.begin() + qsizetype(floats), update.end(), along.begin());
            update.resize(floats);
        }
    } catch (const CollectiveError& e) {
        throw RoleError(m_transport.toStdString() + " of round " + std::to_string(round) + ": " + e.what());
    }
    standForEveryMember(update.data(), floats, along.data() + 1, size_t(m_mesh->size()), m_unreached);
    return along.front();
}

ModelVersion PartyCollective::share(const ModelVersion& model, size_t floats, qint64 round) {
    // The model and its version, bit for bit in two more floats (a broadcast copies, never adds).
    auto buffer = std::make_shared<std::vector<float>>(floats + 2);
    qint64 version = model.version;
    if (pushes()) {
        if (model.size != floats)
            throw RoleError("the global model has " + std::to_string(model.size) + " parameters, this worker's " + std::to_string(floats) +
                            "; all roles must use the same model");
        std::copy(model.data, model.data + floats, buffer->data());
        std::memcpy(buffer->data() + floats, &version, sizeof version);
    }
    try {
        m_collective->broadcast(buffer->data(), buffer->size(), 0, *m_mesh, sequenceOf(round, kModel));
    } catch (const CollectiveError& e) {
        throw RoleError("the global model of round " + std::to_string(round) + " within the party: " + e.what());
    }
    std::memcpy(&version, buffer->data() + floats, sizeof version);
    buffer->resize(floats);
    return ModelVersion::fromBuffer(version, std::move(buffer));
}

// fault_policy continue. A wait ends when a loss changes the view (ViewChanged: the exchange
// starts again over the members left) or, while a member sums, when the round's model starts to
// come (ModelCame: the pushing worker had its sum, and sums no more this round).
ModelVersion PartyCollective::exchangeGoingOn(const FloatBuffer& update, double weight, qint64 round, size_t floats,
                                              const Upstream& upstream) {
    const std::vector<float> own = update ? *update : std::vector<float>{};
    std::optional<ModelVersion> answer;  // the pushing worker's, once it has it: never pushed twice
    std::optional<ModelVersion> newest;  // a new pushing worker's, once it has it
    bool modelCame = false;  // the round's model started to come while this worker summed
    const TagOf roundTag = [round](size_t chunk) { return modelTag(round, chunk); };
    for (;;) {
        beginAttempt(round);
        try {
            if (m_agreeAt) return agreeAgain(newest, floats);
            if (modelCame) {  // (its first chunk is here: taking it waits for nothing, unless its sender is lost)
                m_phase = Phase::AwaitingModel;
                return takeModel(floats, roundTag);
            }
            double total = weight;
            if (update && !answer) {
                *update = own;
                m_phase = Phase::Reducing;
                const std::vector<int> ranks = liveRanks();
                PeerSubset live(*m_mesh, ranks);
                total = sumOver(live, *update, weight, round, m_attemptEpoch);  // (standing for those lost too)
            }
            if (!pushes()) {
                m_phase = Phase::AwaitingModel;
                return takeModel(floats, roundTag);
            }
            m_phase = Phase::Idle;
            if (!answer) answer = upstream(update, total);
            m_phase = Phase::Broadcasting;
            fanOut(*answer, floats, roundTag);
            m_phase = Phase::Idle;
            return *answer;
        } catch (const ViewChanged&) {
            continue;
        } catch (const ModelCame&) {  // (taken in the next attempt: a loss while it comes is a ViewChanged there, caught)
            modelCame = true;
        }
    }
}

// A worker whose training broke (a learning rate too high, a faulty device) has NaN or infinite
// values in its update, and one of them made the whole party's sum NaN, which the global server
// refused: the party lost every round. Its slices that hold them are left out, as a party server
// leaves out those of such a push (RoundCollector): the same model. Returns the flags of
// keepFiniteSlices.
std::vector<float> PartyCollective::leaveOutWhatIsNoNumber(std::vector<float>& update, qint64 round) {
    std::vector<float> in = keepFiniteSlices(update.data(), update.size());
    const auto out = size_t(std::count(in.begin(), in.end(), 0.0f));
    if (out == 0) return in;
    ++m_roundsNotANumber;
    const auto now = std::chrono::steady_clock::now();
    if (m_roundsNotANumber > 1 && now - m_notANumberSaid < std::chrono::seconds(5)) return in;  // (a line per 5 s at most)
    m_notANumberSaid = now;
    std::fprintf(roleErr(),
                 "%s: its update of round %lld holds NaN or infinite values in %zu of its %zu slices, which the party's sum "
                 "leaves out, as a party server would (%llu rounds so far)\n",
                 qPrintable(m_ctx.node.id), static_cast<long long>(round), out, in.size(),
                 static_cast<unsigned long long>(m_roundsNotANumber));
    return in;
}

// Members on either side of the lost pushing worker's last fan-out hold different models, and
// some may be a round ahead: the new pushing worker's newest global model is where they all go on.
ModelVersion PartyCollective::agreeAgain(std::optional<ModelVersion>& newest, size_t floats) {
    const auto epoch = quint32(*m_agreeAt);
    const TagOf agreeTag = [epoch](size_t chunk) { return collectiveTag(kAgreeSequence, epoch, quint32(chunk)); };
    ModelVersion model;
    if (pushes()) {
        if (!m_takeOver) throw RoleError("this worker cannot push for its party: it has no way up");
        m_phase = Phase::Idle;
        if (!newest) newest = m_takeOver();  // (once: a loss during the fan-out sends it again)
        m_phase = Phase::Broadcasting;
        fanOut(*newest, floats, agreeTag);
        model = *newest;
    } else {
        m_phase = Phase::AwaitingModel;
        model = takeModel(floats, agreeTag);
    }
    m_agreeAt.reset();
    m_phase = Phase::Idle;
    return model;
}

// The model and its version (bit for bit in two more floats) to each member left, in chunks.
void PartyCollective::fanOut(const ModelVersion& model, size_t floats, const TagOf& tagOf) {
    if (model.size != floats)
        throw RoleError("the global model has " + std::to_string(model.size) + " parameters, this worker's " + std::to_string(floats) +
                        "; all roles must use the same model");
    std::vector<float> buffer(floats + 2);
    std::copy(model.data, model.data + floats, buffer.data());
    std::memcpy(buffer.data() + floats, &model.version, sizeof model.version);
    try {
        for (int r : liveRanks())
            for (size_t b = 0, chunk = 0; r != m_rank && b < buffer.size(); b += m_chunkFloats, ++chunk)
                m_mesh->send(r, tagOf(chunk), buffer.data() + b, std::min(m_chunkFloats, buffer.size() - b));
    } catch (const CollectiveError& e) {
        throw RoleError("the global model of version " + std::to_string(model.version) + " within the party: " + e.what());
    }
}

ModelVersion PartyCollective::takeModel(size_t floats, const TagOf& tagOf) {
    auto buffer = std::make_shared<std::vector<float>>(floats + 2);
    m_modelFrom = pusherRank();
    try {
        for (size_t b = 0, chunk = 0; b < buffer->size(); b += m_chunkFloats, ++chunk) {
            m_mesh->receive(m_modelFrom, tagOf(chunk), buffer->data() + b, std::min(m_chunkFloats, buffer->size() - b), false);
            m_modelStarted = true;
        }
    } catch (const CollectiveError& e) {
        throw RoleError("the global model within the party, from " + m_mesh->nameOf(pusherRank()) + ": " + e.what());
    }
    m_phase = Phase::Idle;
    qint64 version = 0;
    std::memcpy(&version, buffer->data() + floats, sizeof version);
    buffer->resize(floats);
    return ModelVersion::fromBuffer(version, std::move(buffer));
}

void PartyCollective::takeLosses() {
    if (!m_partyScheduler) return;
    // Silent long enough to be declared down (stopped, starved): the others went on without it.
    if (const QString why = m_partyScheduler->declaredDown(); !why.isEmpty())
        throw PartyCannotGoOn("the party scheduler declared this worker down (" + why.toStdString() + ") while it was silent, and " +
                              m_ctx.node.party.toStdString() + "'s " + m_transport.toStdString() +
                              " went on without it; a collective party takes no member back mid-run (not supported yet), so "
                              "this worker leaves the run");
    for (const MembershipChange& c : m_partyScheduler->takeMembershipChanges()) {
        // (A member back after a silence stays out: the others may have summed without it.)
        if (c.up && !c.restarted) continue;
        const auto node = m_ctx.topology.node(c.node);
        if (!node || node->party != m_ctx.node.party || node->kind != RoleKind::Worker || node->rank == m_rank) continue;
        if (std::find(m_lost.begin(), m_lost.end(), node->rank) != m_lost.end()) continue;
        const bool pushed = node->rank == pusherRank();
        m_lost.push_back(node->rank);
        if (pushed) m_agreeAt = m_lost.size();
        const std::string why =
            c.node.toStdString() + " was lost (" + (c.up ? "restarted: its process is new" : c.reason.toStdString()) + ")";
        const std::string next = pushed ? ", and " + m_mesh->nameOf(pusherRank()) + " pushes for the party" : "";
        std::fprintf(roleErr(), "%s: %s; the party's %s goes on without it%s\n", qPrintable(m_ctx.node.id), why.c_str(),
                     qPrintable(m_transport), next.c_str());
    }
}

void PartyCollective::beginAttempt(qint64 round) {
    takeLosses();
    m_round = round;
    m_attemptEpoch = m_lost.size();
    m_modelStarted = false;
    // Chunks of abandoned attempts (and copies of a model sent again) are taken by nobody. Those of
    // this round's later attempts stay: a member may be an attempt ahead. A member refused for
    // what it sent before is heard again: its chunks of this attempt are new.
    const size_t epoch = m_attemptEpoch, agreeing = m_agreeAt ? *m_agreeAt : m_lost.size() + 1;
    m_mesh->dropStashed([=](int, quint64 tag) { return ofAnAbandonedAttempt(tag, round, epoch, agreeing); });
    m_mesh->forgetRefusals();
}

int PartyCollective::pusherRank() const {
    for (int r = 0; r < m_mesh->size(); ++r)
        if (std::find(m_lost.begin(), m_lost.end(), r) == m_lost.end()) return r;
    return m_rank;
}

std::vector<int> PartyCollective::liveRanks() const {
    std::vector<int> live;
    for (int r = 0; r < m_mesh->size(); ++r)
        if (std::find(m_lost.begin(), m_lost.end(), r) == m_lost.end()) live.push_back(r);
    return live;
}

void PartyCollective::whileWaiting() {
    if (m_whileWaiting) m_whileWaiting();
    if (!m_partyScheduler || m_phase == Phase::Idle) return;
    takeLosses();
    if (m_phase == Phase::Reducing && !pushes() && m_mesh->hasStashed(pusherRank(), modelTag(m_round, 0))) throw ModelCame{};
    if (m_lost.size() == m_attemptEpoch) return;
    // A model coming is waited for to its end, unless its sender is the one lost.
    const bool coming = m_phase == Phase::AwaitingModel && m_modelStarted;
    if (!coming || std::find(m_lost.begin(), m_lost.end(), m_modelFrom) != m_lost.end()) throw ViewChanged{};
}

void PartyCollective::leave() {
    if (m_global) m_global->leave();
}

}  // namespace hips
