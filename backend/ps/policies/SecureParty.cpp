#include "SecureParty.h"

#include "ModelSlices.h"
#include "RoleError.h"
#include "Vocabulary.h"
#include "RoleScope.h"

#include <QCborArray>
#include <QCborValue>
#include <cstdio>

namespace hips {

namespace {

QString field(const char* name) {
    return QString::fromLatin1(name);
}

// What a member seals for another: its public key of the epoch and the other's share of its secret.
QByteArray shareLetter(qint64 epoch, const QString& from, const QString& to, const secagg::Key& publicKey, const secagg::Share& share) {
    return QCborValue(QCborMap{{field("epoch"), epoch},
                               {field("from"), from},
                               {field("to"), to},
                               {field("public_key"), secagg::bytes(publicKey)},
                               {field("x"), share.x},
                               {field("y"), secagg::bytes(share.y)}})
        .toCbor();
}

}  // namespace

SecureParty::SecureParty(RoleContext& ctx, Channel& upstream, QString global)
    : m_ctx(ctx), m_upstream(upstream), m_global(std::move(global)) {
    m_upstream.send(Message(message::kSecureHello, {}));
}

bool SecureParty::onMessage(const Envelope& e) {
    const QString& type = e.message.type;
    if (type == message::kSecureSetup) onSetup(e.message);
    else if (type == message::kSecureGroup) onGroup(e.message);
    else if (type == message::kSecureRecover) onRecover(e.message);
    else return false;
    return true;
}

bool SecureParty::isPeerServer(const QString& id) const {
    const auto node = m_ctx.topology.node(id);
    return node && node->kind == RoleKind::Server && node->rank == m_ctx.node.rank;
}

// The key this server and `member` agree on from their CURVE identities alone: only the two of
// them can compute it, so a box sealed with it comes from the other one.
std::optional<secagg::Key> SecureParty::identityKeyWith(const QString& member) const {
    const auto ownSecret = secagg::fromZ85(Channel::runKeyPair().secretKey), ownPublic = secagg::fromZ85(Channel::runKeyPair().publicKey),
               peerPublic = secagg::fromZ85(Channel::runPeerKeys().keyOf(member));
    if (!ownSecret || !ownPublic || !peerPublic) return std::nullopt;
    return secagg::agreeKey(*ownSecret, *ownPublic, *peerPublic);
}

void SecureParty::onSetup(const Message& m) {
    const qint64 epoch = m.integer(field("epoch")), fromRound = m.integer(field("from_round"));
    QStringList members;
    for (const QCborValue& v : m.fields.value(field("members")).toArray()) members << v.toString();
    members.sort();
    const bool valid = epoch > (m_groups.empty() ? 0 : m_groups.rbegin()->first) && fromRound >= 1 && members.size() >= 2 &&
                       members.size() <= 255 && members.contains(m_ctx.node.id) && members.removeDuplicates() == 0 &&
                       std::all_of(members.begin(), members.end(), [this](const QString& id) { return isPeerServer(id); });
    if (!valid) {
        m_log.reject(m_global, QStringLiteral("a secure_setup that is not a newer epoch of this rank's party servers"));
        return;
    }
    Group g{epoch, fromRound, members, secagg::KeyPair::generate(), {}, {}, false};
    QStringList others = members;
    others.removeOne(m_ctx.node.id);
    const int threshold = std::min(m_ctx.training().secureThreshold(int(members.size())), int(others.size()));
    const std::vector<secagg::Share> shares = secagg::split(g.own.secretKey, threshold, int(others.size()));
    QCborMap boxes;
    for (qsizetype i = 0; i < others.size(); ++i) {
        const auto key = identityKeyWith(others[i]);
        if (!key) throw RoleError("secure aggregation: no key to agree on with " + others[i].toStdString() + "; start the run again");
        boxes.insert(others[i], secagg::seal(*key, shareLetter(epoch, m_ctx.node.id, others[i], g.own.publicKey, shares[size_t(i)])));
    }
    m_groups[epoch] = std::move(g);
    m_upstream.send(
        Message(message::kSecureKeys,
                {{field("epoch"), epoch}, {field("public_key"), secagg::bytes(m_groups[epoch].own.publicKey)}, {field("boxes"), boxes}}));
}

void SecureParty::onGroup(const Message& m) {
    const qint64 epoch = m.integer(field("epoch"));
    const auto it = m_groups.find(epoch);
    if (it == m_groups.end() || it->second.complete) {
        m_log.reject(m_global, QStringLiteral("a secure_group of epoch %1, which this server did not set up").arg(epoch));
        return;
    }
    Group& g = it->second;
    const QCborMap keys = m.fields.value(field("keys")).toMap(), boxes = m.fields.value(field("boxes")).toMap();
    for (const QString& member : g.members) {
        if (member == m_ctx.node.id) continue;
        const auto fail = [&](const char* what) {
            throw RoleError("secure aggregation: the keys of " + member.toStdString() + " for epoch " + std::to_string(epoch) + " " + what +
                            ": someone changed them on the way (the global server, or the network); the run stops");
        };
        const auto identity = identityKeyWith(member);
        const auto letter = identity ? secagg::open(*identity, boxes.value(member).toByteArray()) : std::nullopt;
        if (!letter) fail("come in a box that does not open");
        const QCborMap l = QCborValue::fromCbor(*letter).toMap();
        const auto publicKey = secagg::keyFrom(keys.value(member).toByteArray());
        const auto y = secagg::keyFrom(l.value(field("y")).toByteArray());
        if (l.value(field("epoch")).toInteger() != epoch || l.value(field("from")).toString() != member ||
            l.value(field("to")).toString() != m_ctx.node.id || !publicKey ||
            l.value(field("public_key")).toByteArray() != secagg::bytes(*publicKey) || !y || l.value(field("x")).toInteger() < 1 ||
            l.value(field("x")).toInteger() > 255)
            fail("name another sender, receiver, epoch or key than the box they came in");
        const auto maskKey = secagg::agreeKey(g.own.secretKey, g.own.publicKey, *publicKey);
        if (!maskKey) fail("are no key to agree on (a low-order point)");
        g.maskKeys.insert(member, *maskKey);
        g.sharesHeld.insert(member, secagg::Share{uint8_t(l.value(field("x")).toInteger()), *y});
    }
    g.complete = true;
    if (m_waiting && groupFor(m_waiting->round) == &g) send(g, *std::exchange(m_waiting, std::nullopt));
}

void SecureParty::onRecover(const Message& m) {
    const qint64 epoch = m.integer(field("epoch"));
    const QString party = m.fields.value(field("party")).toString();
    const auto it = m_groups.find(epoch);
    if (it == m_groups.end() || !it->second.sharesHeld.contains(party)) {
        m_log.reject(m_global, QStringLiteral("asks for a share this server does not hold (epoch %1)").arg(epoch));
        return;
    }
    const secagg::Share& s = it->second.sharesHeld[party];
    m_upstream.send(Message(message::kSecureShare,
                            {{field("epoch"), epoch}, {field("party"), party}, {field("x"), s.x}, {field("y"), secagg::bytes(s.y)}}));
}

// The keys round `round` masks with: the newest epoch that starts at or before it.
SecureParty::Group* SecureParty::groupFor(qint64 round) {
    Group* found = nullptr;
    for (auto& [epoch, g] : m_groups)
        if (g.fromRound <= round) found = &g;
    return found;
}

void SecureParty::push(qint64 round, qint64 base, const FloatBuffer& sum, double weight) {
    Group* g = groupFor(round);
    if (!g) {
        std::fprintf(roleErr(), "%s: round %lld comes before this server's keys (it restarted during it): it sits the round out\n",
                     qPrintable(m_ctx.node.id), static_cast<long long>(round));
        m_upstream.send(Message(message::kPull, {{field("version"), round}}));
        return;
    }
    if (!g->complete) {
        m_waiting = Waiting{round, base, sum, weight};
        return;
    }
    send(*g, Waiting{round, base, sum, weight});
}

void SecureParty::send(const Group& g, const Waiting& w) {
    const size_t n = w.sum->size();
    auto masked = std::make_shared<std::vector<quint64>>(n);
    const quint64 clamped = secagg::encode(w.sum->data(), n, int(g.members.size()), masked->data());
    if (clamped > 0 && m_clamped == 0)
        std::fprintf(roleErr(), "%s: %llu values of round %lld lie beyond ±%g, the fixed point's range, and go up clamped\n",
                     qPrintable(m_ctx.node.id), static_cast<unsigned long long>(clamped), static_cast<long long>(w.round),
                     secagg::bound(int(g.members.size())));
    m_clamped += clamped;
    for (const QString& member : g.members)
        if (member != m_ctx.node.id) secagg::applyMask(masked->data(), 0, n, g.maskKeys[member], quint64(w.round), m_ctx.node.id < member);
    // The keys of older epochs mask nothing any more: their rounds are closed (this one's model
    // came after them), so they go, and with them what they could unmask.
    for (auto it = m_groups.begin(); it != m_groups.end();) it = it->first < g.epoch ? m_groups.erase(it) : std::next(it);
    for (size_t offset = 0; offset < n; offset += kSliceFloats) {
        const size_t count = std::min(kSliceFloats, n - offset);
        Message push(message::kMaskedPush, {{field("round"), w.round},
                                            {field("epoch"), g.epoch},
                                            {field("base"), w.base},
                                            {field("offset"), qint64(offset)},
                                            {field("total"), qint64(n)},
                                            {field("pull"), true},
                                            {field("weight"), w.weight}});
        push.frames.push_back(sharedFrame(masked, masked->data() + offset, count * sizeof(quint64)));
        m_upstream.send(std::move(push));
    }
}

}  // namespace hips
