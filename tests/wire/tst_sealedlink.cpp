// Sealed bulk frames (SealedLink.h): link keys that agree and are bound to run and names, nonces
// never reused (across reconnects too), a counter that would wrap refused, frames moved to another
// round, replayed, reordered, flipped or cut refused, and chunks sealed on several threads the same
// bytes as on one, for both ciphers.
#include "SealedLink.h"

#include <QtTest>
#include <random>
#include <set>

using namespace hips;

namespace {

std::vector<unsigned char> bytes(size_t n, unsigned seed) {
    std::vector<unsigned char> v(n);
    std::mt19937 random(seed);
    for (auto& b : v) b = static_cast<unsigned char>(random());
    return v;
}

// Both ends of one link: worker → server keys, as a connect would make them.
std::pair<LinkKeys, LinkKeys> linkEnds(const QByteArray& run = "run-1") {
    const EphemeralKeyPair worker = EphemeralKeyPair::generate(), server = EphemeralKeyPair::generate();
    return {*deriveLinkKeys(true, worker, server.publicKey, run, "party1/worker0", "party1/server0", fastestAead()),
            *deriveLinkKeys(false, server, worker.publicKey, run, "party1/server0", "party1/worker0", fastestAead())};
}

const QList<AeadCipher> kCiphers{AeadCipher::Aes256Gcm, AeadCipher::ChaCha20Poly1305};

}  // namespace

class TestSealedLink : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void keysAgreeAndAreBoundToRunAndNames() {
        const EphemeralKeyPair a = EphemeralKeyPair::generate(), b = EphemeralKeyPair::generate();
        const LinkKeys worker = *deriveLinkKeys(true, a, b.publicKey, "run-1", "party1/worker0", "party1/server0", fastestAead());
        const LinkKeys server = *deriveLinkKeys(false, b, a.publicKey, "run-1", "party1/server0", "party1/worker0", fastestAead());
        QVERIFY(worker.send == server.receive);
        QVERIFY(worker.receive == server.send);
        QVERIFY(worker.send != worker.receive);  // a key serves one direction
        const LinkKeys otherRun = *deriveLinkKeys(true, a, b.publicKey, "run-2", "party1/worker0", "party1/server0", fastestAead());
        QVERIFY(otherRun.send != worker.send);
        const LinkKeys otherName = *deriveLinkKeys(true, a, b.publicKey, "run-1", "party1/worker1", "party1/server0", fastestAead());
        QVERIFY(otherName.send != worker.send);
        const std::array<unsigned char, 32> zero{};  // a weak key: no link
        QVERIFY(!deriveLinkKeys(true, a, zero, "run-1", "party1/worker0", "party1/server0", fastestAead()));
    }

    // Each connect draws fresh ephemeral keys: the same counter never meets the same key twice.
    void noNonceIsReusedAcrossReconnects() {
        const auto plain = bytes(4096, 1);
        std::set<std::vector<unsigned char>> sealedFrames;
        std::set<SessionKey> keys;
        for (int connectAgain = 0; connectAgain < 3; ++connectAgain) {
            const auto [worker, server] = linkEnds();
            QVERIFY(keys.insert(worker.send).second);
            Sealer sealer(worker.send, fastestAead());
            std::set<uint64_t> counters;
            for (int frame = 0; frame < 100; ++frame) {
                std::vector<unsigned char> out(plain.size() + kAeadTagBytes);
                const auto counter = sealer.seal("h", plain.data(), plain.size(), out.data());
                QVERIFY(counter && counters.insert(*counter).second);
                QVERIFY(sealedFrames.insert(out).second);  // the same bytes sealed: never the same frame
            }
        }
    }

    void aCounterThatWouldWrapEndsTheLink() {
        const auto [worker, server] = linkEnds();
        Sealer sealer(worker.send, fastestAead(), std::numeric_limits<uint64_t>::max() - 1);
        unsigned char plain[8] = {}, out[8 + kAeadTagBytes];
        QVERIFY(sealer.seal("h", plain, 8, out));
        QVERIFY(!sealer.seal("h", plain, 8, out));  // the next counter is the last: refused
        Sealer chunks(worker.send, fastestAead(), std::numeric_limits<uint64_t>::max() - 3);
        std::vector<unsigned char> big(10 * 1024), sealed(Sealer::sealedSize(big.size(), 1024));
        QVERIFY(!chunks.sealChunks("h", big.data(), big.size(), 1024, sealed.data(), 2));  // ten counters are not left
    }

    void framesAreRefusedWhenMovedReplayedReorderedFlippedOrCut() {
        for (AeadCipher cipher : kCiphers) {
            const auto [worker, server] = linkEnds();
            Sealer sealer(worker.send, cipher);
            Opener opener(server.receive, cipher);
            const auto plain = bytes(1000, 2);
            std::vector<std::vector<unsigned char>> frames;
            for (int i = 0; i < 4; ++i) {
                frames.emplace_back(plain.size() + kAeadTagBytes);
                QCOMPARE(*sealer.seal("round 3", plain.data(), plain.size(), frames.back().data()), uint64_t(i));
            }
            std::vector<unsigned char> out(plain.size());
            QVERIFY(opener.open(0, "round 4", frames[0].data(), frames[0].size(), out.data()).contains("does not open"));  // moved
            QVERIFY(std::all_of(out.begin(), out.end(), [](unsigned char b) { return b == 0; }));  // and nothing of it seen
            QCOMPARE(opener.open(0, "round 3", frames[0].data(), frames[0].size(), out.data()), QString());
            QVERIFY(out == plain);
            QVERIFY(opener.open(0, "round 3", frames[0].data(), frames[0].size(), out.data()).contains("replayed"));
            QCOMPARE(opener.open(2, "round 3", frames[2].data(), frames[2].size(), out.data()), QString());
            QVERIFY(opener.open(1, "round 3", frames[1].data(), frames[1].size(), out.data()).contains("reordered"));
            auto flipped = frames[3];
            flipped[500] ^= 0x10;
            QVERIFY(opener.open(3, "round 3", flipped.data(), flipped.size(), out.data()).contains("does not open"));
            QVERIFY(opener.open(3, "round 3", frames[3].data(), frames[3].size() - 1, out.data()).contains("does not open"));  // cut
            QCOMPARE(opener.open(3, "round 3", frames[3].data(), frames[3].size(), out.data()), QString());  // the real one still opens
            Opener stranger(linkEnds().second.receive, cipher);  // another link's key
            std::vector<unsigned char> next(plain.size() + kAeadTagBytes);
            const uint64_t c = *sealer.seal("round 3", plain.data(), plain.size(), next.data());
            QVERIFY(stranger.open(c, "round 3", next.data(), next.size(), out.data()).contains("does not open"));
        }
    }

    void chunksSealedOnSeveralThreadsAreTheSameBytes() {
        for (AeadCipher cipher : kCiphers)
            for (size_t n : {size_t(0), size_t(1), size_t(4096), size_t(1000003)}) {
                const auto [worker, server] = linkEnds();
                const auto plain = bytes(n, 3);
                const size_t chunk = 65536;
                std::vector<unsigned char> one(Sealer::sealedSize(n, chunk)), four(one.size());
                Sealer a(worker.send, cipher, 7), b(worker.send, cipher, 7);
                QCOMPARE(*a.sealChunks("push", plain.data(), n, chunk, one.data(), 1), uint64_t(7));
                QCOMPARE(*b.sealChunks("push", plain.data(), n, chunk, four.data(), 4), uint64_t(7));
                QVERIFY(one == four);
                QCOMPARE(a.nextCounter(), uint64_t(7 + std::max<size_t>(1, (n + chunk - 1) / chunk)));
                std::vector<unsigned char> out(n);
                Opener opener(server.receive, cipher);
                QCOMPARE(opener.openChunks(7, "push", one.data(), one.size(), chunk, out.data()), QString());
                QVERIFY(out == plain);
                QVERIFY(opener.openChunks(7, "push", one.data(), one.size(), chunk, out.data()).contains("replayed"));
                if (n > 2 * chunk) {  // two chunks swapped: neither opens where it now is
                    auto swapped = one;
                    std::swap_ranges(swapped.begin(), swapped.begin() + long(chunk + kAeadTagBytes),
                                     swapped.begin() + long(chunk + kAeadTagBytes));
                    Opener fresh(server.receive, cipher);
                    QVERIFY(fresh.openChunks(7, "push", swapped.data(), swapped.size(), chunk, out.data()).contains("does not open"));
                }
            }
    }

    void theFastestCipherIsNamed() { QVERIFY(QByteArray(aeadName(fastestAead())).contains('-')); }

    // A key serves one cipher, and each name reads back as its cipher.
    void keysAreBoundToTheCipher() {
        const EphemeralKeyPair a = EphemeralKeyPair::generate(), b = EphemeralKeyPair::generate();
        const auto keysUnder = [&](AeadCipher c) {
            return deriveLinkKeys(true, a, b.publicKey, "run-1", "party1/worker0", "party1/server0", c)->send;
        };
        QVERIFY(keysUnder(AeadCipher::Aes256Gcm) != keysUnder(AeadCipher::ChaCha20Poly1305));
        for (AeadCipher c : {AeadCipher::Aes256Gcm, AeadCipher::ChaCha20Poly1305}) QCOMPARE(aeadNamed(aeadName(c)), std::optional(c));
        QVERIFY(!aeadNamed(QStringLiteral("XSalsa20")));
        QCOMPARE(agreedAead(AeadCipher::Aes256Gcm, false), AeadCipher::ChaCha20Poly1305);
        QCOMPARE(agreedAead(AeadCipher::ChaCha20Poly1305, true), AeadCipher::ChaCha20Poly1305);
        QCOMPARE(agreedAead(AeadCipher::Aes256Gcm, true), AeadCipher::Aes256Gcm);
    }

    // The chunk count does not wrap for a chunk as large as a size can be (one chunk, one tag).
    void aHugeChunkIsOneChunk() {
        const size_t most = std::numeric_limits<size_t>::max();
        QCOMPARE(Sealer::sealedSize(100, most), size_t(100) + kAeadTagBytes);
        QCOMPARE(Sealer::sealedSize(100, most - 1), size_t(100) + kAeadTagBytes);
        QCOMPARE(Sealer::sealedSize(0, 1024), kAeadTagBytes);
        QCOMPARE(Sealer::sealedSize(2049, 1024), size_t(2049) + 3 * kAeadTagBytes);
    }
};

QTEST_GUILESS_MAIN(TestSealedLink)
#include "tst_sealedlink.moc"
