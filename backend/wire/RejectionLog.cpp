#include "RejectionLog.h"

#include "PrintableText.h"
#include "RoleScope.h"

#include <cstdio>

namespace hips {

static constexpr int kMaxTrackedPeers = 4096;  // beyond this the table restarts: memory stays bounded

bool RejectionLog::reject(const QString& peer, const QString& why) {
    ++m_total;
    return log(peer, QStringLiteral("rejected input from"), why);
}

bool RejectionLog::undelivered(const QString& peer, const QString& why) {
    return log(QStringLiteral("to ") + peer, QStringLiteral("could not deliver"), why);
}

// One line per peer (and kind) and interval at most; the lines held back are counted on the next.
bool RejectionLog::log(const QString& peer, const QString& what, const QString& why) {
    const auto now = std::chrono::steady_clock::now();
    if (m_peers.size() >= kMaxTrackedPeers && !m_peers.contains(peer)) m_peers.clear();
    auto it = m_peers.find(peer);
    const bool first = it == m_peers.end();
    if (first) it = m_peers.insert(peer, PeerState{});
    if (!first && now - it->lastLine < m_interval) {
        ++it->suppressed;
        return false;
    }
    const QString more = it->suppressed ? QStringLiteral(" (and %1 more since the last line)").arg(it->suppressed) : QString();
    const QString shownPeer = peer.startsWith(QLatin1String("to ")) ? QStringLiteral("to '%1'").arg(printableText(peer.mid(3), 100))
                                                                    : QStringLiteral("'%1'").arg(printableText(peer, 100));
    std::fprintf(roleErr(), "%s: %s %s: %s%s\n", qPrintable(printableText(m_owner, 100)), qPrintable(what), qPrintable(shownPeer),
                 qPrintable(printableText(why, 400)), qPrintable(more));
    std::fflush(roleErr());
    it->lastLine = now;
    it->suppressed = 0;
    return true;
}

}  // namespace hips
