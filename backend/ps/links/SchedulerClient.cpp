#include "SchedulerClient.h"

#include "RoleError.h"
#include "PrintableText.h"
#include "SocketThread.h"
#include "Vocabulary.h"
#include "RoleScope.h"

#include <QCborArray>
#include <QRandomGenerator>
#include <algorithm>
#include <cstdio>
#include <thread>
#include <utility>

namespace hips {

using namespace std::chrono_literals;

SchedulerClient::SchedulerClient(RoleContext& ctx, const Node& schedulerNode, const QString& endpoint)
    : m_ctx(ctx),
      m_scheduler(schedulerNode),
      m_endpoint(endpoint),
      m_schedulerEndpoint(ctx.topology.endpoint(schedulerNode)),
      m_channel(Channel::dealer(ctx.zmq, ctx.node.id, m_schedulerEndpoint, schedulerNode.id)),
      m_incarnation(qint64(QRandomGenerator::system()->generate64() >> 1)) {}

void SchedulerClient::send(Message m) {
    m.fields.insert(QStringLiteral("incarnation"), m_incarnation);
    m_channel.send(std::move(m));
}

void SchedulerClient::throwSuperseded(const QString& reason) const {
    throw RoleSuperseded("scheduler " + m_scheduler.id.toStdString() + " listens to another process of this node: " + reason.toStdString() +
                         "; this one stops");
}

// A node that fails unwinds through here without saying bye: its scheduler must notice
// the silence and abort the others, not count it as gone.
SchedulerClient::~SchedulerClient() {
    m_stop = true;
    if (m_heartbeat.joinable()) m_heartbeat.join();
}

Envelope SchedulerClient::waitFor(const QString& type, const std::function<void()>& everyTwoSeconds) {
    const auto deadline = std::chrono::steady_clock::now() + m_ctx.replyTimeout();
    auto nextPoke = std::chrono::steady_clock::now() + 2s;
    while (std::chrono::steady_clock::now() < deadline) {
        if (everyTwoSeconds && std::chrono::steady_clock::now() >= nextPoke) {
            everyTwoSeconds();
            nextPoke += 2s;
        }
        auto e = m_channel.receive(200ms);
        if (!e) continue;
        if (e->message.type == message::kAbort)
            throw RoleError("scheduler " + m_scheduler.id.toStdString() + " aborted the run: " + e->message.string("reason").toStdString());
        if (e->message.type == message::kSuperseded) throwSuperseded(e->message.string(QStringLiteral("reason")));
        if (e->message.type == type) return std::move(*e);
    }
    throw RoleError("no '" + type.toStdString() + "' from scheduler " + m_scheduler.id.toStdString() + " at " +
                    m_schedulerEndpoint.toStdString() + " within " + std::to_string(m_ctx.training().replyTimeoutS) +
                    " s; check that it runs and the port is reachable");
}

// (A registration again, to a restarted scheduler, is made under m_mutex.)
Message SchedulerClient::registration(bool rejoin, bool again) const {
    Message m(message::kRegister, {{QStringLiteral("role"), roleName(m_ctx.node.kind)},
                                   {QStringLiteral("endpoint"), m_endpoint},
                                   {QStringLiteral("settings"), m_ctx.training().agreementText()},
                                   {QStringLiteral("rejoin"), rejoin},
                                   {QStringLiteral("again"), again},
                                   {QStringLiteral("placement"), m_ctx.placement}});
    if (rejoin && !m_othersDown.isEmpty()) {
        QStringList down(m_othersDown.begin(), m_othersDown.end());
        down.sort();
        m.fields.insert(QStringLiteral("down"), QCborArray::fromStringList(down));
    }
    return m;
}

// The registration is said again until the table comes: a scheduler that dies before sending
// the table (fault_policy continue) takes it along, and its successor hears of this node only
// so, as nodes heartbeat only once they have a table.
QList<PeerInfo> SchedulerClient::join() {
    send(registration(false));
    Envelope table = waitFor(message::kTable, [this] { send(registration(false, /*again=*/true)); });
    QList<PeerInfo> peers;
    for (const QCborValue& v : table.message.fields.value(QStringLiteral("nodes")).toArray()) {
        const QCborMap m = v.toMap();
        peers.append({m.value(QStringLiteral("id")).toString(), m.value(QStringLiteral("role")).toString(),
                      m.value(QStringLiteral("endpoint")).toString()});
    }
    m_table = std::move(table.message);
    working();
    m_heartbeat = std::thread([this] { heartbeatLoop(); });
    return peers;
}

namespace {
Message copyOf(const Message& m) {
    Message copy(m.type, m.fields);
    for (const zmq::message_t& f : m.frames) copy.frames.emplace_back(f.data(), f.size());
    return copy;
}
}  // namespace

bool SchedulerClient::keepCopy(Message point, qint64 version) {
    {
        std::lock_guard lock(m_mutex);
        m_newestCopy = copyOf(point);
        m_copy = std::move(point);
    }
    m_keepsCopies = true;
    // (reply_timeout_s: a large model's copy takes its time on the scheduler's link)
    const auto deadline = std::chrono::steady_clock::now() + m_ctx.replyTimeout();
    while (std::chrono::steady_clock::now() < deadline) {
        throwIfAborted();  // (waiting for the scheduler is this thread's work; superseded, it stops here)
        {
            std::lock_guard lock(m_mutex);
            if (m_copyKept >= version) return true;
        }
        std::this_thread::sleep_for(1ms);
    }
    std::lock_guard lock(m_mutex);
    m_copy.reset();
    return false;
}

namespace {
std::int64_t steadyNs() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

void SchedulerClient::working() const {
    m_lastWorkNs = steadyNs();
}

// The heartbeat thread owns the socket: it sends the barrier and hears its release, and goes on
// beating meanwhile, however long the others take to arrive (up to reply_timeout_s).
void SchedulerClient::barrier(const QString& name) {
    {
        std::lock_guard lock(m_mutex);
        m_barrierName = name;
        m_barrierOk = false;
    }
    const auto deadline = std::chrono::steady_clock::now() + m_ctx.replyTimeout();
    while (std::chrono::steady_clock::now() < deadline) {
        throwIfAborted();
        {
            std::lock_guard lock(m_mutex);
            if (m_barrierOk) return;
        }
        std::this_thread::sleep_for(50ms);
    }
    throw RoleError("barrier '" + name.toStdString() + "' of scheduler " + m_scheduler.id.toStdString() + " not released within " +
                    std::to_string(m_ctx.training().replyTimeoutS) + " s; some node did not reach it (see the logs)");
}

// A role on a thread of a shared trainer is stopped by shutting its ZeroMQ context down: the
// socket's next call here fails with ETERM, and the beating ends (uncaught, it would end every
// role of the process). Any other failure of the socket ends it too, said: the node then goes
// silent, and the scheduler finds it dead as it would a process that died.
void SchedulerClient::heartbeatLoop() {
    try {
        beat();
    } catch (const zmq::error_t& e) {
        if (e.num() != ETERM)
            std::fprintf(roleErr(), "%s: its link to scheduler %s failed (%s); heartbeats stop\n", qPrintable(m_ctx.node.id),
                         qPrintable(m_scheduler.id), e.what());
    }
}

void SchedulerClient::beat() {
    blockTerminationSignals();
    const std::int64_t hungNs = std::int64_t(m_ctx.training().heartbeatTimeoutS) * 1000000000;
    auto next = std::chrono::steady_clock::now(), lastPass = next;
    bool saidHung = false;
    while (!m_stop) {
        // A pass far later than its wait: this process did not run (stopped, starved), and its work
        // thread could not move meanwhile either: that is no hang of its own.
        if (const auto now = std::chrono::steady_clock::now(); now - std::exchange(lastPass, now) > std::chrono::nanoseconds(hungNs / 2))
            m_lastWorkNs = std::max<std::int64_t>(m_lastWorkNs, steadyNs());
        if (std::chrono::steady_clock::now() >= next) {
            // A work thread that has not moved for heartbeat_timeout_s is hung: no heartbeat
            // vouches for it, and the scheduler finds the node silent.
            const bool hung = m_watchWork && steadyNs() - m_lastWorkNs > hungNs;
            if (hung && !std::exchange(saidHung, true))
                std::fprintf(roleErr(), "%s: its work thread has not moved for %d s; heartbeats stop until it does\n",
                             qPrintable(m_ctx.node.id), m_ctx.training().heartbeatTimeoutS);
            if (!hung) saidHung = false, send(Message(message::kHeartbeat));
            next += 1s;
        }
        {
            std::lock_guard lock(m_mutex);
            if (!m_barrierName.isEmpty() && !m_barrierOk)
                send(Message(message::kBarrier, {{QStringLiteral("name"), std::exchange(m_barrierName, {})}}));
            if (m_copy) {
                send(std::move(*m_copy));
                m_copy.reset();
            }
        }
        // (A global server waits for its copy's receipt each round: that wait stays short.)
        auto e = m_channel.receive(m_keepsCopies ? 2ms : 100ms);
        if (!e) continue;
        std::lock_guard lock(m_mutex);
        if (e->message.type == message::kBarrierOk) m_barrierOk = true;
        else if (e->message.type == message::kRejoin) {  // the scheduler was restarted: it holds no copy
            send(registration(true));
            m_copyKept = -1;
            if (m_newestCopy) m_copy = copyOf(*m_newestCopy);
        } else if (e->message.type == message::kAbort) m_abortReason = e->message.string(QStringLiteral("reason"));
        else if (e->message.type == message::kSuperseded) m_supersededReason = e->message.string(QStringLiteral("reason"));
        else if (e->message.type == message::kRecoveryKept)
            m_copyKept = std::max(m_copyKept, e->message.integer(QStringLiteral("version")));
        else if (e->message.type == message::kMemberDown && e->message.string(QStringLiteral("node")) == m_ctx.node.id) {
            m_declaredDown = printableText(e->message.string(QStringLiteral("reason")), 300);
            m_othersDown.clear();  // (it missed what was said while it was down: who is down now comes next)
        } else if (e->message.type == message::kMemberDown || e->message.type == message::kMemberUp) tookMembership(e->message);
    }
}

void SchedulerClient::tookMembership(const Message& m) {
    const bool up = m.type == message::kMemberUp;
    const QString node = m.string(QStringLiteral("node"));
    if (up) m_othersDown.remove(node);
    else if (m_ctx.topology.node(node)) m_othersDown.insert(node);  // (a node of the run: the set stays bounded)
    if (m_watching)
        m_membership.append({node, up, m.string(QStringLiteral("reason")), m.fields.value(QStringLiteral("restarted")).toBool(),
                             m.string(QStringLiteral("endpoint")), m.string(QStringLiteral("stands_for"))});
}

void SchedulerClient::leave() {
    const bool wasRunning = m_heartbeat.joinable();
    m_stop = true;
    if (wasRunning) {
        m_heartbeat.join();
        send(Message(message::kBye));
        m_channel.lingerOnClose(2s);
    }
}

void SchedulerClient::throwIfAborted() const {
    working();
    std::lock_guard lock(m_mutex);
    if (!m_supersededReason.isEmpty()) throwSuperseded(m_supersededReason);
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
