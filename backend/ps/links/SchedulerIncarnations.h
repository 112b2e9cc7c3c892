#pragma once
// Which process of each member a scheduler listens to. Two processes of one node can be alive at
// once: a global server whose host was cut off is started on its standby host, and when the cut
// heals the old process speaks again, with the same key. ZeroMQ routes a node's messages to the
// connection that spoke last, so without this the scheduler's answers (receipts, membership,
// aborts) would go to whichever process spoke last, and a stale heartbeat would keep a dead
// node looking alive.
//
// Each process says who it is in every message: a random incarnation, and in its registration
// the time the controller placed it (RoleContext::placement). A registration replaces the
// current process unless it was placed earlier; any other message must come from the current
// process. The rest are superseded: told so, they stop for good (kRoleSuperseded).
#include <QByteArray>
#include <QHash>
#include <QString>

namespace hips {

class SchedulerIncarnations {
public:
    enum class Verdict {
        Current,  // from the process listened to
        Replaces,  // a registration of a new process: it is listened to from now on
        Superseded,  // from a process another one replaced
    };

    Verdict registration(const QString& node, qint64 incarnation, qint64 placement);
    // Any other message. A node without a registration here is Current: a restarted scheduler
    // knows nobody yet, and asks them to register again.
    Verdict message(const QString& node, qint64 incarnation) const;

    // The connection the current process spoke on last (ROUTER routing id), to send on. (Of a
    // registered node only: a message from an unknown one does not make its sender current.)
    void heardOn(const QString& node, const QByteArray& route) {
        if (const auto it = m_current.find(node); it != m_current.end()) it->route = route;
    }
    QByteArray route(const QString& node) const { return m_current.value(node).route; }

private:
    struct Process {
        qint64 incarnation = 0, placement = 0;
        QByteArray route;
    };
    QHash<QString, Process> m_current;
};

}  // namespace hips
