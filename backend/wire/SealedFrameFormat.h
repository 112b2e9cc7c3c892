#pragma once
// The sealed plane's wire format (SealedPlane.h): a bulk frame's header, a message's descriptor of
// the frames that went the bulk way, and the bulk sockets' options.
#include "SealedLink.h"

#include <QByteArray>
#include <QString>
#include <sodium.h>
#include <zmq.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace hips::sealedframe {

// A bulk frame: [header][sender's name][sealed payload]. The header: kind ('h' hello, 'f' frame,
// 'e' end mark, 'c' closing without one), 0, the part's index in its message (u16), the link
// counter (u64), the plain size (u64), the first 16 bytes of the BLAKE2b of its message's CBOR
// header; big-endian. The header and the name are the associated data: a frame opens only as the
// part it was sealed as, of the message it was sealed for, from the node that sealed it.
constexpr size_t kDigestBytes = 16;
constexpr size_t kBulkHeaderBytes = 20 + kDigestBytes;
constexpr size_t kEntryBytes = 18;  // a descriptor entry: index (u16), counter (u64), size (u64)
constexpr char kDescriptorMark = 'D';

inline void putBig(unsigned char* p, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) p[i] = static_cast<unsigned char>(v >> (8 * (bytes - 1 - i)));
}

inline uint64_t getBig(const unsigned char* p, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v = (v << 8) | p[i];
    return v;
}

inline QByteArray digestOf(const QByteArray& messageHeader) {
    QByteArray d(int(kDigestBytes), '\0');
    crypto_generichash(reinterpret_cast<unsigned char*>(d.data()), kDigestBytes,
                       reinterpret_cast<const unsigned char*>(messageHeader.constData()), size_t(messageHeader.size()), nullptr, 0);
    return d;
}

inline QByteArray bulkHeader(char kind, uint64_t index, uint64_t counter, uint64_t size, const QByteArray& digest) {
    QByteArray h(int(kBulkHeaderBytes), '\0');
    auto* p = reinterpret_cast<unsigned char*>(h.data());
    p[0] = static_cast<unsigned char>(kind);
    putBig(p + 2, index, 2);
    putBig(p + 4, counter, 8);
    putBig(p + 12, size, 8);
    std::memcpy(p + 20, digest.constData(), std::min<size_t>(kDigestBytes, size_t(digest.size())));
    return h;
}

// The bulk sockets (plain TCP beside CURVE).
constexpr int kBulkHighWaterMark = 256;  // frames queued on a bulk link before they go inline instead

inline QByteArray bytesOf(const zmq::message_t& m) {
    return QByteArray(static_cast<const char*>(m.data()), qsizetype(m.size()));
}

// The host part of "tcp://host:port" (IPv6 in brackets stays in them).
inline QString hostOf(const QString& endpoint) {
    return endpoint.left(endpoint.lastIndexOf(QLatin1Char(':')));
}

inline void plainSocketOptions(zmq::socket_t& s, const QString& endpoint, size_t maxFrameBytes, int receiveHighWaterMark) {
    s.set(zmq::sockopt::linger, 0);
    s.set(zmq::sockopt::sndhwm, kBulkHighWaterMark);
    s.set(zmq::sockopt::rcvhwm, receiveHighWaterMark);
    s.set(zmq::sockopt::maxmsgsize, int64_t(maxFrameBytes + kAeadTagBytes + 4096));
    if (endpoint.contains(QLatin1Char('['))) s.set(zmq::sockopt::ipv6, 1);
}

}  // namespace hips::sealedframe
