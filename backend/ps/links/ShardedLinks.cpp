#include "ShardedLinks.h"

#include "LinkCodecs.h"
#include "MetricsReporter.h"
#include "ModelFrame.h"
#include "RoleError.h"
#include "Vocabulary.h"
#include "WanLinks.h"
#include "RoleScope.h"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace hips {

namespace {
constexpr size_t kMaxPendingVersions = 64;  // versions held for a slower server's shard of them
}

QList<PeerInfo> serversByRank(const QList<PeerInfo>& table, const QString& role, const Topology& topology) {
    QList<std::pair<int, PeerInfo>> ranked;
    for (const PeerInfo& p : table)
        if (p.role == role) ranked.append({topology.node(p.id) ? topology.node(p.id)->rank : 0, p});
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    QList<PeerInfo> out;
    for (const auto& [rank, peer] : ranked) out.append(peer);
    if (out.isEmpty()) throw RoleError("the node table has no " + role.toStdString());
    return out;
}

ShardMap shardMapOf(const TrainingSettings& settings, int servers) {
    return ShardMap(KeyLayout::ofModel(settings.modelSpec()), servers, size_t(settings.sliceBound));
}

// The codecs are keyed by peer (one for every link), and the emulated WAN link is one, shared.
ShardedLinks::ShardedLinks(RoleContext& ctx, const QList<PeerInfo>& servers, size_t modelSize)
    : m_map(shardMapOf(ctx.training(), int(servers.size()))),
      m_ctx(ctx),
      m_servers(servers),
      m_codecs(makeLinkCodecs(ctx)),
      m_shaper(makeWanShaper(ctx)) {
    if (m_map.total() != modelSize)
        throw RoleError("the model's key layout covers " + std::to_string(m_map.total()) + " parameters, the model has " +
                        std::to_string(modelSize) + "; all roles must use the same model");
    for (int s = 0; s < int(servers.size()); ++s) {
        m_channels.push_back(std::make_unique<Channel>(dial(servers[s])));
        m_assemblers.push_back(std::make_unique<ModelAssembler>(m_map.shardSize(s)));
    }
}

Channel ShardedLinks::dial(const PeerInfo& server) const {
    Channel c = Channel::dealer(m_ctx.zmq, m_ctx.node.id, server.endpoint, server.id);
    c.setPayloadTransform(m_codecs);
    c.setLinkShaper(m_shaper);
    return c;
}

void switchToMovedServer(const QString& self, const QString& server, const QString& was, const QString& endpoint, Channel& channel,
                         Channel fresh) {
    std::fprintf(roleErr(), "%s: %s is at %s now (was %s)\n", qPrintable(self), qPrintable(server), qPrintable(endpoint), qPrintable(was));
    fresh.carryTrafficOf(channel);
    channel.lingerOnClose(std::chrono::milliseconds(0));
    channel = std::move(fresh);
}

void ShardedLinks::follow(const QString& server, const QString& endpoint) {
    for (int s = 0; s < count(); ++s) {
        PeerInfo& peer = m_servers[s];
        if (peer.id != server || endpoint.isEmpty() || peer.endpoint == endpoint) continue;
        const QString was = std::exchange(peer.endpoint, endpoint);
        switchToMovedServer(m_ctx.node.id, server, was, endpoint, *m_channels[size_t(s)], dial(peer));
        m_assemblers[size_t(s)] = std::make_unique<ModelAssembler>(m_map.shardSize(s));  // (a half-received model is gone)
    }
}

void ShardedLinks::pull(qint64 version) {
    sendToAll(Message(message::kPull, {{QStringLiteral("version"), version}}));
}

void ShardedLinks::sendToAll(const Message& message) {
    for (auto& c : m_channels) c->send(Message(message.type, message.fields));  // (header only)
}

void ShardedLinks::push(qint64 round, qint64 base, const FloatBuffer& update, double weight) {
    if (count() == 1) return sendPush(channel(0), round, base, update, true, {}, weight);
    for (int s = 0; s < count(); ++s) {
        auto shard = std::make_shared<std::vector<float>>(m_map.shardSize(s));
        m_map.gather(update->data(), s, shard->data());
        sendPush(channel(s), round, base, shard, true, {}, weight);
    }
}

void ShardedLinks::init(const FloatBuffer& weights) {
    for (int s = 0; s < count(); ++s) {
        auto shard = weights;
        if (count() > 1) {
            shard = std::make_shared<std::vector<float>>(m_map.shardSize(s));
            m_map.gather(weights->data(), s, shard->data());
        }
        Message init(message::kInit);
        init.frames.push_back(floatFrame(shard));
        channel(s).send(std::move(init));
    }
}

std::optional<ModelVersion> ShardedLinks::receive(const QString& type, qint64 minVersion, std::chrono::milliseconds timeout,
                                                  bool* firstSlice) {
    std::vector<Channel*> channels;
    for (auto& c : m_channels) channels.push_back(c.get());
    const int ready = count() == 1 ? 0 : pollChannels(channels, timeout);
    if (ready < 0) return std::nullopt;
    auto e = channel(ready).receive(count() == 1 ? timeout : std::chrono::milliseconds(0));
    if (!e || e->message.type != type) return std::nullopt;
    const auto slice = ModelSlice::fromMessage(std::move(e->message), e->peer);
    if (!slice || slice->version < minVersion) return std::nullopt;
    if (firstSlice) *firstSlice = true;
    auto shard = m_assemblers[size_t(ready)]->add(*slice);
    return shard ? addShard(ready, std::move(*shard), minVersion) : std::nullopt;
}

// One server's shard of a version is in: the whole model once every server's is. Versions below
// a completed one are dropped (a newer model supersedes them).
std::optional<ModelVersion> ShardedLinks::addShard(int server, ModelVersion shard, qint64 minVersion) {
    if (count() == 1) return shard;
    for (auto it = m_pending.begin(); it != m_pending.end() && it->first < minVersion;) it = m_pending.erase(it);
    if (m_pending.size() >= kMaxPendingVersions && !m_pending.count(shard.version))
        m_pending.erase(m_pending.begin());  // a server far behind the others: its oldest versions go
    std::vector<ModelVersion>& shards = m_pending[shard.version];
    shards.resize(size_t(count()));
    shards[size_t(server)] = std::move(shard);
    if (std::any_of(shards.begin(), shards.end(), [](const ModelVersion& m) { return m.version < 0; })) return std::nullopt;
    const qint64 version = shards.front().version;
    FloatBuffer whole = m_pool.acquire(m_map.total());
    for (int s = 0; s < count(); ++s) m_map.scatter(shards[size_t(s)].data, s, whole->data());
    m_pending.erase(m_pending.begin(), m_pending.upper_bound(version));
    return ModelVersion::fromBuffer(version, whole);
}

QCborMap ShardedLinks::trafficFields() const {
    std::vector<const Channel*> channels;
    for (const auto& c : m_channels) channels.push_back(c.get());
    return hips::trafficFields(channels);
}

void ShardedLinks::lingerOnClose(std::chrono::milliseconds linger) {
    for (auto& c : m_channels) c->lingerOnClose(linger);
}

}  // namespace hips
