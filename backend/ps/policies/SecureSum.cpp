#include "SecureSum.h"

#include "DataPlan.h"
#include "ModelSlices.h"
#include "Vocabulary.h"
#include "RoleScope.h"

#include <QCborArray>
#include <algorithm>
#include <cstdio>
#include <cstring>

namespace hips {

namespace {

QString field(const char* name) {
    return QString::fromLatin1(name);
}

// Adds the 64-bit words of a frame (as they came: maybe unaligned) into `sum`, wrapping.
void addWords(quint64* sum, const void* frame, size_t count) {
    const auto* bytes = static_cast<const unsigned char*>(frame);
    for (size_t i = 0; i < count; ++i) {
        quint64 word;
        std::memcpy(&word, bytes + i * sizeof word, sizeof word);
        sum[i] += word;
    }
}

}  // namespace

SecureSum::SecureSum(RoleContext& ctx, Channel& channel, const QSet<QString>& parties)
    : m_ctx(ctx), m_channel(channel), m_parties(parties.begin(), parties.end()), m_workersBehind(workersBehind(ctx.topology, parties)) {
    m_parties.sort();
}

bool SecureSum::isProtocolMessage(const QString& type) {
    return type == message::kSecureHello || type == message::kSecureKeys || type == message::kSecureShare;
}

SecureSum::Unmasked SecureSum::onMessage(const Envelope& e, qint64 nextRound, size_t modelSize) {
    if (!m_parties.contains(e.peer)) {
        reject(e.peer, QStringLiteral("'%1' from a node that is not a party server of this rank").arg(e.message.type));
        return {};
    }
    const QString& type = e.message.type;
    if (type == message::kSecureHello) onHello(e.peer, nextRound);
    else if (type == message::kSecureKeys) onKeys(e);
    else if (type == message::kSecureShare) onShare(e);
    return m_round.open() ? resolve(nextRound) : Unmasked{};
    Q_UNUSED(modelSize);
}

// A member starts: the first asks for the run's first keys; one that had keys before restarted
// without them, and is out of the rounds it masked with them until new ones are agreed.
void SecureSum::onHello(const QString& party, qint64 nextRound) {
    m_hello.insert(party);
    if (m_epochs.empty()) return startEpoch(nextRound);
    Epoch* open = pending();
    if (open && open->members.contains(party) && !open->publicKeys.contains(party)) {
        // Keys being agreed with it; those it had before it lost with its restart: it is out of
        // their rounds (the round open waited for its push under them for ever).
        for (auto& [number, epoch] : m_epochs)
            if (&epoch != open && epoch.publicKeys.contains(party)) epoch.outOf.insert(party);
        return sendSetup(*open, party);
    }
    bool hadKeys = false;
    for (auto& [number, epoch] : m_epochs)
        if (epoch.publicKeys.contains(party)) {
            epoch.outOf.insert(party);
            hadKeys = true;
        }
    if (!hadKeys && open) return;  // (not a member of the keys being agreed: the next ones)
    m_rekeyWanted = true;
    if (!m_round.open()) startEpoch(nextRound + 1);  // (parties may be computing nextRound already)
}

void SecureSum::startEpoch(qint64 fromRound) {
    m_rekeyWanted = false;
    if (Epoch* superseded = pending()) {  // never agreed: these take its place (its members set the newer ones up)
        fromRound = std::min(fromRound, superseded->fromRound);
        m_epochs.erase(superseded->number);
    }
    Epoch e;
    e.number = ++m_lastEpoch;
    e.fromRound = std::max<qint64>(fromRound, 1);
    for (const QString& p : m_parties)
        if (!m_down.contains(p)) e.members << p;
    if (e.members.size() < 2) {
        std::fprintf(roleErr(), "%s: secure aggregation: %lld party server(s) are up, and new keys need 2; waiting for them\n",
                     qPrintable(m_ctx.node.id), static_cast<long long>(e.members.size()));
        m_rekeyWanted = true;
        return;
    }
    e.threshold = std::min(m_ctx.training().secureThreshold(int(e.members.size())), int(e.members.size()) - 1);
    Epoch& added = m_epochs[e.number] = std::move(e);
    for (const QString& member : added.members)
        if (m_hello.contains(member)) sendSetup(added, member);
}

void SecureSum::sendSetup(const Epoch& epoch, const QString& member) {
    m_channel.send(member, Message(message::kSecureSetup, {{field("epoch"), epoch.number},
                                                           {field("from_round"), epoch.fromRound},
                                                           {field("members"), QCborArray::fromStringList(epoch.members)}}));
}

SecureSum::Epoch* SecureSum::pending() {
    return !m_epochs.empty() && !m_epochs.rbegin()->second.complete ? &m_epochs.rbegin()->second : nullptr;
}

SecureSum::Epoch* SecureSum::epochFor(qint64 round) {
    Epoch* found = nullptr;
    for (auto& [number, epoch] : m_epochs)
        if (epoch.fromRound <= round) found = &epoch;
    return found;
}

void SecureSum::onKeys(const Envelope& e) {
    Epoch* epoch = pending();
    const Message& m = e.message;
    if (!epoch || m.integer(field("epoch")) != epoch->number || !epoch->members.contains(e.peer) || epoch->publicKeys.contains(e.peer))
        return reject(e.peer, QStringLiteral("keys for no epoch being agreed, or a second time"));
    const auto publicKey = secagg::keyFrom(m.fields.value(field("public_key")).toByteArray());
    const QCborMap boxes = m.fields.value(field("boxes")).toMap();
    bool boxesFit = boxes.size() == epoch->members.size() - 1;
    for (const QString& member : epoch->members)
        if (member != e.peer) {
            const QByteArray box = boxes.value(member).toByteArray();
            boxesFit = boxesFit && !box.isEmpty() && box.size() <= 4096;
        }
    if (!publicKey || !boxesFit) return reject(e.peer, QStringLiteral("keys that are not a public key and one box for each other member"));
    epoch->publicKeys.insert(e.peer, *publicKey);
    epoch->boxes.insert(e.peer, boxes);
    if (epoch->publicKeys.size() < epoch->members.size()) return;
    epoch->complete = true;
    if (epoch->number > 1)
        std::fprintf(roleErr(), "%s: secure aggregation: new keys (epoch %lld) agreed by %s; rounds from %lld mask with them\n",
                     qPrintable(m_ctx.node.id), static_cast<long long>(epoch->number),
                     qPrintable(epoch->members.join(QStringLiteral(", "))), static_cast<long long>(epoch->fromRound));
    QCborMap keys;
    for (const QString& member : epoch->members) keys.insert(member, secagg::bytes(epoch->publicKeys[member]));
    for (const QString& member : epoch->members) {
        QCborMap toMember;
        for (const QString& sender : epoch->members)
            if (sender != member) toMember.insert(sender, epoch->boxes[sender].value(member));
        m_channel.send(
            member, Message(message::kSecureGroup, {{field("epoch"), epoch->number}, {field("keys"), keys}, {field("boxes"), toMember}}));
    }
}

void SecureSum::onShare(const Envelope& e) {
    const Message& m = e.message;
    const auto it = m_epochs.find(m.integer(field("epoch")));
    const QString party = m.fields.value(field("party")).toString();
    const qint64 x = m.integer(field("x"));
    const auto y = secagg::keyFrom(m.fields.value(field("y")).toByteArray());
    if (it != m_epochs.end() && it->second.withdrawn.contains(party) && !it->second.asked.contains(party))
        return;  // (asked, and taken back: the member came back with its keys)
    if (it == m_epochs.end() || !it->second.asked.contains(party) || it->second.recovered.contains(party) ||
        !it->second.members.contains(e.peer) || e.peer == party || it->second.shareGivers[party].contains(e.peer) || x < 1 || x > 255 || !y)
        return reject(e.peer, QStringLiteral("a share nobody asked it for, or not one share"));
    Epoch& epoch = it->second;
    epoch.shareGivers[party].insert(e.peer);
    std::vector<secagg::Share>& shares = epoch.shares[party];
    shares.push_back(secagg::Share{uint8_t(x), *y});
    if (int(shares.size()) < epoch.threshold) return;
    const auto secret = secagg::recoverKey(shares, epoch.threshold, epoch.publicKeys.value(party));
    if (!secret) {  // a wrong share among them: wait for more
        if (int(shares.size()) == epoch.threshold)
            std::fprintf(roleErr(), "%s: secure aggregation: %d shares of %s's key do not give its key back; waiting for more\n",
                         qPrintable(m_ctx.node.id), epoch.threshold, qPrintable(party));
        return;
    }
    epoch.recovered.insert(party, *secret);
    ++m_recoveries;
    // Up again (cut off, not restarted): its pushes under these keys are refused from here on, so
    // new keys are agreed with it at the round's end (down, its return asks for them).
    if (!m_down.contains(party)) m_rekeyWanted = true;
    std::fprintf(roleErr(), "%s: secure aggregation: recovered the masks of %s (epoch %lld) from %lld shares\n", qPrintable(m_ctx.node.id),
                 qPrintable(party), static_cast<long long>(epoch.number), static_cast<long long>(shares.size()));
}

// Out of the epoch's rounds: down, restarted without its keys, or its key recovered (its pushes
// under it would be readable here, so none is taken any more).
bool SecureSum::absent(const Epoch& epoch, const QString& member) const {
    return m_down.contains(member) || epoch.outOf.contains(member) || epoch.recovered.contains(member);
}

SecureSum::Unmasked SecureSum::onPush(Envelope& e, qint64 nextRound, size_t modelSize) {
    const Message& m = e.message;
    const qint64 round = m.integer(field("round")), offset = m.integer(field("offset")), total = m.integer(field("total"));
    if (!m_parties.contains(e.peer))
        return reject(e.peer, QStringLiteral("a masked push from a node that is not a party server here")), Unmasked{};
    if (round < nextRound && m_ctx.training().continuesThroughFailures()) {  // its round closed without it
        m_late += offset == 0;
        return {};
    }
    Epoch* epoch = epochFor(round);
    if (round != nextRound || !epoch || !epoch->complete || m.integer(field("epoch")) != epoch->number)
        return reject(e.peer, QStringLiteral("a masked push for round %1 (epoch %2) while round %3 is open")
                                  .arg(round)
                                  .arg(m.integer(field("epoch")))
                                  .arg(nextRound)),
               Unmasked{};
    if (!epoch->members.contains(e.peer) || absent(*epoch, e.peer))
        return reject(e.peer, QStringLiteral("a masked push from a server out of this round's keys")), Unmasked{};
    const size_t count = m.frames.size() == 1 && m.frames[0].size() % sizeof(quint64) == 0 ? m.frames[0].size() / sizeof(quint64) : 0;
    if (total <= 0 || size_t(total) != modelSize || !isCanonicalSlice(offset, total, count))
        return reject(e.peer, QStringLiteral("a masked push that is not a slice of a %1-value sum").arg(modelSize)), Unmasked{};
    const double weight = m.fields.value(field("weight")).toDouble(-1);
    if (!(weight > 0 && weight <= kMostSamplesAWorkerClaims * m_workersBehind.value(e.peer, 1.0)))
        return reject(e.peer, QStringLiteral("weight is not a positive number of samples")), Unmasked{};
    if (!m_round.open()) {
        m_round = Round{round, epoch->number, modelSize, std::vector<quint64>(modelSize, 0), {}, {}, {}};
        m_round.delivered.assign(sliceCount(modelSize), {});
        m_round.emitted.assign(sliceCount(modelSize), false);
    }
    const size_t slice = size_t(offset) / kSliceFloats;
    if (m_round.delivered[slice].contains(e.peer))
        return reject(e.peer, QStringLiteral("second masked push of values %1.. in round %2").arg(offset).arg(round)), Unmasked{};
    addWords(m_round.sums.data() + offset, m.frames[0].data(), count);
    m_round.delivered[slice].insert(e.peer);
    m_round.weights.insert(e.peer, weight);
    return resolve(nextRound);
}

SecureSum::Unmasked SecureSum::setAbsent(const QString& party, bool isAbsent, qint64 nextRound, size_t modelSize) {
    Q_UNUSED(modelSize);
    if (!m_parties.contains(party)) return {};
    if (!isAbsent) {
        m_down.remove(party);
        // Back with its keys (it was only cut off) while the others were asked for them: the ask
        // is taken back, and what shares came forgotten. Its push closes the round; with its key
        // recovered as well, the push it sent would be readable here (the shares came after it).
        for (auto& [number, epoch] : m_epochs)
            if (epoch.asked.contains(party) && !epoch.recovered.contains(party)) {
                epoch.asked.remove(party);
                epoch.shares.remove(party);
                epoch.shareGivers.remove(party);
                epoch.withdrawn.insert(party);
            }
        // A holder back: asked for its shares of those still being recovered (it was down when
        // they were asked for, and the round waited for a share nobody would ask it for again).
        for (auto& [number, epoch] : m_epochs)
            for (const QString& member : epoch.asked)
                if (member != party && epoch.members.contains(party) && absent(epoch, member) && !epoch.recovered.contains(member) &&
                    !epoch.shareGivers[member].contains(party))
                    m_channel.send(party, Message(message::kSecureRecover, {{field("epoch"), epoch.number}, {field("party"), member}}));
        // Back, but its key was recovered meanwhile: new keys, with it, unless the newest keys
        // (agreed or being agreed, as its hello may already have started) have it as a member.
        bool recovered = false;
        for (auto& [number, epoch] : m_epochs) recovered = recovered || epoch.recovered.contains(party);
        const Epoch* newest = m_epochs.empty() ? nullptr : &m_epochs.rbegin()->second;
        // (Or it was left out of them, down as they were agreed: before the first model too.)
        if ((recovered || newest) && !(newest && newest->members.contains(party) && !absent(*newest, party))) m_rekeyWanted = true;
        if (m_rekeyWanted && !m_round.open()) startEpoch(nextRound + 1);
        return {};
    }
    m_down.insert(party);
    // Keys being agreed that it never sent: agreed again without it.
    if (Epoch* open = pending(); open && open->members.contains(party) && !open->publicKeys.contains(party)) startEpoch(open->fromRound);
    return m_round.open() ? resolve(nextRound) : Unmasked{};
}

void SecureSum::askForShares(Epoch& epoch, const QString& member) {
    if (epoch.asked.contains(member)) return;
    epoch.asked.insert(member);
    epoch.withdrawn.remove(member);
    int holders = 0;
    for (const QString& holder : epoch.members)
        if (holder != member && !absent(epoch, holder)) {
            m_channel.send(holder, Message(message::kSecureRecover, {{field("epoch"), epoch.number}, {field("party"), member}}));
            ++holders;
        }
    if (holders < epoch.threshold)
        std::fprintf(roleErr(),
                     "%s: secure aggregation: %s dropped out of round %lld, and %d of the %d parties whose shares recover its masks "
                     "are up: the round waits for them (or for it, back with its keys)\n",
                     qPrintable(m_ctx.node.id), qPrintable(member), static_cast<long long>(m_round.number), holders, epoch.threshold);
}

// Each slice every member has delivered, or whose missing members' keys are recovered, is made
// plain and goes to the collector; members missing a slice are asked for once.
SecureSum::Unmasked SecureSum::resolve(qint64 nextRound) {
    Epoch& epoch = m_epochs[m_round.epoch];
    Unmasked out;
    size_t emitted = 0;
    for (size_t slice = 0; slice < m_round.delivered.size(); ++slice) {
        if (m_round.emitted[slice]) {
            ++emitted;
            continue;
        }
        bool ready = true;
        for (const QString& member : epoch.members) {
            if (m_round.delivered[slice].contains(member)) continue;
            if (!absent(epoch, member)) ready = false;  // on its way
            else if (!epoch.recovered.contains(member)) ready = false, askForShares(epoch, member);
        }
        if (!ready) continue;
        out.push_back(unmask(epoch, slice));
        m_round.emitted[slice] = true;
        ++emitted;
    }
    if (emitted < m_round.emitted.size()) return out;
    // The round is complete: new keys, where wanted, are asked for before its model is all out.
    m_round = Round{};
    if (m_rekeyWanted) startEpoch(nextRound + 1);
    return out;
}

Envelope SecureSum::unmask(Epoch& epoch, size_t slice) {
    const size_t offset = slice * kSliceFloats, count = std::min(kSliceFloats, m_round.size - offset);
    quint64* sum = m_round.sums.data() + offset;
    const QSet<QString>& present = m_round.delivered[slice];
    // The masks a missing member shares with those present did not cancel: taken out, as each
    // present one put them in (added by the one first by id, subtracted by the other).
    for (const QString& missing : epoch.members) {
        if (present.contains(missing)) continue;
        const secagg::Key& secret = epoch.recovered[missing];
        for (const QString& member : present) {
            const auto key = secagg::agreeKey(secret, epoch.publicKeys[missing], epoch.publicKeys[member]);
            if (key) secagg::applyMask(sum, offset, count, *key, quint64(m_round.number), !(member < missing));
        }
    }
    auto values = std::make_shared<std::vector<float>>(count);
    // As the plain rounds do: the sum of those present stands for all the parties' workers.
    const double scale = scaleToAll(m_workersBehind, m_parties, present);
    secagg::decode(sum, count, scale, values->data());
    // The collector's one contributor: its weight weighs it against no other, and a liar's claim in
    // some party must not get it refused there (the round would wait).
    double weight = 0;
    for (const QString& member : present) weight += m_round.weights.value(member);
    Message push(message::kPush, {{field("round"), m_round.number},
                                  {field("offset"), qint64(offset)},
                                  {field("total"), qint64(m_round.size)},
                                  {field("weight"), std::clamp(weight, 1.0, kMostSamplesAWorkerClaims)}});
    push.frames.push_back(sharedFrame(values, values->data(), count * sizeof(float)));
    Envelope e;
    e.peer = sumId();
    e.message = std::move(push);
    return e;
}

}  // namespace hips
