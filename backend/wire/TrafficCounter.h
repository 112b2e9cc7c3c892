#pragma once
// Bytes sent and received per peer, split into the two tiers the charts show:
// inside a party (LAN) and across parties (WAN). Peers are node ids "party/role".
#include <QCborArray>
#include <QHash>
#include <QString>

namespace hips {

enum class Tier { Inside, Across };

QString partyOf(const QString& nodeId);  // "party1/worker0" -> "party1"

class TrafficCounter {
public:
    struct Link {
        Tier tier = Tier::Inside;
        quint64 sent = 0;
        quint64 received = 0;
    };

    explicit TrafficCounter(QString ownParty = {}) : m_party(std::move(ownParty)) {}

    void sent(const QString& peer, quint64 bytes) { link(peer).sent += bytes; }
    void received(const QString& peer, quint64 bytes) { link(peer).received += bytes; }
    // Counts `other`'s bytes as this one's (a link dialled again goes on counting from there).
    void add(const TrafficCounter& other) {
        for (auto it = other.m_links.begin(); it != other.m_links.end(); ++it) {
            link(it.key()).sent += it->sent;
            link(it.key()).received += it->received;
        }
    }

    quint64 sentBytes(Tier tier) const;
    quint64 receivedBytes(Tier tier) const;
    const QHash<QString, Link>& links() const { return m_links; }
    // [{peer, tier, sent, received}] for the metrics stream.
    QCborArray toCbor() const;

private:
    Link& link(const QString& peer);

    QString m_party;
    QHash<QString, Link> m_links;
};

}  // namespace hips
