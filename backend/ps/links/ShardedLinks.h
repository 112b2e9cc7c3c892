#pragma once
// A client's links to the servers of one tier when the model's keys are cut between them (key
// slicing, ShardMap): a worker's links to its party's servers, a central or flat-run worker's and
// the master's to the global servers. An update goes out cut into one shard per server, all in
// flight together; the answer is put back together once every server's shard of one version is in.
// With one server nothing is cut or copied: the update and the model travel as they are.
#include "Channel.h"
#include "LinkShaper.h"
#include "ModelBuffers.h"
#include "ModelSlices.h"
#include "RoleContext.h"
#include "SchedulerClient.h"
#include "ShardMap.h"

#include <QCborMap>
#include <map>
#include <memory>
#include <vector>

namespace hips {

// The peers of `role` in a node table, in the order of their rank in the topology.
QList<PeerInfo> serversByRank(const QList<PeerInfo>& table, const QString& role, const Topology& topology);

// The run's cut of the model over `servers` servers.
ShardMap shardMapOf(const TrainingSettings& settings, int servers);

// `server` listens at `endpoint` now, no longer at `was` (a global server that lost its host
// started on its standby host): says so on stderr for `self`, and puts `fresh`, dialled there, in
// `channel`'s place, carrying its traffic counts on; the old socket drops what it still holds.
void switchToMovedServer(const QString& self, const QString& server, const QString& was, const QString& endpoint, Channel& channel,
                         Channel fresh);

class ShardedLinks {
public:
    ShardedLinks(RoleContext& ctx, const QList<PeerInfo>& servers, size_t modelSize);

    int count() const { return int(m_channels.size()); }
    Channel& channel(int server) { return *m_channels[size_t(server)]; }
    const ShardMap& map() const { return m_map; }

    // A pull of `version` or newer to every server.
    void pull(qint64 version);
    void sendToAll(const Message& message);
    // The whole-model update as each server's push (ModelSlices' sendPush).
    void push(qint64 round, qint64 base, const FloatBuffer& update, double weight);
    // The whole-model initial weights as each server's init.
    void init(const FloatBuffer& weights);
    // Waits up to `timeout` for messages of `type` that complete a model of `minVersion` or newer:
    // the whole model once every server's shard of the same version is in. `firstSlice` is set
    // when the first slice of any version arrives (the end of the wait for the other workers).
    std::optional<ModelVersion> receive(const QString& type, qint64 minVersion, std::chrono::milliseconds timeout,
                                        bool* firstSlice = nullptr);
    // Server `server` listens at `endpoint` now (a global server that lost its host started on its
    // standby host): its link is dialled again there. Nothing changes when it is where it was.
    void follow(const QString& server, const QString& endpoint);
    // Every link's traffic, as one metric record's fields.
    QCborMap trafficFields() const;
    void lingerOnClose(std::chrono::milliseconds linger);

private:
    Channel dial(const PeerInfo& server) const;
    std::optional<ModelVersion> addShard(int server, ModelVersion shard, qint64 minVersion);

    ShardMap m_map;
    RoleContext& m_ctx;
    QList<PeerInfo> m_servers;
    std::shared_ptr<PayloadTransform> m_codecs;
    std::shared_ptr<LinkShaper> m_shaper;
    std::vector<std::unique_ptr<Channel>> m_channels;
    std::vector<std::unique_ptr<ModelAssembler>> m_assemblers;
    std::map<qint64, std::vector<ModelVersion>> m_pending;  // shards of versions not yet whole
    ModelBufferPool m_pool;
};

}  // namespace hips
