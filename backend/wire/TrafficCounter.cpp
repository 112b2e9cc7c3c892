#include "TrafficCounter.h"

#include "Vocabulary.h"

#include <QCborMap>

namespace hips {

QString partyOf(const QString& nodeId) {
    return nodeId.section('/', 0, 0);
}

TrafficCounter::Link& TrafficCounter::link(const QString& peer) {
    auto it = m_links.find(peer);
    if (it == m_links.end()) {
        Link l;
        l.tier = partyOf(peer) == m_party ? Tier::Inside : Tier::Across;
        it = m_links.insert(peer, l);
    }
    return *it;
}

quint64 TrafficCounter::sentBytes(Tier tier) const {
    quint64 n = 0;
    for (const Link& l : m_links) n += l.tier == tier ? l.sent : 0;
    return n;
}

quint64 TrafficCounter::receivedBytes(Tier tier) const {
    quint64 n = 0;
    for (const Link& l : m_links) n += l.tier == tier ? l.received : 0;
    return n;
}

QCborArray TrafficCounter::toCbor() const {
    QCborArray out;
    for (auto it = m_links.begin(); it != m_links.end(); ++it)
        out.append(QCborMap{{metric::kPeer, it.key()},
                            {metric::kTier, it->tier == Tier::Inside ? metric::kTierInside : metric::kTierAcross},
                            {metric::kSent, qint64(it->sent)},
                            {metric::kReceived, qint64(it->received)}});
    return out;
}

}  // namespace hips
