#pragma once
// A party server's side of secure aggregation (SecureAggregation.h): its sum of each round goes up
// to its global server as fixed point plus the masks it shares with every other party server of
// the same rank, so that only the sum of all of them can be read there.
//
// Keys are agreed per epoch. The global server asks for them (secure_setup: the members and the
// first round they mask); each member draws an X25519 key pair, splits its secret into Shamir
// shares for the other members (any `threshold` of them recover it), seals each share with the
// public key in a box only that member can open (the key the two parties' CURVE identities
// agree on) and sends its public key and the boxes (secure_keys). The global server hands each
// member the others' public keys and the boxes addressed to it (secure_group); a box that does
// not open, or names another sender, epoch or key, stops the run (someone changed the keys on
// the way). When a member drops out of a round, the global server asks the others for their
// shares of its key (secure_recover, secure_share) and removes its masks itself.
#include "Channel.h"
#include "ModelFrame.h"
#include "RejectionLog.h"
#include "RoleContext.h"
#include "SecureAggregation.h"

#include <QHash>
#include <QStringList>
#include <map>
#include <optional>

namespace hips {

class SecureParty {
public:
    SecureParty(RoleContext& ctx, Channel& upstream, QString global);

    // A message of the protocol from the global server; false when it is none.
    bool onMessage(const Envelope& e);
    // The party's sum of `round` goes up masked: now, or once the keys that round masks with are
    // agreed. A round before this server's first keys (it restarted) is sat out: its model is
    // pulled instead.
    void push(qint64 round, qint64 base, const FloatBuffer& sum, double weight);
    // Values beyond the fixed point's range, clamped, in this run so far.
    quint64 clamped() const { return m_clamped; }

private:
    struct Group {
        qint64 epoch = 0, fromRound = 0;
        QStringList members;  // sorted; this server among them
        secagg::KeyPair own;
        QHash<QString, secagg::Key> maskKeys;  // pairwise, by member
        QHash<QString, secagg::Share> sharesHeld;  // of each other member's secret
        bool complete = false;
    };
    struct Waiting {
        qint64 round = 0, base = 0;
        FloatBuffer sum;
        double weight = 0;
    };
    void onSetup(const Message& m);
    void onGroup(const Message& m);
    void onRecover(const Message& m);
    Group* groupFor(qint64 round);
    void send(const Group& g, const Waiting& w);
    std::optional<secagg::Key> identityKeyWith(const QString& member) const;
    bool isPeerServer(const QString& id) const;

    RoleContext& m_ctx;
    Channel& m_upstream;
    QString m_global;
    std::map<qint64, Group> m_groups;  // by epoch
    std::optional<Waiting> m_waiting;
    quint64 m_clamped = 0;
    RejectionLog m_log{m_ctx.node.id};
};

}  // namespace hips
