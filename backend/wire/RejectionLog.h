#pragma once
// Rejected input is logged at most once per peer and interval, with a count of what was
// rejected since: a flood of bad messages costs a few lines, not one line (and one history
// row) each. Peer names and reasons are escaped (printableText), so a name cannot forge a line
// of its own.
#include <QHash>
#include <QString>
#include <chrono>

namespace hips {

class RejectionLog {
public:
    explicit RejectionLog(QString owner, std::chrono::milliseconds interval = std::chrono::seconds(5))
        : m_owner(std::move(owner)), m_interval(interval) {}

    // Counts one rejection from `peer`; writes a line to stderr unless one for this peer went
    // out less than an interval ago. Returns true when it wrote.
    bool reject(const QString& peer, const QString& why);
    // The same for a message this node could not deliver to `peer` (counted apart from rejections).
    bool undelivered(const QString& peer, const QString& why);
    quint64 total() const { return m_total; }

private:
    bool log(const QString& peer, const QString& what, const QString& why);
    struct PeerState {
        std::chrono::steady_clock::time_point lastLine;
        quint64 suppressed = 0;
    };
    QString m_owner;
    std::chrono::milliseconds m_interval;
    QHash<QString, PeerState> m_peers;
    quint64 m_total = 0;
};

}  // namespace hips
