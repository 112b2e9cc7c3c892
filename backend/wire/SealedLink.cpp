#include "SealedLink.h"

#include <openssl/evp.h>
#include <sodium.h>

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <system_error>
#include <limits>
#include <memory>
#include <thread>
#include <vector>

namespace hips {

namespace {

constexpr uint64_t kLastCounter = std::numeric_limits<uint64_t>::max();  // never used: the link ends first

struct CipherContext {
    EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
    ~CipherContext() { EVP_CIPHER_CTX_free(ctx); }
};

const EVP_CIPHER* evpOf(AeadCipher c) {
    return c == AeadCipher::Aes256Gcm ? EVP_aes_256_gcm() : EVP_chacha20_poly1305();
}

std::array<unsigned char, 12> nonceOf(uint64_t counter) {
    std::array<unsigned char, 12> nonce{};
    for (int i = 0; i < 8; ++i) nonce[size_t(11 - i)] = static_cast<unsigned char>(counter >> (8 * i));
    return nonce;
}

// The associated data of chunk `index` of `count` (a whole seal: no chunk fields).
QByteArray associated(const QByteArray& header, std::optional<std::pair<uint64_t, uint64_t>> chunk) {
    QByteArray aad = header;
    if (chunk)
        for (uint64_t v : {chunk->first, chunk->second})
            for (int i = 7; i >= 0; --i) aad.append(char(v >> (8 * i)));
    return aad;
}

bool sealOne(CipherContext& c, AeadCipher cipher, const SessionKey& key, uint64_t counter, const QByteArray& aad, const unsigned char* in,
             size_t n, unsigned char* out) {
    const auto nonce = nonceOf(counter);
    int length = 0;
    bool ok = EVP_EncryptInit_ex(c.ctx, evpOf(cipher), nullptr, key.data(), nonce.data()) == 1 &&
              EVP_EncryptUpdate(c.ctx, nullptr, &length, reinterpret_cast<const unsigned char*>(aad.constData()), int(aad.size())) == 1;
    for (size_t done = 0; ok && done < n;) {  // (EVP takes an int length)
        const int piece = int(std::min<size_t>(n - done, size_t(1) << 30));
        ok = EVP_EncryptUpdate(c.ctx, out + done, &length, in + done, piece) == 1;
        done += size_t(piece);
    }
    return ok && EVP_EncryptFinal_ex(c.ctx, out + n, &length) == 1 &&
           EVP_CIPHER_CTX_ctrl(c.ctx, EVP_CTRL_AEAD_GET_TAG, int(kAeadTagBytes), out + n) == 1;
}

bool openOne(CipherContext& c, AeadCipher cipher, const SessionKey& key, uint64_t counter, const QByteArray& aad, const unsigned char* in,
             size_t n, unsigned char* out) {
    if (n < kAeadTagBytes) return false;
    const size_t plain = n - kAeadTagBytes;
    const auto nonce = nonceOf(counter);
    int length = 0;
    bool ok = EVP_DecryptInit_ex(c.ctx, evpOf(cipher), nullptr, key.data(), nonce.data()) == 1 &&
              EVP_DecryptUpdate(c.ctx, nullptr, &length, reinterpret_cast<const unsigned char*>(aad.constData()), int(aad.size())) == 1;
    for (size_t done = 0; ok && done < plain;) {
        const int piece = int(std::min<size_t>(plain - done, size_t(1) << 30));
        ok = EVP_DecryptUpdate(c.ctx, out + done, &length, in + done, piece) == 1;
        done += size_t(piece);
    }
    ok = ok && EVP_CIPHER_CTX_ctrl(c.ctx, EVP_CTRL_AEAD_SET_TAG, int(kAeadTagBytes), const_cast<unsigned char*>(in + plain)) == 1 &&
         EVP_DecryptFinal_ex(c.ctx, out + plain, &length) == 1;
    if (!ok) sodium_memzero(out, plain);  // nothing of a frame that did not open is ever seen
    return ok;
}

}  // namespace

AeadCipher fastestAead() {
    static const AeadCipher c = [] {
        if (sodium_init() < 0) return AeadCipher::ChaCha20Poly1305;
        return crypto_aead_aes256gcm_is_available() ? AeadCipher::Aes256Gcm : AeadCipher::ChaCha20Poly1305;
    }();
    return c;
}

const char* aeadName(AeadCipher c) {
    return c == AeadCipher::Aes256Gcm ? "AES-256-GCM" : "ChaCha20-Poly1305";
}

std::optional<AeadCipher> aeadNamed(const QString& name) {
    for (AeadCipher c : {AeadCipher::Aes256Gcm, AeadCipher::ChaCha20Poly1305})
        if (name == QLatin1String(aeadName(c))) return c;
    return std::nullopt;
}

namespace {
std::atomic<int> preferred{-1};  // -1: fastestAead()
}

AeadCipher preferredAead() {
    const int p = preferred.load();
    return p < 0 ? fastestAead() : AeadCipher(p);
}

void setPreferredAead(std::optional<AeadCipher> c) {
    preferred = c ? int(*c) : -1;
}

EphemeralKeyPair::~EphemeralKeyPair() {
    sodium_memzero(secretKey.data(), secretKey.size());
}

LinkKeys::~LinkKeys() {
    sodium_memzero(send.data(), send.size());
    sodium_memzero(receive.data(), receive.size());
}

EphemeralKeyPair EphemeralKeyPair::generate() {
    EphemeralKeyPair k;
    if (sodium_init() < 0) throw std::runtime_error("libsodium cannot start");
    crypto_kx_keypair(k.publicKey.data(), k.secretKey.data());
    return k;
}

std::optional<LinkKeys> deriveLinkKeys(bool connecting, const EphemeralKeyPair& mine, const std::array<unsigned char, 32>& peerPublic,
                                       const QByteArray& runId, const QString& self, const QString& peer, AeadCipher cipher) {
    SessionKey rx{}, tx{};
    const int kx =
        connecting ? crypto_kx_client_session_keys(rx.data(), tx.data(), mine.publicKey.data(), mine.secretKey.data(), peerPublic.data())
                   : crypto_kx_server_session_keys(rx.data(), tx.data(), mine.publicKey.data(), mine.secretKey.data(), peerPublic.data());
    if (kx != 0) return std::nullopt;
    // Each direction's key, bound to the run and to who sends to whom.
    const auto bind = [&](const SessionKey& raw, const QString& from, const QString& to) {
        const QByteArray context =
            QByteArray("hips-sealed-link-v2\n") + aeadName(cipher) + '\n' + runId + '\n' + from.toUtf8() + '\n' + to.toUtf8();
        SessionKey bound{};
        crypto_generichash(bound.data(), bound.size(), reinterpret_cast<const unsigned char*>(context.constData()), size_t(context.size()),
                           raw.data(), raw.size());
        return bound;
    };
    LinkKeys keys{bind(tx, self, peer), bind(rx, peer, self)};
    sodium_memzero(rx.data(), rx.size());
    sodium_memzero(tx.data(), tx.size());
    return keys;
}

Sealer::Sealer(const SessionKey& key, AeadCipher cipher, uint64_t firstCounter) : m_key(key), m_cipher(cipher), m_next(firstCounter) {}

Sealer::~Sealer() {
    sodium_memzero(m_key.data(), m_key.size());
}

Opener::~Opener() {
    sodium_memzero(m_key.data(), m_key.size());
}

std::optional<uint64_t> Sealer::seal(const QByteArray& header, const unsigned char* plain, size_t n, unsigned char* out) {
    if (m_next == kLastCounter) return std::nullopt;
    const uint64_t counter = m_next++;  // (spent before sealing: a failed seal may have used it)
    CipherContext c;
    if (!sealOne(c, m_cipher, m_key, counter, associated(header, std::nullopt), plain, n, out)) return std::nullopt;
    return counter;
}

std::optional<uint64_t> Sealer::sealChunks(const QByteArray& header, const unsigned char* plain, size_t n, size_t chunk, unsigned char* out,
                                           int threads) {
    chunk = std::max<size_t>(chunk, 1);
    const uint64_t count = chunkCount(n, chunk);
    if (kLastCounter - m_next <= count) return std::nullopt;  // the counters would reach the end
    const uint64_t first = m_next;
    m_next += count;  // (spent before sealing, as seal() does)
    std::atomic<bool> failed{false};
    const auto sealRange = [&](uint64_t from, uint64_t to) {
        CipherContext c;
        for (uint64_t i = from; i < to && !failed; ++i) {
            const size_t begin = size_t(i) * chunk, length = std::min(chunk, n - std::min(n, begin));
            if (!sealOne(c, m_cipher, m_key, first + i, associated(header, std::pair{i, count}), plain + begin, length,
                         out + begin + size_t(i) * kAeadTagBytes))
                failed = true;
        }
    };
    const uint64_t workers = std::clamp<uint64_t>(uint64_t(std::max(threads, 1)), 1, count);
    std::vector<std::thread> pool;
    for (uint64_t w = 1; w < workers; ++w) {
        try {
            pool.emplace_back(sealRange, count * w / workers, count * (w + 1) / workers);
        } catch (const std::system_error&) {  // no thread to be had: this one seals that part too
            sealRange(count * w / workers, count * (w + 1) / workers);
        }
    }
    sealRange(0, count / workers);
    for (auto& t : pool) t.join();
    if (failed) return std::nullopt;
    return first;
}

QString Opener::open(uint64_t counter, const QByteArray& header, const unsigned char* sealed, size_t n, unsigned char* out) {
    if (m_last && counter <= *m_last)
        return QStringLiteral("a frame under counter %1, not above the last one opened (%2): replayed or reordered")
            .arg(counter)
            .arg(*m_last);
    CipherContext c;
    if (!openOne(c, m_cipher, m_key, counter, associated(header, std::nullopt), sealed, n, out))
        return QStringLiteral("a frame that does not open (another key or header, or altered or cut on the way)");
    m_last = counter;
    return {};
}

QString Opener::openChunks(uint64_t firstCounter, const QByteArray& header, const unsigned char* sealed, size_t sealedBytes, size_t chunk,
                           unsigned char* out) {
    chunk = std::clamp<size_t>(chunk, 1, std::numeric_limits<size_t>::max() - kAeadTagBytes);
    // Chunks of `chunk` bytes each followed by its tag; the last one may be shorter.
    const uint64_t count = sealedBytes <= kAeadTagBytes ? 1 : Sealer::chunkCount(sealedBytes, chunk + kAeadTagBytes);
    if (sealedBytes < count * kAeadTagBytes) return QStringLiteral("a sealed payload shorter than its tags: cut on the way");
    if (m_last && firstCounter <= *m_last)
        return QStringLiteral("a frame under counter %1, not above the last one opened (%2): replayed or reordered")
            .arg(firstCounter)
            .arg(*m_last);
    if (kLastCounter - firstCounter <= count) return QStringLiteral("a frame whose counters would wrap");
    CipherContext c;
    for (uint64_t i = 0; i < count; ++i) {
        const size_t at = size_t(i) * (chunk + kAeadTagBytes), length = std::min(chunk + kAeadTagBytes, sealedBytes - at);
        if (!openOne(c, m_cipher, m_key, firstCounter + i, associated(header, std::pair{i, count}), sealed + at, length,
                     out + size_t(i) * chunk)) {
            sodium_memzero(out, size_t(i) * chunk);  // the chunks before it are not taken either
            return QStringLiteral("chunk %1 of %2 does not open (another key or header, or altered or cut on the way)").arg(i).arg(count);
        }
    }
    m_last = firstCounter + count - 1;
    return {};
}

}  // namespace hips
