#pragma once
// The global server's side of secure aggregation (SecureParty.h has the protocol): it sets up the
// party servers' keys, adds their masked sums in ℤ_2^64 slice by slice, and hands the round's
// collector each slice once it is the plain sum: when every member has delivered it the masks
// have cancelled; a member that dropped out of the round (down, or restarted without its keys)
// has its key recovered from the others' shares, and its masks are taken out here. What the
// collector sees is one contributor, the parties' sum (sumId()); no party's own sum is ever
// held here in the clear.
//
// New keys (a new epoch) are asked for when a member comes back without its keys, or after its
// key was recovered: at the end of a round, before the last of its model goes out, so that every
// member masks the next round with them.
#include "Channel.h"
#include "RejectionLog.h"
#include "RoleContext.h"
#include "SecureAggregation.h"

#include <QHash>
#include <QSet>
#include <QStringList>
#include <map>
#include <vector>

namespace hips {

class SecureSum {
public:
    SecureSum(RoleContext& ctx, Channel& channel, const QSet<QString>& parties);

    static QString sumId() { return QStringLiteral("(the parties' sum)"); }
    static bool isProtocolMessage(const QString& type);

    // Slices made final, as pushes from sumId() for the round's collector (round `nextRound`, the
    // one open or next), in order, a secure_setup sent before the round's last.
    using Unmasked = std::vector<Envelope>;
    Unmasked onMessage(const Envelope& e, qint64 nextRound, size_t modelSize);
    // A masked push slice (masked_push) from a party server.
    Unmasked onPush(Envelope& e, qint64 nextRound, size_t modelSize);
    Unmasked setAbsent(const QString& party, bool absent, qint64 nextRound, size_t modelSize);
    quint64 late() const { return m_late; }
    quint64 recoveries() const { return m_recoveries; }

private:
    struct Epoch {
        qint64 number = 0, fromRound = 0;
        QStringList members;  // sorted
        QHash<QString, secagg::Key> publicKeys;
        QHash<QString, QCborMap> boxes;  // by sender: {receiver: box}
        bool complete = false;
        int threshold = 1;
        QSet<QString> outOf;  // members that lost their keys (restarted)
        QSet<QString> asked;  // members whose shares were asked for
        QSet<QString> withdrawn;  // asked, then back with their keys: late shares are dropped unread
        QHash<QString, std::vector<secagg::Share>> shares;  // of a member's key, as they come
        QHash<QString, QSet<QString>> shareGivers;
        QHash<QString, secagg::Key> recovered;  // members' keys, recovered from the shares
    };
    struct Round {
        qint64 number = -1;
        qint64 epoch = 0;
        size_t size = 0;
        std::vector<quint64> sums;
        std::vector<QSet<QString>> delivered;  // per slice
        std::vector<bool> emitted;
        QHash<QString, double> weights;
        bool open() const { return number >= 0; }
    };
    void onHello(const QString& party, qint64 nextRound);
    void onKeys(const Envelope& e);
    void onShare(const Envelope& e);
    void startEpoch(qint64 fromRound);
    void sendSetup(const Epoch& epoch, const QString& member);
    Epoch* epochFor(qint64 round);
    Epoch* pending();
    bool absent(const Epoch& epoch, const QString& member) const;
    Unmasked resolve(qint64 nextRound);
    void askForShares(Epoch& epoch, const QString& member);
    Envelope unmask(Epoch& epoch, size_t slice);
    void reject(const QString& peer, const QString& why) { m_log.reject(peer, QStringLiteral("secure aggregation: ") + why); }

    RoleContext& m_ctx;
    Channel& m_channel;
    QStringList m_parties;  // sorted
    QHash<QString, double> m_workersBehind;  // each party's workers, where more than one
    QSet<QString> m_down, m_hello;
    std::map<qint64, Epoch> m_epochs;
    Round m_round;
    bool m_rekeyWanted = false;
    qint64 m_lastEpoch = 0;
    quint64 m_late = 0, m_recoveries = 0;
    RejectionLog m_log{m_ctx.node.id};
};

}  // namespace hips
