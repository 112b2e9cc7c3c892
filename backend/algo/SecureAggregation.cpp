#include "SecureAggregation.h"

#include <sodium.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace hips::secagg {

namespace {

void startSodium() {
    if (sodium_init() < 0) throw std::runtime_error("libsodium cannot start: no secure random source for secure aggregation");
}

// GF(2^8) with AES's polynomial x^8 + x^4 + x^3 + x + 1.
uint8_t gfMul(uint8_t a, uint8_t b) {
    uint8_t p = 0;
    for (; b; b >>= 1) {
        if (b & 1) p ^= a;
        a = uint8_t((a << 1) ^ ((a & 0x80) ? 0x1b : 0));
    }
    return p;
}

uint8_t gfInverse(uint8_t a) {  // a^254 (a ≠ 0)
    uint8_t result = 1;
    for (int bit = 7; bit >= 0; --bit) {
        result = gfMul(result, result);
        if ((254 >> bit) & 1) result = gfMul(result, a);
    }
    return result;
}

}  // namespace

double bound(int parties) {
    return std::ldexp(1.0, 63 - kFractionBits) / double(std::max(parties, 1)) - 1.0;
}

size_t encode(const float* x, size_t n, int parties, quint64* out) {
    const double limit = bound(parties), scale = std::ldexp(1.0, kFractionBits);
    size_t clamped = 0;
    for (size_t i = 0; i < n; ++i) {
        double v = double(x[i]);
        if (!(std::abs(v) <= limit)) {  // (NaN too: as 0)
            ++clamped;
            v = std::isnan(v) ? 0.0 : std::copysign(limit, v);
        }
        out[i] = quint64(qint64(std::llround(v * scale)));
    }
    return clamped;
}

void decode(const quint64* sum, size_t n, double scale, float* out) {
    const double step = kStep * scale;
    for (size_t i = 0; i < n; ++i) out[i] = float(double(qint64(sum[i])) * step);
}

KeyPair KeyPair::generate() {
    startSodium();
    KeyPair k;
    crypto_box_keypair(k.publicKey.data(), k.secretKey.data());
    return k;
}

std::optional<Key> publicKeyOf(const Key& secretKey) {
    Key pk;
    if (crypto_scalarmult_base(pk.data(), secretKey.data()) != 0) return std::nullopt;
    return pk;
}

std::optional<Key> agreeKey(const Key& ownSecret, const Key& ownPublic, const Key& peerPublic) {
    uint8_t shared[crypto_scalarmult_BYTES];
    if (crypto_scalarmult(shared, ownSecret.data(), peerPublic.data()) != 0) return std::nullopt;
    const bool ownFirst = std::memcmp(ownPublic.data(), peerPublic.data(), 32) < 0;
    crypto_generichash_state h;
    crypto_generichash_init(&h, nullptr, 0, 32);
    crypto_generichash_update(&h, shared, sizeof shared);
    crypto_generichash_update(&h, (ownFirst ? ownPublic : peerPublic).data(), 32);
    crypto_generichash_update(&h, (ownFirst ? peerPublic : ownPublic).data(), 32);
    Key key;
    crypto_generichash_final(&h, key.data(), key.size());
    sodium_memzero(shared, sizeof shared);
    return key;
}

void applyMask(quint64* values, size_t offset, size_t n, const Key& key, quint64 round, bool add) {
    if (offset % 8 != 0) throw std::invalid_argument("a mask starts at a multiple of 8 values");
    uint8_t nonce[crypto_stream_chacha20_ietf_NONCEBYTES] = {};
    for (int i = 0; i < 8; ++i) nonce[i] = uint8_t(round >> (8 * i));
    constexpr size_t kChunk = 8192;  // words: 64 KiB of keystream at a time, in cache
    quint64 stream[kChunk];
    for (size_t done = 0; done < n; done += kChunk) {
        const size_t count = std::min(kChunk, n - done);
        std::memset(stream, 0, count * sizeof(quint64));
        crypto_stream_chacha20_ietf_xor_ic(reinterpret_cast<uint8_t*>(stream), reinterpret_cast<const uint8_t*>(stream),
                                           count * sizeof(quint64), nonce, uint32_t((offset + done) / 8), key.data());
        quint64* v = values + done;
        if (add)
            for (size_t i = 0; i < count; ++i) v[i] += stream[i];
        else
            for (size_t i = 0; i < count; ++i) v[i] -= stream[i];
    }
    sodium_memzero(stream, sizeof stream);
}

std::vector<Share> split(const Key& secret, int threshold, int count) {
    if (threshold < 1 || count < threshold || count > 255) throw std::invalid_argument("shares: 1 <= threshold <= count <= 255");
    startSodium();
    std::vector<Share> shares(static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) shares[size_t(i)].x = uint8_t(i + 1);
    std::vector<uint8_t> coefficients(static_cast<size_t>(threshold));
    for (size_t byte = 0; byte < secret.size(); ++byte) {
        coefficients[0] = secret[byte];
        randombytes_buf(coefficients.data() + 1, coefficients.size() - 1);
        for (Share& s : shares) {  // Horner: f(x) = c0 + x (c1 + x (c2 + …))
            uint8_t y = 0;
            for (size_t c = coefficients.size(); c-- > 0;) y = uint8_t(gfMul(y, s.x) ^ coefficients[c]);
            s.y[byte] = y;
        }
    }
    sodium_memzero(coefficients.data(), coefficients.size());
    return shares;
}

std::optional<Key> combine(const std::vector<Share>& shares) {
    if (shares.empty()) return std::nullopt;
    for (size_t i = 0; i < shares.size(); ++i) {
        if (shares[i].x == 0) return std::nullopt;
        for (size_t j = 0; j < i; ++j)
            if (shares[j].x == shares[i].x) return std::nullopt;
    }
    Key secret{};
    for (size_t i = 0; i < shares.size(); ++i) {
        uint8_t numerator = 1, denominator = 1;  // Π x_j / (x_j − x_i) over j ≠ i: the basis at 0
        for (size_t j = 0; j < shares.size(); ++j) {
            if (j == i) continue;
            numerator = gfMul(numerator, shares[j].x);
            denominator = gfMul(denominator, uint8_t(shares[j].x ^ shares[i].x));
        }
        const uint8_t basis = gfMul(numerator, gfInverse(denominator));
        for (size_t b = 0; b < secret.size(); ++b) secret[b] ^= gfMul(shares[i].y[b], basis);
    }
    return secret;
}

std::optional<Key> recoverKey(const std::vector<Share>& shares, int threshold, const Key& publicKey) {
    const auto matches = [&](const std::vector<Share>& some) -> std::optional<Key> {
        const std::optional<Key> secret = combine(some);
        const std::optional<Key> derived = secret ? publicKeyOf(*secret) : std::nullopt;
        return derived && *derived == publicKey ? secret : std::nullopt;
    };
    const int n = int(shares.size());
    if (threshold < 1 || n < threshold) return std::nullopt;
    if (const auto secret = matches(shares)) return secret;
    std::vector<int> pick(static_cast<size_t>(threshold), 0);  // the chosen indexes, ascending: every combination in turn
    for (int i = 0; i < threshold; ++i) pick[size_t(i)] = i;
    std::vector<Share> some(static_cast<size_t>(threshold));
    for (int tries = 0; tries < kMostCombinations; ++tries) {
        for (int i = 0; i < threshold; ++i) some[size_t(i)] = shares[size_t(pick[size_t(i)])];
        if (const auto secret = matches(some)) return secret;
        int i = threshold - 1;  // the next combination: the last index that can move, and those after it
        while (i >= 0 && pick[size_t(i)] == n - threshold + i) --i;
        if (i < 0) return std::nullopt;
        ++pick[size_t(i)];
        for (int j = i + 1; j < threshold; ++j) pick[size_t(j)] = pick[size_t(j - 1)] + 1;
    }
    return std::nullopt;
}

QByteArray seal(const Key& key, const QByteArray& plain) {
    startSodium();
    QByteArray box(qsizetype(crypto_secretbox_NONCEBYTES + crypto_secretbox_MACBYTES) + plain.size(), '\0');
    auto* out = reinterpret_cast<uint8_t*>(box.data());
    randombytes_buf(out, crypto_secretbox_NONCEBYTES);
    crypto_secretbox_easy(out + crypto_secretbox_NONCEBYTES, reinterpret_cast<const uint8_t*>(plain.constData()), size_t(plain.size()), out,
                          key.data());
    return box;
}

std::optional<QByteArray> open(const Key& key, const QByteArray& box) {
    constexpr qsizetype kOverhead = crypto_secretbox_NONCEBYTES + crypto_secretbox_MACBYTES;
    if (box.size() < kOverhead || box.size() > 4096) return std::nullopt;
    QByteArray plain(box.size() - kOverhead, '\0');
    const auto* in = reinterpret_cast<const uint8_t*>(box.constData());
    if (crypto_secretbox_open_easy(reinterpret_cast<uint8_t*>(plain.data()), in + crypto_secretbox_NONCEBYTES,
                                   size_t(box.size()) - crypto_secretbox_NONCEBYTES, in, key.data()) != 0)
        return std::nullopt;
    return plain;
}

std::optional<Key> fromZ85(const QByteArray& z85) {
    static const char kAlphabet[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";
    if (z85.size() != 40) return std::nullopt;
    Key key;
    for (int group = 0; group < 8; ++group) {
        quint64 value = 0;
        for (int c = 0; c < 5; ++c) {
            const char* at = std::strchr(kAlphabet, z85[group * 5 + c]);
            if (!at || !*at) return std::nullopt;
            value = value * 85 + quint64(at - kAlphabet);
        }
        if (value > 0xffffffffu) return std::nullopt;
        for (int b = 0; b < 4; ++b) key[size_t(group * 4 + b)] = uint8_t(value >> (8 * (3 - b)));
    }
    return key;
}

QByteArray bytes(const Key& key) {
    return QByteArray(reinterpret_cast<const char*>(key.data()), qsizetype(key.size()));
}

std::optional<Key> keyFrom(const QByteArray& bytes) {
    if (bytes.size() != 32) return std::nullopt;
    Key key;
    std::memcpy(key.data(), bytes.constData(), 32);
    return key;
}

}  // namespace hips::secagg
