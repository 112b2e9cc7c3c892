#pragma once
// A node's link to its scheduler: register, wait for the node table (the start barrier),
// then heartbeat from a background thread until leave(). An "abort" from the scheduler
// (a peer died) is kept and raised on the node's main thread by throwIfAborted().
#include "Channel.h"
#include "RoleContext.h"

#include <atomic>
#include <mutex>
#include <thread>

namespace hips {

// fault_policy continue: a member the scheduler declared down, or back up.
struct MembershipChange {
    QString node;
    bool up = false;
    QString reason;
};

struct PeerInfo {
    QString id;
    QString role;
    QString endpoint;
};

class SchedulerClient {
public:
    // `schedulerNode` is the scheduler to join; `endpoint` is this node's data-plane address or empty.
    SchedulerClient(RoleContext& ctx, const Node& schedulerNode, const QString& endpoint);
    ~SchedulerClient();

    QList<PeerInfo> join();  // blocks until the table arrives; throws RoleError on timeout
    void barrier(const QString& name);
    void leave();
    void throwIfAborted() const;
    // The members declared down or back up since the last call, in order; kept only once asked
    // for with watchMembership() (servers), so that nobody else accumulates them.
    void watchMembership() { m_watching = true; }
    QList<MembershipChange> takeMembershipChanges();

    // The first peer of `role` in the table; throws RoleError when there is none.
    static PeerInfo find(const QList<PeerInfo>& table, const QString& role);

private:
    Envelope waitFor(const QString& type);
    void heartbeatLoop();

    RoleContext& m_ctx;
    Node m_scheduler;
    QString m_endpoint, m_schedulerEndpoint;
    Channel m_channel;
    std::thread m_heartbeat;
    std::atomic<bool> m_stop{false};
    mutable std::mutex m_mutex;
    QString m_abortReason;
    QList<MembershipChange> m_membership;
    std::atomic<bool> m_watching{false};
};

}  // namespace hips
