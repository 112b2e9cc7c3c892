#include "SealedPlane.h"

#include "SealedFrameFormat.h"
#include "SealedPlaneParts.h"
#include "WireCodec.h"

#include <sodium.h>

#include <algorithm>
#include <cstring>

namespace hips {

namespace {

using namespace sealedframe;
using namespace sealedplane;

constexpr int kMaxBulkReadsPerCall = 64;  // a stranger's flood is read in bounded bites
constexpr size_t kMaxStashedFrames = 1024;
constexpr size_t kMaxHeldPerPeer = 1000;  // a socket's queue: what a peer can have on its way at once
constexpr uint64_t kMaxCounterAhead = kMaxHeldPerPeer * 64;  // frames on their way: held messages × their parts
constexpr size_t kMaxNameBytes = 256;

}  // namespace

SealedPlane::SealedPlane(zmq::context_t& ctx, bool router, QString self, QByteArray binding, QString curveEndpoint, size_t maxFrameBytes)
    : m_ctx(ctx),
      m_router(router),
      m_self(std::move(self)),
      m_binding(std::move(binding)),
      m_curveEndpoint(std::move(curveEndpoint)),
      m_maxFrameBytes(maxFrameBytes) {}

SealedPlane::~SealedPlane() = default;

SealedPlane::Link* SealedPlane::linkOf(const QByteArray& key) {
    const auto it = m_links.find(key);
    return it == m_links.end() ? nullptr : it->second.get();
}

// A sealed empty frame of `kind` ('h' hello, 'e' end mark, 'c' closing) on the link's bulk connection.
bool SealedPlane::sendMark(Link& link, char kind) {
    const QByteArray header = bulkHeader(kind, 0, link.sealer->nextCounter(), 0, {}), name = m_self.toUtf8();
    zmq::message_t tag(kAeadTagBytes);
    if (!link.sealer->seal(header + name, nullptr, 0, static_cast<unsigned char*>(tag.data()))) return false;
    return sendBulk(link, header, name, tag);
}

// [route][header][name][sealed] on the bulk socket; false when the peer is gone or its queue is
// full (the frame's counter is then skipped, which the receiver allows).
bool SealedPlane::sendBulk(const Link& link, const QByteArray& header, const QByteArray& name, zmq::message_t& sealed) {
    const auto more = zmq::send_flags::sndmore | zmq::send_flags::dontwait;
    try {
        if (m_router && !m_bulk->send(zmq::buffer(link.bulkRoute.constData(), size_t(link.bulkRoute.size())), more)) return false;
        if (!m_bulk->send(zmq::buffer(header.constData(), size_t(header.size())), more)) return false;
        m_bulk->send(zmq::buffer(name.constData(), size_t(name.size())), zmq::send_flags::sndmore);
        m_bulk->send(sealed, zmq::send_flags::none);
    } catch (const zmq::error_t& e) {
        if (e.num() != EHOSTUNREACH && e.num() != EAGAIN) throw;
        return false;
    }
    return true;
}

void SealedPlane::markEnd(std::chrono::milliseconds linger, const QSet<QString>& gone) {
    if (!m_bulk) return;
    for (auto& [key, link] : m_links) {
        if (m_router ? link->bulkRoute.isEmpty() : !link->confirmed) continue;
        const std::optional<Clock::time_point> lastSent = std::exchange(link->lastSentSinceMark, std::nullopt);
        const bool awaited = lastSent && !link->peerClosing && !gone.contains(link->peer) && *lastSent + linger > Clock::now();
        const bool sent = sendMark(*link, awaited ? 'e' : 'c');
        if (sent && awaited) m_awaitingEnd[key] = *lastSent + linger;
    }
}

bool SealedPlane::awaitingEnd() {
    const auto now = Clock::now();
    for (auto it = m_awaitingEnd.begin(); it != m_awaitingEnd.end();) it = it->second <= now ? m_awaitingEnd.erase(it) : std::next(it);
    return !m_awaitingEnd.empty();
}

void SealedPlane::tick() {
    if (m_router || m_links.empty() || !m_bulk) return;
    Link& link = *m_links.begin()->second;
    if (!link.confirmed && (!link.helloSent || Clock::now() - link.lastHello >= kHelloAgain)) sayHello(link);
}

void SealedPlane::divert(const QString& peer, std::vector<zmq::message_t>& parts, size_t first) {
    tick();
    QByteArray descriptor(1, kDescriptorMark);
    Link* link = linkOf(m_router ? bytesOf(parts[0]) : peer.toUtf8());
    bool bulk = link && m_bulk && (m_router ? !link->bulkRoute.isEmpty() : link->confirmed);
    const QByteArray name = m_self.toUtf8();
    QByteArray digest;
    for (size_t i = first + 1; bulk && i < parts.size(); ++i) {
        const size_t size = parts[i].size();
        if (size < kMinBulkBytes) continue;
        if (digest.isEmpty()) digest = digestOf(bytesOf(parts[first]));
        const uint64_t counter = link->sealer->nextCounter();
        const QByteArray header = bulkHeader('f', i - first, counter, size, digest);
        zmq::message_t sealed(size + kAeadTagBytes);
        if (!link->sealer->seal(header + name, static_cast<const unsigned char*>(parts[i].data()), size,
                                static_cast<unsigned char*>(sealed.data())))
            break;  // the counters are spent: the rest goes inline
        if (!sendBulk(*link, header, name, sealed)) break;  // gone or full: this frame and the rest go inline
        QByteArray entry(int(kEntryBytes), '\0');
        auto* p = reinterpret_cast<unsigned char*>(entry.data());
        putBig(p, i - first, 2);
        putBig(p + 2, counter, 8);
        putBig(p + 10, size, 8);
        descriptor += entry;
        parts[i] = zmq::message_t();
        ++m_framesSealed;
        link->lastSentSinceMark = Clock::now();
    }
    parts.emplace_back(descriptor.constData(), size_t(descriptor.size()));
}

bool SealedPlane::stashFull(const Link& link, size_t frameBytes) const {
    const size_t bytesLimit = 2 * m_maxFrameBytes + (size_t(64) << 20);
    return link.stash.size() >= kMaxStashedFrames || link.stashedBytes + frameBytes > bytesLimit;
}

void SealedPlane::dropOldestStashed(Link& link) {
    link.stashedBytes -= link.stash.begin()->second.frame.size();
    link.stash.erase(link.stash.begin());
    ++m_bulkRefused;
}

void SealedPlane::readBulk() {
    if (!m_bulk) return;
    // Every frame is read: a full stash makes room in its own link (takeBulkFrame), holding up no one.
    for (int read = 0; read < kMaxBulkReadsPerCall; ++read) {
        std::vector<zmq::message_t> parts;  // (a message of more parts than a frame has is read whole and refused)
        for (auto flags = zmq::recv_flags::dontwait;;) {
            zmq::message_t part;
            if (!m_bulk->recv(part, flags)) break;
            const bool more = part.more();
            if (parts.size() < 5) parts.push_back(std::move(part));
            if (!more) break;
        }
        if (parts.empty()) return;
        takeBulkFrame(parts);
    }
}

// A bulk frame, opened as it comes: what does not open under the key of the node it names (a
// stranger's, altered, cut, replayed or reordered) is refused and changes nothing.
void SealedPlane::takeBulkFrame(std::vector<zmq::message_t>& parts) {
    const size_t first = m_router ? 1 : 0;
    QByteArray name;
    // Named under one key, whatever name a frame claims: a stranger's names cannot each buy a line.
    const auto refuse = [&](const char* why) {
        ++m_bulkRefused;
        if (m_rejections)
            m_rejections->reject(QStringLiteral("the sealed bulk port"),
                                 QStringLiteral("a frame that names '%1': %2").arg(QString::fromUtf8(name), QLatin1String(why)));
    };
    if (parts.size() != first + 3 || parts[first].size() != kBulkHeaderBytes || parts[first + 1].size() > kMaxNameBytes)
        return refuse("not a sealed frame (its parts or their sizes)");
    const QByteArray header = bytesOf(parts[first]);
    name = bytesOf(parts[first + 1]);
    const auto* h = reinterpret_cast<const unsigned char*>(header.constData());
    const uint64_t index = getBig(h + 2, 2), counter = getBig(h + 4, 8), size = getBig(h + 12, 8);
    zmq::message_t& payload = parts[first + 2];
    const bool mark = (h[0] == 'h' && m_router) || h[0] == 'e' || h[0] == 'c';
    if (size > m_maxFrameBytes || payload.size() != size + kAeadTagBytes || (h[0] != 'f' && !(mark && size == 0)))
        return refuse("its size or kind is not one this port takes");
    const QByteArray bulkRoute = m_router ? bytesOf(parts[0]) : QByteArray();
    Link* link = bulkLinkFor(QString::fromUtf8(name), bulkRoute, h[0] == 'h', payload, header + name, counter);
    if (!link) return refuse("it does not open under the keys of the node it names (a stranger's, altered, cut, replayed or out of order)");
    link->lastOpened = counter;
    link->lastProgress = Clock::now();
    if (m_router) link->bulkRoute = bulkRoute;  // its newest connection is where it is reached
    if (h[0] == 'e' || h[0] == 'c') {
        // The peer is closing: it has read what it waited for, and will read nothing more here,
        // so our own end mark needs no answer from it (both ends close at once at a run's end).
        link->peerClosing = true;
        m_awaitingEnd.erase(keyOf(link->peer, link->curveRoute));
    }
    if (mark && h[0] != 'c') m_acks.emplace_back(keyOf(link->peer, link->curveRoute), char(h[0]));
    if (mark) return;
    // A full stash gives up its oldest frames (a failed CURVE send's, or a member's sent alone).
    while (!link->stash.empty() && stashFull(*link, payload.size())) dropOldestStashed(*link);
    link->stashedBytes += payload.size();
    link->stash.emplace(counter, Stashed{std::move(payload), index, size, header.mid(20)});
}

// The link a bulk frame from `peer` opens under, opened in place; null when none does. A
// router's frame on a bulk connection it knows is that connection's link's; a hello, or a frame
// on a connection made again, is tried under each link of the peer it names (two while a node
// runs twice at once).
SealedPlane::Link* SealedPlane::bulkLinkFor(const QString& peer, const QByteArray& bulkRoute, bool hello, zmq::message_t& payload,
                                            const QByteArray& aad, uint64_t counter) {
    std::vector<Link*> candidates;
    for (auto& [key, link] : m_links) {
        if (link->peer != peer) continue;
        if (m_router && !hello && !bulkRoute.isEmpty() && link->bulkRoute == bulkRoute) {
            candidates = {link.get()};
            break;
        }
        candidates.push_back(link.get());
    }
    auto* bytes = static_cast<unsigned char*>(payload.data());
    const size_t n = payload.size();
    if (candidates.size() == 1) return candidates[0]->opener->open(counter, aad, bytes, n, bytes).isEmpty() ? candidates[0] : nullptr;
    std::vector<unsigned char> plain(n - kAeadTagBytes);  // (a failed open must leave the frame to the next candidate)
    for (Link* link : candidates)
        if (link->opener->open(counter, aad, bytes, n, plain.data()).isEmpty()) {
            std::copy(plain.begin(), plain.end(), bytes);
            return link;
        }
    return nullptr;
}

std::vector<SealedPlane::Reply> SealedPlane::takeAcknowledgements() {
    std::vector<Reply> out;
    for (const auto& [key, kind] : std::exchange(m_acks, {}))
        if (Link* link = linkOf(key))
            out.push_back({link->peer, link->curveRoute,
                           kind == 'e' ? Message(kReadToEnd) : Message(kReady, {{QStringLiteral("offer"), link->offerId}})});
    return out;
}

// Why descriptor entry `ref` does not fit its message (empty: it fits). Said in full, as a
// refusal is where a defect of the sender's shows.
QString SealedPlane::descriptorMisfit(const std::vector<BulkRef>& before, const BulkRef& ref, const std::vector<zmq::message_t>& parts,
                                      size_t first) const {
    const QString misfit = QStringLiteral("a sealed-frame descriptor that does not fit its message: ");
    if (!before.empty() && (ref.index <= before.back().index || ref.counter <= before.back().counter))
        return misfit + QStringLiteral("part %1 after part %2, or its counter not above").arg(ref.index).arg(before.back().index);
    const size_t payloadParts = parts.size() - first - 1;
    if (ref.index == 0 || ref.index > payloadParts)
        return misfit + QStringLiteral("it names part %1 of a message of %2 payload parts").arg(ref.index).arg(payloadParts);
    if (const size_t inline_ = parts[first + ref.index].size(); inline_ != 0)
        return misfit + QStringLiteral("part %1 came inline as well (%2 bytes)").arg(ref.index).arg(inline_);
    if (ref.size > m_maxFrameBytes)
        return misfit + QStringLiteral("a frame of %1 bytes, over the %2 its channel takes").arg(ref.size).arg(m_maxFrameBytes);
    return {};
}

// What a held message may not be, so that what a member has held here stays bounded: more parts
// or more bytes (inline and sealed) than its channel would deliver, or a sealed frame further
// ahead of the last one opened than a sender can have on its way (the head of a queue waits for
// its frames; one named 2^40 would have waited for ever while the member's frames kept coming).
QString SealedPlane::oversized(const Held& held, const std::vector<zmq::message_t>& parts, const Link* link) const {
    const size_t payloadParts = parts.size() - held.first - 1;
    if (payloadParts > WireLimits{}.maxFrames)
        return QStringLiteral("a sealed message of %1 parts (at most %2)").arg(payloadParts).arg(WireLimits{}.maxFrames);
    size_t bytes = 0;
    for (size_t i = held.first + 1; i < parts.size(); ++i) bytes += parts[i].size();
    for (const BulkRef& ref : held.refs) bytes += ref.size;  // (each at most m_maxFrameBytes: no overflow)
    if (bytes > m_maxFrameBytes)
        return QStringLiteral("a sealed message of %1 bytes, over the %2 its channel takes").arg(bytes).arg(m_maxFrameBytes);
    const uint64_t opened = link && link->lastOpened ? *link->lastOpened : 0;
    if (!held.refs.empty() && held.refs.front().counter > opened + kMaxCounterAhead)
        return QStringLiteral("a sealed frame numbered %1, %2 past the last one opened (at most %3 can be on their way)")
            .arg(held.refs.front().counter)
            .arg(held.refs.front().counter - opened)
            .arg(kMaxCounterAhead);
    return {};
}

QString SealedPlane::arrive(const QString& peer, QByteArray route, std::vector<zmq::message_t>&& parts, size_t first) {
    Held held;
    held.peer = peer;
    const QByteArray key = keyOf(peer, route);
    held.route = std::move(route);
    held.first = first;
    const bool described = parts.size() > first + 1 && parts.back().size() % kEntryBytes == 1 &&
                           static_cast<const char*>(parts.back().data())[0] == kDescriptorMark;
    if (!described) {
        held.refusal = QStringLiteral("a message without its sealed-frame descriptor (a peer that does not seal its links)");
    } else {
        const auto* d = static_cast<const unsigned char*>(parts.back().data()) + 1;
        const size_t entries = parts.back().size() / kEntryBytes;
        parts.pop_back();
        for (size_t e = 0; e < entries && held.refusal.isEmpty(); ++e, d += kEntryBytes) {
            const BulkRef ref{size_t(getBig(d, 2)), getBig(d + 2, 8), getBig(d + 10, 8)};
            held.refusal = descriptorMisfit(held.refs, ref, parts, first);
            held.refs.push_back(ref);
        }
        if (held.refusal.isEmpty()) held.refusal = oversized(held, parts, linkOf(key));
    }
    std::deque<Held>& queue = m_held[key];
    if (queue.size() >= kMaxHeldPerPeer)  // its head waits for a frame: what comes meanwhile is refused, not kept
        return QStringLiteral("more than %1 messages held behind one whose sealed frames have not come").arg(kMaxHeldPerPeer);
    if (held.refusal.isEmpty()) held.parts = std::move(parts);  // (a refused one keeps nothing but its place)
    queue.push_back(std::move(held));
    return {};
}

// The connections' queues in turns, from the one after the last served: one that always has a
// message whole must not starve the others.
std::optional<SealedPlane::Arrived> SealedPlane::next() {
    if (m_held.empty()) return std::nullopt;
    auto it = m_held.upper_bound(m_lastServed);
    for (size_t visited = 0, count = m_held.size(); visited < count; ++visited) {
        if (it == m_held.end()) it = m_held.begin();
        if (it->second.empty()) {
            it = m_held.erase(it);
            continue;
        }
        if (auto a = settle(it->first, it->second)) {
            m_lastServed = it->first;
            return a;
        }
        ++it;
    }
    return std::nullopt;
}

// Why `ref`'s frame is not taken, if it is not: empty while it may still come.
QString SealedPlane::missing(const Link& link, const Held& head, const BulkRef& ref) const {
    if (link.lastOpened && *link.lastOpened > ref.counter)
        return QStringLiteral("a sealed frame that never came (counter %1; later ones did)").arg(ref.counter);
    if (Clock::now() - std::max(head.since, link.lastProgress) > kHoldLimit)
        return QStringLiteral("a sealed frame that did not come within %1 s, and nothing else came from its sender")
            .arg(kHoldLimit.count());
    return {};
}

// The peer's first held message, if it can be decided now.
std::optional<SealedPlane::Arrived> SealedPlane::settle(const QByteArray& key, std::deque<Held>& queue) {
    Held& head = queue.front();
    Arrived out{head.peer, head.route, {}, head.refusal, false};
    const auto done = [&] {
        out.parts = std::move(head.parts);
        queue.pop_front();
        return std::move(out);
    };
    Link* link = linkOf(key);
    // A router without a link for a peer that seals (it offered to this router's previous process)
    // asks it once to offer again; its messages are delivered meanwhile, all inline.
    if (m_router && !link && !m_askedToOffer.contains(key)) {
        m_askedToOffer.insert(key);
        out.resetPeer = true;
    }
    if (!out.refusal.isEmpty() || head.refs.empty()) return done();
    if (!link) {
        out.refusal = QStringLiteral("sealed frames on a link this process never made (it started again since)");
        return done();
    }
    for (const BulkRef& ref : head.refs)
        if (!link->stash.count(ref.counter)) {
            out.refusal = missing(*link, head, ref);
            if (out.refusal.isEmpty()) return std::nullopt;  // still on its way
            return done();
        }
    const QByteArray digest = digestOf(bytesOf(head.parts[head.first]));
    for (const BulkRef& ref : head.refs) {
        auto stashed = link->stash.extract(ref.counter);
        link->stashedBytes -= stashed.mapped().frame.size();
        if (stashed.mapped().index != ref.index || stashed.mapped().size != ref.size || stashed.mapped().digest != digest) {
            out.refusal = QStringLiteral("a sealed frame sealed for another message or part (counter %1)").arg(ref.counter);
            return done();
        }
        ++m_framesOpened;
        auto frame = std::make_shared<zmq::message_t>(std::move(stashed.mapped().frame));
        head.parts[head.first + ref.index] = sharedFrame(frame, frame->data(), size_t(ref.size));  // opened in place: no copy
    }
    // Frames below the last one used were never named by a message: they never will be.
    while (!link->stash.empty() && link->stash.begin()->first < head.refs.back().counter) dropOldestStashed(*link);
    return done();
}

// Whether settle() would decide `head` now.
bool SealedPlane::decided(const QByteArray& key, const Held& head) const {
    if (!head.refusal.isEmpty() || head.refs.empty()) return true;
    const auto link = m_links.find(key);
    if (link == m_links.end()) return true;
    for (const BulkRef& ref : head.refs)
        if (!link->second->stash.count(ref.counter)) return !missing(*link->second, head, ref).isEmpty();
    return true;
}

bool SealedPlane::deliverable() const {
    for (const auto& [key, queue] : m_held)
        if (!queue.empty() && decided(key, queue.front())) return true;
    return false;
}

bool SealedPlane::holding() const {
    for (const auto& [key, queue] : m_held)
        if (!queue.empty()) return true;
    return false;
}

std::chrono::milliseconds SealedPlane::nextCheck() const {
    if (!m_router && m_bulk && !m_links.empty() && !m_links.begin()->second->confirmed)  // (the connection takes a few ms)
        return m_links.begin()->second->helloSent ? kHelloAgain : std::chrono::milliseconds(5);
    return holding() ? std::chrono::milliseconds(1000) : std::chrono::milliseconds(-1);
}

QString SealedPlane::bulkEndpoint() const {
    return m_bulk ? QString::fromStdString(m_bulk->get(zmq::sockopt::last_endpoint)) : QString();
}

bool SealedPlane::linkedTo(const QString& peer) const {
    for (const auto& [key, link] : m_links)
        if (link->peer == peer && (m_router ? !link->bulkRoute.isEmpty() : link->confirmed)) return true;
    return false;
}

void SealedPlane::lingerOnClose(std::chrono::milliseconds ms) {
    if (m_bulk) m_bulk->set(zmq::sockopt::linger, int(ms.count()));
}

}  // namespace hips
