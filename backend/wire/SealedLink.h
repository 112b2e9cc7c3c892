#pragma once
// Bulk frames sealed with an AEAD at the hardware's speed (issue 51): the pieces a sealed data
// plane is built from, on the wire with `transport_security: sealed` (SealedPlane.h for every
// Channel of a run, SealedBulk.h for a collective party's mesh).
//
// A link's keys: each side of a connection draws an ephemeral X25519 key pair on every connect
// (exchanged over the CURVE channel, so each side knows whose key it holds); libsodium's crypto_kx
// gives the pair of session keys, and each is bound (keyed BLAKE2b) to the run id and the names
// of its sender and its receiver, so a key serves one direction of one link of one run.
// A frame: AES-256-GCM where the CPU has AES-NI and PCLMUL, ChaCha20-Poly1305 elsewhere (both
// OpenSSL's EVP: 2.8 GB/s a core here, against libsodium's 1.3–1.5), with a 96-bit nonce that is
// the direction's counter, never reused: a counter that would wrap ends the link; the receiver
// takes only counters above the last it opened, so a replayed or reordered frame is refused;
// the frame's header (sender, round, version, sizes) is the associated data, so a frame moved to
// another round or sender does not open.
#include <QByteArray>
#include <algorithm>
#include <QString>
#include <array>
#include <cstdint>
#include <optional>

namespace hips {

enum class AeadCipher { Aes256Gcm, ChaCha20Poly1305 };
// AES-256-GCM where the CPU accelerates it, ChaCha20-Poly1305 elsewhere.
AeadCipher fastestAead();
const char* aeadName(AeadCipher c);
std::optional<AeadCipher> aeadNamed(const QString& name);
// The cipher this process offers its links: fastestAead(), unless one was set (a test plays a
// host without AES-NI; the bench measures each).
AeadCipher preferredAead();
void setPreferredAead(std::optional<AeadCipher> c);
// A link's cipher, the same at both ends: AES-256-GCM only where both prefer it. (Each end chose
// alone before: between a host with AES-NI and one without, every frame was sealed with one
// cipher and opened with the other, and the link never came up.)
inline AeadCipher agreedAead(AeadCipher mine, bool peerPrefersAes) {
    return mine == AeadCipher::Aes256Gcm && peerPrefersAes ? AeadCipher::Aes256Gcm : AeadCipher::ChaCha20Poly1305;
}

using SessionKey = std::array<unsigned char, 32>;
inline constexpr size_t kAeadTagBytes = 16;

// Keys are wiped as they go (a later memory dump of the process finds none of a link's past).
struct EphemeralKeyPair {
    std::array<unsigned char, 32> publicKey{}, secretKey{};
    static EphemeralKeyPair generate();
    ~EphemeralKeyPair();
};

struct LinkKeys {
    SessionKey send{}, receive{};
    ~LinkKeys();
};

// The keys of one link from this side's ephemeral pair and the peer's public key. `connecting`:
// this side is the one that connected (crypto_kx's client). Bound to the cipher too: a key never
// serves two. Nullopt when the peer's key is not a valid point (a weak key): the link must not be used.
std::optional<LinkKeys> deriveLinkKeys(bool connecting, const EphemeralKeyPair& mine, const std::array<unsigned char, 32>& peerPublic,
                                       const QByteArray& runId, const QString& self, const QString& peer, AeadCipher cipher);

// One direction's sending end. Not thread-safe: one sender; sealChunks spreads one payload's
// chunks over threads itself.
class Sealer {
public:
    Sealer(const SessionKey& key, AeadCipher cipher, uint64_t firstCounter = 0);
    ~Sealer();
    Sealer(const Sealer&) = delete;
    Sealer& operator=(const Sealer&) = delete;
    // Seals `n` bytes into out (n + kAeadTagBytes), `header` bound as associated data. Returns
    // the counter it used, or nullopt when the counter space is spent (the link must end) or the
    // cipher failed (its counter is spent all the same: `out` may hold bytes sealed under it).
    std::optional<uint64_t> seal(const QByteArray& header, const unsigned char* plain, size_t n, unsigned char* out);
    // The payload cut in chunks of `chunk` bytes, each sealed under its own counter (consecutive,
    // the chunk's index bound with the header), on up to `threads` threads. Out holds each chunk
    // followed by its tag; the same bytes whatever `threads`. Returns the first counter.
    std::optional<uint64_t> sealChunks(const QByteArray& header, const unsigned char* plain, size_t n, size_t chunk, unsigned char* out,
                                       int threads);
    uint64_t nextCounter() const { return m_next; }
    static size_t chunkCount(size_t n, size_t chunk) { return n == 0 ? 1 : n / chunk + (n % chunk != 0); }
    static size_t sealedSize(size_t n, size_t chunk) { return n + chunkCount(n, std::max<size_t>(chunk, 1)) * kAeadTagBytes; }

private:
    SessionKey m_key;
    AeadCipher m_cipher;
    uint64_t m_next;
};

// One direction's receiving end: opens in order only.
class Opener {
public:
    Opener(const SessionKey& key, AeadCipher cipher) : m_key(key), m_cipher(cipher) {}
    ~Opener();
    Opener(const Opener&) = delete;
    Opener& operator=(const Opener&) = delete;
    // Empty when the frame opened into out (n − kAeadTagBytes bytes), else why it was refused:
    // a counter not above the last one opened (replay, reordering), or a tag that does not verify
    // (another key, another header, a flipped bit, a cut frame).
    QString open(uint64_t counter, const QByteArray& header, const unsigned char* sealed, size_t n, unsigned char* out);
    // sealChunks's output, starting at `firstCounter`.
    QString openChunks(uint64_t firstCounter, const QByteArray& header, const unsigned char* sealed, size_t sealedBytes, size_t chunk,
                       unsigned char* out);

private:
    SessionKey m_key;
    AeadCipher m_cipher;
    std::optional<uint64_t> m_last;
};

}  // namespace hips
