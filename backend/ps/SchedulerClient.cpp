#include "SchedulerClient.h"

#include "RoleError.h"
#include "SocketThread.h"
#include "Vocabulary.h"

#include <QCborArray>

namespace hips {

using namespace std::chrono_literals;

SchedulerClient::SchedulerClient(RoleContext& ctx, const Node& schedulerNode, const QString& endpoint)
    : m_ctx(ctx), m_scheduler(schedulerNode), m_endpoint(endpoint),
      m_schedulerEndpoint(ctx.topology.endpoint(schedulerNode)),
      m_channel(Channel::dealer(ctx.zmq, ctx.node.id, m_schedulerEndpoint, schedulerNode.id)) {}

// A node that fails unwinds through here without saying bye: its scheduler must notice
// the silence and abort the others, not count it as gone.
SchedulerClient::~SchedulerClient() {
    m_stop = true;
    if (m_heartbeat.joinable()) m_heartbeat.join();
}

Envelope SchedulerClient::waitFor(const QString& type) {
    const auto deadline = std::chrono::steady_clock::now() + m_ctx.replyTimeout();
    while (std::chrono::steady_clock::now() < deadline) {
        auto e = m_channel.receive(200ms);
        if (!e) continue;
        if (e->message.type == message::kAbort)
            throw RoleError("scheduler " + m_scheduler.id.toStdString() + " aborted the run: " +
                            e->message.string("reason").toStdString());
        if (e->message.type == type) return std::move(*e);
    }
    throw RoleError("no '" + type.toStdString() + "' from scheduler " + m_scheduler.id.toStdString() + " at " +
                    m_schedulerEndpoint.toStdString() + " within " +
                    std::to_string(m_ctx.training().replyTimeoutS) + " s; check that it runs and the port is reachable");
}

QList<PeerInfo> SchedulerClient::join() {
    m_channel.send(Message(message::kRegister,
                           {{QStringLiteral("role"), roleName(m_ctx.node.kind)}, {QStringLiteral("endpoint"), m_endpoint},
                            {QStringLiteral("settings"), m_ctx.training().agreementText()}}));
    const Envelope table = waitFor(message::kTable);
    QList<PeerInfo> peers;
    for (const QCborValue& v : table.message.fields.value(QStringLiteral("nodes")).toArray()) {
        const QCborMap m = v.toMap();
        peers.append({m.value(QStringLiteral("id")).toString(), m.value(QStringLiteral("role")).toString(),
                      m.value(QStringLiteral("endpoint")).toString()});
    }
    m_heartbeat = std::thread([this] { heartbeatLoop(); });
    return peers;
}

void SchedulerClient::barrier(const QString& name) {
    // The heartbeat thread owns the socket while it runs; pause it for the barrier.
    m_stop = true;
    if (m_heartbeat.joinable()) m_heartbeat.join();
    m_channel.send(Message(message::kBarrier, {{QStringLiteral("name"), name}}));
    waitFor(message::kBarrierOk);
    m_stop = false;
    m_heartbeat = std::thread([this] { heartbeatLoop(); });
}

void SchedulerClient::heartbeatLoop() {
    blockTerminationSignals();
    auto next = std::chrono::steady_clock::now();
    while (!m_stop) {
        if (std::chrono::steady_clock::now() >= next) {
            m_channel.send(Message(message::kHeartbeat));
            next += 1s;
        }
        auto e = m_channel.receive(100ms);
        if (!e) continue;
        std::lock_guard lock(m_mutex);
        if (e->message.type == message::kAbort) m_abortReason = e->message.string(QStringLiteral("reason"));
        else if (m_watching && (e->message.type == message::kMemberDown || e->message.type == message::kMemberUp))
            m_membership.append({e->message.string(QStringLiteral("node")), e->message.type == message::kMemberUp,
                                 e->message.string(QStringLiteral("reason"))});
    }
}

void SchedulerClient::leave() {
    const bool wasRunning = m_heartbeat.joinable();
    m_stop = true;
    if (wasRunning) {
        m_heartbeat.join();
        m_channel.send(Message(message::kBye));
        m_channel.lingerOnClose(2s);
    }
}

void SchedulerClient::throwIfAborted() const {
    std::lock_guard lock(m_mutex);
    if (!m_abortReason.isEmpty())
        throw RoleError("scheduler " + m_scheduler.id.toStdString() + " aborted the run: " + m_abortReason.toStdString());
}

QList<MembershipChange> SchedulerClient::takeMembershipChanges() {
    std::lock_guard lock(m_mutex);
    return std::exchange(m_membership, {});
}

PeerInfo SchedulerClient::find(const QList<PeerInfo>& table, const QString& role) {
    for (const PeerInfo& p : table)
        if (p.role == role) return p;
    throw RoleError("the node table has no " + role.toStdString());
}

}  // namespace hips
