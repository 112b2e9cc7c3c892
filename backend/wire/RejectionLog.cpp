#include "RejectionLog.h"

#include "PrintableText.h"

#include <cstdio>

namespace hips {

static constexpr int kMaxTrackedPeers = 4096;  // beyond this the table restarts: memory stays bounded

bool RejectionLog::reject(const QString& peer, const QString& why) {
    ++m_total;
    const auto now = std::chrono::steady_clock::now();
    if (m_peers.size() >= kMaxTrackedPeers && !m_peers.contains(peer)) m_peers.clear();
    auto it = m_peers.find(peer);
    const bool first = it == m_peers.end();
    if (first) it = m_peers.insert(peer, PeerState{});
    if (!first && now - it->lastLine < m_interval) {
        ++it->suppressed;
        return false;
    }
    const QString more = it->suppressed ? QStringLiteral(" (and %1 more rejected from it since the last line)").arg(it->suppressed)
                                        : QString();
    std::fprintf(stderr, "%s: rejected input from '%s': %s%s\n", qPrintable(printableText(m_owner, 100)),
                 qPrintable(printableText(peer, 100)), qPrintable(printableText(why, 400)), qPrintable(more));
    std::fflush(stderr);
    it->lastLine = now;
    it->suppressed = 0;
    return true;
}

}  // namespace hips
