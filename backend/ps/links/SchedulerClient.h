#pragma once
// A node's link to its scheduler: register, wait for the node table (the start barrier),
// then heartbeat from a background thread until leave(); a restarted scheduler asks for the
// registration again ("rejoin"), which the heartbeat thread sends, naming the members it was
// told are down (the new scheduler's only way to learn it). An "abort" from the scheduler
// (a peer died) is kept and raised on the node's main thread by throwIfAborted().
// With watchWorkThread() (every role does) the heartbeats vouch for the thread that does the
// node's work, not only for the process: that thread calls working() (throwIfAborted() does too)
// as it goes, and when it has not for heartbeat_timeout_s (hung, deadlocked) the heartbeats stop,
// so that the scheduler declares the node dead or down like any silent one.
// Every message says which process of the node sent it (a random incarnation; the registration
// also when the controller placed it): a process the scheduler finds replaced by another of the
// same node is told "superseded", and throwIfAborted() then raises RoleSuperseded.
#include "Channel.h"
#include "RecoveryCopy.h"
#include "RoleContext.h"

#include <QSet>

#include <atomic>
#include <functional>
#include <mutex>
#include <thread>

#include <cstdint>

namespace hips {

// fault_policy continue: a member the scheduler declared down, or back up.
struct MembershipChange {
    QString node;
    bool up = false;
    QString reason;
    bool restarted = false;  // up as a new process: what it held is gone
    QString endpoint;  // where it listens now (a global server moved to its standby host)
    QString standsFor;  // up in a lost member's place: a collective party's new pushing worker for the first one
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
    // The table came after the others had theirs: this process was started again mid-run.
    bool joinedLate() const { return m_table.fields.value(QStringLiteral("late")).toBool(); }
    void barrier(const QString& name);  // heartbeats go on while it waits
    void leave();
    void throwIfAborted() const;  // (and working())
    void working() const;  // the work thread is moving
    void watchWorkThread() {
        working();
        m_watchWork = true;
    }
    // The members declared down or back up since the last call, in order; kept only once asked
    // for with watchMembership() (servers), so that nobody else accumulates them.
    void watchMembership() { m_watching = true; }
    QList<MembershipChange> takeMembershipChanges();
    // Why the scheduler declared this node down (it was silent), told when it was heard again;
    // empty while it was not.
    QString declaredDown() const {
        std::lock_guard lock(m_mutex);
        return m_declaredDown;
    }

    // A global server with a standby host: sends its recovery point to the scheduler and waits
    // until the scheduler has kept it (RecoveryCopy.h). False when it did not say so within
    // reply_timeout_s (it is down, or cut off from this host): the server then publishes
    // nothing more (its standby would go on from an older model than the parties'). A scheduler
    // restarted meanwhile asks this node to register again, and gets the newest copy then.
    // Throws (RoleError) when this process is superseded or the run aborted while it waits.
    bool keepCopy(Message point, qint64 version);
    // The newest version the scheduler (this one: -1 after it was restarted) said it kept.
    qint64 copyKept() const {
        std::lock_guard lock(m_mutex);
        return m_copyKept;
    }
    // The recovery point the table came with (the scheduler's copy), checked; nullopt when there
    // was none, with *error set when it was malformed.
    std::optional<Checkpoint> recoveryPoint(size_t modelFloats, QString* error) const {
        return recoveryPointIn(m_table, modelFloats, error);
    }

    // The first peer of `role` in the table; throws RoleError when there is none.
    static PeerInfo find(const QList<PeerInfo>& table, const QString& role);

private:
    Envelope waitFor(const QString& type, const std::function<void()>& everyTwoSeconds = {});
    Message registration(bool rejoin, bool again = false) const;
    void send(Message m);  // to the scheduler, saying which process this is
    [[noreturn]] void throwSuperseded(const QString& reason) const;
    void heartbeatLoop();
    void tookMembership(const Message& m);  // a member down or up (under m_mutex)
    void beat();

    RoleContext& m_ctx;
    Node m_scheduler;
    QString m_endpoint, m_schedulerEndpoint;
    Channel m_channel;
    std::thread m_heartbeat;
    std::atomic<bool> m_stop{false};
    mutable std::mutex m_mutex;
    QString m_abortReason;
    QString m_supersededReason;  // (under m_mutex)
    QString m_declaredDown;  // (under m_mutex)
    // The others the scheduler said are down and not up since: what a restarted scheduler is told
    // as this node registers again, its predecessor having taken them along (under m_mutex).
    QSet<QString> m_othersDown;
    const qint64 m_incarnation;
    QList<MembershipChange> m_membership;
    std::atomic<bool> m_watching{false};
    mutable std::atomic<std::int64_t> m_lastWorkNs{0};
    std::atomic<bool> m_watchWork{false};  // steady clock, when the work thread last moved
    QString m_barrierName;  // a barrier asked for and not yet released (under m_mutex)
    bool m_barrierOk = false;
    std::optional<Message> m_copy;  // a recovery point for the heartbeat thread to send (under m_mutex)
    std::optional<Message> m_newestCopy;  // the last one given to keepCopy: a restarted scheduler gets it (under m_mutex)
    qint64 m_copyKept = -1;  // the newest version the scheduler said it kept (under m_mutex)
    std::atomic<bool> m_keepsCopies{false};  // (then the heartbeat thread listens more often)
    Message m_table;
};

}  // namespace hips
