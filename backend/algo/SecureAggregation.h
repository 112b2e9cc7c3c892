#pragma once
// The arithmetic and cryptography of secure aggregation (Bonawitz et al. 2017, "Practical Secure
// Aggregation for Privacy-Preserving Machine Learning"), apart from who sends what (SecureParty.h,
// SecureSum.h):
//   - fixed point in the ring ℤ_2^64: a float x goes up as round(x · 2^32), so the sum of the
//     parties' values is exact and cannot wrap while each |x| ≤ 2^31 / parties;
//   - pairwise masks: parties i and j agree on a key (X25519, then BLAKE2b of the secret and both
//     public keys) and expand it with ChaCha20 (IETF, the round as nonce) into one 64-bit word per
//     value; the one first by id adds the mask, the other subtracts it, so in the sum of all
//     parties every mask cancels exactly;
//   - Shamir's secret sharing over GF(2^8), byte by byte, of a party's mask key, so that the shares
//     of any `threshold` others recover the masks of a party that dropped out;
//   - authenticated boxes (XSalsa20-Poly1305) for the shares, under the key the two parties'
//     CURVE identities agree on, so that the global server that carries them can neither read nor
//     change them.
#include <QByteArray>
#include <QtGlobal>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace hips::secagg {

using Key = std::array<uint8_t, 32>;

inline constexpr int kFractionBits = 32;
inline constexpr double kStep = 1.0 / double(quint64(1) << kFractionBits);  // the fixed point's step
// The largest |x| each of `parties` values may have for their sum not to wrap.
double bound(int parties);
// out[i] = round(x[i] · 2^32) in two's complement, |x| clamped to bound(parties); returns how many
// values were clamped.
size_t encode(const float* x, size_t n, int parties, quint64* out);
// out[i] = (signed) sum[i] · 2^-32 · scale.
void decode(const quint64* sum, size_t n, double scale, float* out);

// A key pair of X25519 (secret, public).
struct KeyPair {
    Key secretKey{}, publicKey{};
    static KeyPair generate();
};
std::optional<Key> publicKeyOf(const Key& secretKey);
// The key two parties share: BLAKE2b(X25519(own, peer) ‖ both public keys, the smaller first).
// None when the peer's key is a low-order point (no shared secret).
std::optional<Key> agreeKey(const Key& ownSecret, const Key& ownPublic, const Key& peerPublic);

// Adds (or subtracts) the mask of `key` in round `round` at values [offset, offset + n) of the
// update, wrapping in ℤ_2^64. `offset` is a multiple of 8 (a ChaCha20 block is 8 words).
void applyMask(quint64* values, size_t offset, size_t n, const Key& key, quint64 round, bool add);

struct Share {
    uint8_t x = 0;  // 1…255: the holder's place
    Key y{};
};
// `count` shares of `secret` (x = 1…count), any `threshold` of which give it back.
std::vector<Share> split(const Key& secret, int threshold, int count);
// The secret from shares of distinct x (Lagrange at 0). Fewer than the threshold give a wrong key:
// check it against the party's public key.
std::optional<Key> combine(const std::vector<Share>& shares);
// The secret key whose public key is `publicKey`, from shares some of which may be wrong (a
// member's lie, a bug) or repeat an x: all of them first, then every `threshold` of them (up to
// kMostCombinations tries). One wrong share stopped a recovery for good when only all were tried.
inline constexpr int kMostCombinations = 4096;
std::optional<Key> recoverKey(const std::vector<Share>& shares, int threshold, const Key& publicKey);

QByteArray seal(const Key& key, const QByteArray& plain);
std::optional<QByteArray> open(const Key& key, const QByteArray& box);

// A Z85 CURVE key (40 characters) as its 32 bytes; none when malformed.
std::optional<Key> fromZ85(const QByteArray& z85);
QByteArray bytes(const Key& key);
std::optional<Key> keyFrom(const QByteArray& bytes);

}  // namespace hips::secagg
