#include "PartyCollective.h"

#include "Channel.h"
#include "ModelFrame.h"
#include "RoleError.h"

#include <QCryptographicHash>
#include <algorithm>
#include <cstring>

namespace hips {

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

// Each exchange of a round (the sum, the model's broadcast, at half precision the weights' sum)
// has its own sequence, so a chunk of one is never taken for another's.
quint32 sequenceOf(qint64 round, int exchange) {
    return quint32(round * 3 + exchange);
}

}  // namespace

PartyCollective::PartyCollective(RoleContext& ctx) : m_ctx(ctx) {
    const Party* party = ctx.topology.party(ctx.node.party);
    if (!party || !party->collective()) throw RoleError("party " + ctx.node.party.toStdString() + " has no collective transport");
    m_transport = party->transport;
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
    m_mesh = std::make_unique<MeshPeers>(ctx.zmq, members, m_rank, Channel::runKeyPair(), timeout);
    // A chunk is at most transport_chunk_kb, and at most the model with the two floats that ride along.
    const size_t chunk = size_t(party->transportParam(QStringLiteral("transport_chunk_kb"))) * 1024;
    m_mesh->setChunkLimit(std::min(chunk, (modelParameterCount(ctx.training()) + 2) * sizeof(float)));
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
    if (!pushes()) return {};
    m_global = std::make_unique<SchedulerClient>(m_ctx, m_ctx.scheduler(true), QString());
    return m_global->join();
}

double PartyCollective::sum(std::vector<float>& update, double weight, qint64 round) {
    try {
        if (m_weights) {  // (a half float holds no count of samples beyond 2048 exactly)
            m_collective->allreduce(update.data(), update.size(), *m_mesh, sequenceOf(round, 0));
            float total = float(weight);
            m_weights->allreduce(&total, 1, *m_mesh, sequenceOf(round, 2));
            return total;
        }
        update.push_back(float(weight));  // (a float is exact for a count of samples up to 2^24)
        m_collective->allreduce(update.data(), update.size(), *m_mesh, sequenceOf(round, 0));
    } catch (const CollectiveError& e) {
        throw RoleError(m_transport.toStdString() + " of round " + std::to_string(round) + ": " + e.what());
    }
    const double total = update.back();
    update.pop_back();
    return total;
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
        m_collective->broadcast(buffer->data(), buffer->size(), 0, *m_mesh, sequenceOf(round, 1));
    } catch (const CollectiveError& e) {
        throw RoleError("the global model of round " + std::to_string(round) + " within the party: " + e.what());
    }
    std::memcpy(&version, buffer->data() + floats, sizeof version);
    buffer->resize(floats);
    return ModelVersion::fromBuffer(version, std::move(buffer));
}

void PartyCollective::leave() {
    if (m_global) m_global->leave();
}

}  // namespace hips
