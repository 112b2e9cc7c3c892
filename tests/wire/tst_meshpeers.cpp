// Collectives over the data plane's channels (MeshPeers): ranks in threads, each with a ZeroMQ
// context and ports the kernel chose, CURVE on as in every run. The sum arrives whole; a
// stranger's chunks are never taken; a member that sends the wrong length or nothing is named.
#include "Collective.h"
#include "BulkLogins.h"
#include "MeshPeers.h"
#include "PartySequence.h"

#include <QtTest>
#include <thread>

using namespace hips;
using namespace std::chrono_literals;

namespace {

struct Rank {
    zmq::context_t ctx{1};
    std::unique_ptr<CurveGuard> guard;
    std::unique_ptr<MeshPeers> peers;
    QByteArray publicKey;
};

// n ranks, each bound to a port of the kernel's choosing, each admitting the others' keys.
std::vector<std::unique_ptr<Rank>> party(int n, std::chrono::milliseconds deadline, bool curve = true, size_t chunkLimit = 0) {
    std::vector<CurveKeyPair> keys;
    QList<MeshPeers::Member> members;
    QHash<QByteArray, QString> admitted;
    for (int r = 0; r < n; ++r) {
        keys.push_back(curve ? CurveKeyPair::generate() : CurveKeyPair{});
        members.append({QStringLiteral("party1/worker%1").arg(r), QStringLiteral("tcp://127.0.0.1:0"), keys.back().publicKey});
        if (curve) admitted.insert(keys.back().publicKey, members.back().node);
    }
    std::vector<std::unique_ptr<Rank>> ranks;
    for (int r = 0; r < n; ++r) {
        auto rank = std::make_unique<Rank>();
        if (curve) rank->guard = std::make_unique<CurveGuard>(rank->ctx, admitted, members[r].node);
        rank->peers = std::make_unique<MeshPeers>(rank->ctx, members, r, keys[size_t(r)], deadline, chunkLimit);
        rank->publicKey = keys[size_t(r)].publicKey;
        ranks.push_back(std::move(rank));
    }
    for (auto& a : ranks)
        for (int r = 0; r < n; ++r) a->peers->setEndpoint(r, ranks[size_t(r)]->peers->endpoint());
    return ranks;
}

// Runs body on a thread per rank; their errors, joined (empty when none).
QString onRanks(std::vector<std::unique_ptr<Rank>>& ranks, const std::function<void(int, MeshPeers&)>& body) {
    std::vector<std::thread> threads;
    std::vector<std::string> errors(ranks.size());
    for (size_t r = 0; r < ranks.size(); ++r)
        threads.emplace_back([&, r] {
            try {
                body(int(r), *ranks[r]->peers);
            } catch (const std::exception& e) {
                errors[r] = e.what();
            }
        });
    for (auto& t : threads) t.join();
    QStringList all;  // every rank's error: each names the peer it waited for
    for (const std::string& e : errors)
        if (!e.empty()) all << QString::fromStdString(e);
    return all.join(QLatin1String("; "));
}

std::vector<float> inputOf(int rank, size_t count) {
    std::vector<float> v(count);
    for (size_t i = 0; i < count; ++i) v[i] = float(int((size_t(rank) * 31 + i * 17) % 501) - 250);
    return v;
}

}  // namespace

class TestMeshPeers : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everyCollectiveSumsOverCurve() {
        for (const QString& name : {QStringLiteral("ring"), QStringLiteral("butterfly"), QStringLiteral("binary_blocks")})
            for (int n : {1, 2, 3, 4, 5, 8}) {
                auto ranks = party(n, 10s);
                const auto collective = CollectiveRegistry::create(name, [](const QString&) { return 16.0; });
                const size_t count = 300007;
                std::vector<std::vector<float>> data;
                std::vector<float> sum(count, 0);
                for (int r = 0; r < n; ++r) {
                    data.push_back(inputOf(r, count));
                    for (size_t i = 0; i < count; ++i) sum[i] += data.back()[i];
                }
                const QString error =
                    onRanks(ranks, [&](int r, MeshPeers& p) { collective->allreduce(data[size_t(r)].data(), count, p, 1); });
                QVERIFY2(error.isEmpty(), qPrintable(name + ": " + error));
                for (int r = 0; r < n; ++r)
                    QVERIFY2(data[size_t(r)] == sum, qPrintable(QStringLiteral("%1 n=%2 rank %3").arg(name).arg(n).arg(r)));
                // What each rank sent is what the algorithm's formula says (the floats; headers aside).
                for (int r = 0; r < n; ++r) {
                    quint64 sent = 0;
                    for (int to = 0; to < n; ++to) sent += ranks[size_t(r)]->peers->bytesSentTo(to);
                    QVERIFY(double(sent) <= collective->bytesSentPerRank(count, n) * 1.05);
                }
                for (auto& rank : ranks) QCOMPARE(rank->peers->refused(), quint64(0));
            }
    }

    // A key the party does not know is refused at the handshake: its chunk, under the very tag
    // rank 0 waits for and claiming to be worker 1, never reaches it; the members' sum is untouched.
    void aStrangersChunksAreNeverTaken() {
        auto ranks = party(2, 10s);
        zmq::context_t strangerCtx(1);
        const QList<MeshPeers::Member> members{{QStringLiteral("party1/worker0"), ranks[0]->peers->endpoint(), ranks[0]->publicKey},
                                               {QStringLiteral("party1/worker1"), QStringLiteral("tcp://127.0.0.1:0"), {}}};
        MeshPeers stranger(strangerCtx, members, 1, CurveKeyPair::generate(), 2s);
        const std::vector<float> junk(50, 1e6f);
        stranger.send(0, collectiveTag(3, 0, 0), junk.data(), junk.size());
        QTRY_VERIFY(ranks[0]->guard->refusals() > 0);
        const auto ring = CollectiveRegistry::create(QStringLiteral("ring"));
        std::vector<std::vector<float>> data{inputOf(0, 100), inputOf(1, 100)};
        std::vector<float> sum(100);
        for (size_t i = 0; i < 100; ++i) sum[i] = data[0][i] + data[1][i];
        QVERIFY(onRanks(ranks, [&](int r, MeshPeers& p) { ring->allreduce(data[size_t(r)].data(), 100, p, 3); }).isEmpty());
        QVERIFY(data[0] == sum && data[1] == sum);
    }

    void aWrongLengthIsNamed() {
        auto ranks = party(2, 5s);
        const auto ring = CollectiveRegistry::create(QStringLiteral("ring"));
        std::vector<float> mine(100, 1);
        const QString error = onRanks(ranks, [&](int r, MeshPeers& p) {
            if (r == 0) return ring->allreduce(mine.data(), mine.size(), p, 9);
            const float three[3] = {1, 2, 3};
            p.send(0, collectiveTag(9, 0, 0), three, 3);
        });
        QVERIFY2(error.contains(QLatin1String("party1/worker1 sent 3 floats where 50 were due")), qPrintable(error));
        QCOMPARE(ranks[0]->peers->refused(), quint64(1));
    }

    // transport_security sealed: keys offered over CURVE, chunks sealed on plain sockets; the
    // same sum, the same bits on every rank.
    void everyCollectiveSumsSealed_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("n");
        for (const char* c : {"ring", "butterfly", "binary_blocks"})
            for (int n : {2, 3, 5}) QTest::newRow(qPrintable(QStringLiteral("%1 %2").arg(c).arg(n))) << QString(c) << n;
    }

    void everyCollectiveSumsSealed() {
        QFETCH(QString, name);
        QFETCH(int, n);
        auto ranks = party(n, 10s);
        const auto collective = CollectiveRegistry::create(name, [](const QString&) { return 4.0; });  // 4 KiB chunks: many
        const size_t count = 10000;
        std::vector<std::vector<float>> data;
        std::vector<float> sum(count, 0);
        for (int r = 0; r < n; ++r) {
            data.push_back(inputOf(r, count));
            for (size_t i = 0; i < count; ++i) sum[i] += data.back()[i];
        }
        const QString error = onRanks(ranks, [&](int r, MeshPeers& p) {
            p.sealLinks("test binding");
            collective->allreduce(data[size_t(r)].data(), count, p, 1);
            collective->allreduce(data[size_t(r)].data(), count, p, 2);  // and again: counters go on
        });
        QVERIFY2(error.isEmpty(), qPrintable(error));
        for (int r = 0; r < n; ++r) {
            QVERIFY(ranks[size_t(r)]->peers->sealed());
            QVERIFY(data[size_t(r)] == data[0]);  // the same bits
            QCOMPARE(ranks[size_t(r)]->peers->refused(), quint64(0));
        }
        for (size_t i = 0; i < count; i += 997) QCOMPARE(data[0][i], sum[i] * float(n));
    }

    // The bulk socket takes connections only with a member's login: a stranger without one is
    // refused at the handshake (nothing it sends is read or held). One with a login (a member's,
    // say) reaches it, and its frames (junk, or a header naming another member over a payload it
    // did not seal) are refused and counted; the sum is the members' alone.
    void aStrangersSealedFramesAreRefused() {
        auto ranks = party(2, 10s);
        QVERIFY(onRanks(ranks, [&](int, MeshPeers& p) { p.sealLinks("binding"); }).isEmpty());
        zmq::context_t ctx(1);
        const quint64 curveRefusals = ranks[0]->guard->refusals();
        zmq::socket_t nobody(ctx, zmq::socket_type::push);
        nobody.set(zmq::sockopt::linger, 0);
        bulklogin::logIn(nobody, QStringLiteral("party1/worker1"), "not-a-login");
        nobody.connect(ranks[0]->peers->bulkEndpoint().toStdString());
        (void)nobody.send(zmq::buffer("junk", 4), zmq::send_flags::dontwait);
        QTRY_VERIFY_WITH_TIMEOUT(ranks[0]->guard->refusals() > curveRefusals, 5000);
        zmq::socket_t stranger(ctx, zmq::socket_type::push);
        stranger.set(zmq::sockopt::linger, 2000);
        bulklogin::logIn(stranger, QStringLiteral("party1/worker1"), bulklogin::issue(QStringLiteral("party1/worker1")));
        stranger.connect(ranks[0]->peers->bulkEndpoint().toStdString());
        unsigned char header[SealedBulk::kHeaderBytes] = {0, 0, 0, 1};  // "rank 1", tag 0, counter 0
        std::vector<unsigned char> forged(4 * 50 + kAeadTagBytes, 0x5a);
        stranger.send(zmq::buffer("junk", 4), zmq::send_flags::none);
        stranger.send(zmq::buffer(header, sizeof header), zmq::send_flags::sndmore);
        stranger.send(zmq::buffer(forged), zmq::send_flags::none);
        const auto ring = CollectiveRegistry::create(QStringLiteral("ring"));
        // Each call reads rank 0's bulk socket, where the stranger's frames wait beside rank 1's
        // chunks: a few calls, and both of its frames have been read (and refused).
        for (quint32 call = 1; call <= 50 && ranks[0]->peers->refused() < 2; ++call) {
            std::vector<std::vector<float>> data{std::vector<float>(100, 1), std::vector<float>(100, 2)};
            const QString error = onRanks(ranks, [&](int r, MeshPeers& p) { ring->allreduce(data[size_t(r)].data(), 100, p, call); });
            QVERIFY2(error.isEmpty(), qPrintable(error));
            QVERIFY(data[0] == std::vector<float>(100, 3) && data[1] == data[0]);  // the members' sum alone
        }
        QCOMPARE(ranks[0]->peers->refused(), quint64(2));
    }

    // A member's offer of an endpoint ZeroMQ cannot connect to is refused, not thrown on (the
    // throw ended the worker that took it); the same key at a real endpoint links.
    void anOfferOfABadEndpointIsRefused() {
        zmq::context_t ctx(1);
        const QList<QString> names{QStringLiteral("party1/worker0"), QStringLiteral("party1/worker1")};
        SealedBulk mine(ctx, 0, names, QStringLiteral("tcp://127.0.0.1"), "binding");
        SealedBulk theirs(ctx, 1, names, QStringLiteral("tcp://127.0.0.1"), "binding");
        QVERIFY(!mine.accept(1, theirs.publicKey(), QStringLiteral("tcp://x"), theirs.loginFor(0), theirs.prefersAes()));
        QVERIFY(!mine.linked(1));
        QVERIFY(mine.accept(1, theirs.publicKey(), theirs.endpoint(), theirs.loginFor(0), theirs.prefersAes()));
    }

    // Two members whose CPUs differ (one without AES-NI seals with ChaCha20-Poly1305) agree on one
    // cipher for their link: each chose alone before, and no chunk between them ever opened.
    void membersOfDifferentCiphersAgreeOnOne() {
        auto ranks = party(2, 60s);  // (their ZAP handlers check the bulk logins)
        const QList<QString> names{QStringLiteral("party1/worker0"), QStringLiteral("party1/worker1")};
        setPreferredAead(AeadCipher::ChaCha20Poly1305);
        SealedBulk withoutAes(ranks[1]->ctx, 1, names, QStringLiteral("tcp://127.0.0.1"), "binding");
        setPreferredAead(std::nullopt);
        SealedBulk fast(ranks[0]->ctx, 0, names, QStringLiteral("tcp://127.0.0.1"), "binding");
        QVERIFY(!withoutAes.prefersAes());
        QVERIFY(fast.accept(1, withoutAes.publicKey(), withoutAes.endpoint(), withoutAes.loginFor(0), withoutAes.prefersAes()));
        QVERIFY(withoutAes.accept(0, fast.publicKey(), fast.endpoint(), fast.loginFor(1), fast.prefersAes()));
        const std::vector<float> chunk = inputOf(0, 4096);
        QVERIFY(fast.send(1, 7, chunk.data(), chunk.size() * sizeof(float)));
        std::optional<SealedBulk::Frame> got;
        for (QDeadlineTimer deadline(10000); !got && !deadline.hasExpired(); got = withoutAes.receive()) {
            zmq::pollitem_t in{withoutAes.receiveSocket().handle(), 0, ZMQ_POLLIN, 0};
            zmq::poll(&in, 1, std::chrono::milliseconds(100));
        }
        QVERIFY(got);
        QCOMPARE(got->from, 0);
        QCOMPARE(got->plain.size(), chunk.size() * sizeof(float));
        QVERIFY(std::memcmp(got->plain.data(), chunk.data(), got->plain.size()) == 0);
        QCOMPARE(withoutAes.refused(), quint64(0));
    }

    // A chunk over the limit is refused by the channel, unread: the rank waiting for it says whose
    // at once, not at the deadline.
    void anOversizedChunkIsNamedAtOnce() {
        auto ranks = party(2, 60s, true, 50 * sizeof(float));
        const auto ring = CollectiveRegistry::create(QStringLiteral("ring"));
        std::vector<float> mine(100, 1), big(1000, 2);
        QElapsedTimer clock;
        clock.start();
        const QString error = onRanks(ranks, [&](int r, MeshPeers& p) {
            if (r == 0) return ring->allreduce(mine.data(), mine.size(), p, 9);
            p.send(0, collectiveTag(9, 0, 0), big.data(), big.size());
        });
        QVERIFY2(error.contains(QLatin1String("party1/worker1 sent party1/worker0 a message it refused")), qPrintable(error));
        QVERIFY2(clock.elapsed() < 30000, "named at the deadline, not at once");
    }

    // A member that sends more ahead of its turn than the bytes a member may have waiting
    // (setStashLimit) is refused and named at once: it could otherwise make a rank hold up to
    // kMaxStashed chunks of the largest size.
    void aMemberThatSendsTooMuchAheadIsNamedAtOnce() {
        auto ranks = party(2, 60s);
        constexpr size_t kFloats = 256;  // 1 KiB a chunk, 8 KiB allowed ahead
        ranks[0]->peers->setStashLimit(8 * kFloats * sizeof(float));
        QElapsedTimer clock;
        clock.start();
        const QString error = onRanks(ranks, [&](int r, MeshPeers& p) {
            std::vector<float> chunk = inputOf(r, kFloats);
            if (r == 0) return p.receive(1, 999, chunk.data(), kFloats, false);
            for (int k = 0; k < 64; ++k) p.send(0, quint64(k), chunk.data(), kFloats);  // none of them due
            p.send(0, 999, chunk.data(), kFloats);
        });
        QVERIFY2(error.contains(QLatin1String("party1/worker1 sent party1/worker0 a message it refused")), qPrintable(error));
        QVERIFY2(clock.elapsed() < 30000, "named at the deadline, not at once");
    }

    // A large model in small chunks is more chunks ahead than kMaxStashed: a member's stash limit
    // in chunks follows its bytes (an honest call ahead was refused at 16,384 chunks).
    void aLargeCallInSmallChunksIsTaken() {
        auto ranks = party(2, 60s);
        constexpr int kAhead = int(MeshPeers::kMaxStashed) + 1000;
        ranks[0]->peers->setStashLimit(size_t(kAhead + 1) * sizeof(float), size_t(kAhead + 1));
        const QString error = onRanks(ranks, [&](int r, MeshPeers& p) {
            float value = 1;
            if (r == 0) {
                p.receive(1, quint64(kAhead), &value, 1, false);  // the last sent: every chunk before it waits here
                for (int k = 0; k < kAhead; ++k) p.receive(1, quint64(k), &value, 1, false);
                return;
            }
            for (int k = 0; k <= kAhead; ++k) p.send(0, quint64(k), &value, 1);
        });
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(ranks[0]->peers->refused(), quint64(0));
    }

    // One member's flood of tiny chunks ahead of their turn fills only its own share of the stash:
    // the next honest member's chunk is taken, not refused with that member named.
    void aMembersFloodLeavesTheOthersRoom() {
        auto ranks = party(3, 60s);
        ranks[0]->peers->setStashLimit(1 << 20);
        const QString error = onRanks(ranks, [&](int r, MeshPeers& p) {
            std::vector<float> one{1.0f};
            if (r == 2) {
                for (size_t k = 0; k + 1 < MeshPeers::kMaxStashed; ++k) p.send(0, 100000 + k, one.data(), 1);  // none of them due
                return p.send(0, 7, one.data(), 1);  // (after the flood on the same link: here, all of it is)
            }
            if (r == 1) return p.send(0, 8, one.data(), 1);
            p.receive(2, 7, one.data(), 1, false);
            p.receive(1, 8, one.data(), 1, false);
        });
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    // What is taken leaves its sender's share: 64 chunks in turn pass a limit of two.
    void chunksTakenInTurnStayWithinTheStashLimit() {
        auto ranks = party(2, 10s);
        constexpr size_t kFloats = 256;
        ranks[0]->peers->setStashLimit(2 * kFloats * sizeof(float));
        const QString error = onRanks(ranks, [&](int r, MeshPeers& p) {
            std::vector<float> chunk = inputOf(1, kFloats), ack(1);
            for (int k = 0; k < 64; ++k) {
                if (r == 1) {
                    p.send(0, quint64(k), chunk.data(), kFloats);
                    p.receive(0, quint64(k), ack.data(), 1, false);
                    continue;
                }
                std::vector<float> got(kFloats);
                p.receive(1, quint64(k), got.data(), kFloats, false);
                if (got != chunk) throw std::runtime_error("chunk " + std::to_string(k) + " is not what was sent");
                p.send(1, quint64(k), ack.data(), 1);
            }
        });
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(ranks[0]->peers->refused(), quint64(0));
    }

    // A collective party's sequences start over after kRoundsInSequence rounds instead of running
    // into the new pushing worker's (kAgreeSequence) and out of the tag's 24 bits (at round
    // 699,050 they did), and the stash's clean-up still drops only earlier rounds' chunks across
    // the turn. An attempt's epoch (members lost) never aliases another's (eight losses did).
    void roundSequencesStartOverBelowTheAgreeSequence() {
        using namespace party_sequence;
        const qint64 last = kRoundsInSequence - 1;
        QVERIFY(sequenceOf(last, kWeights, kEpochs - 1) < kAgreeSequence);
        QSet<quint32> attempts;
        for (size_t epoch = 0; epoch < size_t(kMaxDeployedNodes); ++epoch) attempts.insert(sequenceOf(77, kSum, epoch));
        QCOMPARE(attempts.size(), qsizetype(kMaxDeployedNodes));
        QCOMPARE(sequenceOf(kRoundsInSequence + 5, kSum, 2), sequenceOf(5, kSum, 2));
        QVERIFY(sequenceOf(1000000, kModel) < kAgreeSequence);
        const auto tagOf = [](qint64 round, int exchange) { return collectiveTag(sequenceOf(round, exchange), 3, 7); };
        QVERIFY(ofAnEarlierRound(tagOf(9, kSum), 10));
        QVERIFY(!ofAnEarlierRound(tagOf(10, kModel), 10));
        QVERIFY(!ofAnEarlierRound(tagOf(11, kSum), 10));  // a member an attempt ahead
        QVERIFY(ofAnEarlierRound(tagOf(last, kSum), kRoundsInSequence));  // across the turn
        QVERIFY(!ofAnEarlierRound(tagOf(kRoundsInSequence + 1, kSum), last));
        QVERIFY(!ofAnEarlierRound(collectiveTag(kAgreeSequence, 2, 0), 123456));
        // As an attempt begins, what nobody takes up again goes: this round's at an earlier epoch,
        // and a new pushing worker's model of an agreement done (kept, they filled the stash).
        const auto attemptTag = [](qint64 round, size_t epoch) { return collectiveTag(sequenceOf(round, kSum, epoch), 3, 7); };
        QVERIFY(ofAnAbandonedAttempt(attemptTag(10, 0), 10, 1, 2));
        QVERIFY(!ofAnAbandonedAttempt(attemptTag(10, 1), 10, 1, 2));
        QVERIFY(!ofAnAbandonedAttempt(attemptTag(10, 2), 10, 1, 2));  // a member an attempt ahead
        QVERIFY(ofAnAbandonedAttempt(attemptTag(9, 1), 10, 1, 2));
        QVERIFY(!ofAnAbandonedAttempt(attemptTag(11, 0), 10, 1, 2));
        // The round's model goes out tagged at epoch 0 whoever sends it: never dropped (its
        // chunks, come while a member summed, were, and it waited for them until the deadline).
        QVERIFY(!ofAnAbandonedAttempt(collectiveTag(sequenceOf(10, kModel), 0, 0), 10, 2, 3));
        QVERIFY(ofAnAbandonedAttempt(collectiveTag(sequenceOf(9, kModel), 0, 0), 10, 2, 3));
        QVERIFY(ofAnAbandonedAttempt(collectiveTag(kAgreeSequence, 1, 0), 10, 2, 2));
        QVERIFY(!ofAnAbandonedAttempt(collectiveTag(kAgreeSequence, 2, 0), 10, 2, 2));  // the agreement pending
        QVERIFY(!ofAnAbandonedAttempt(collectiveTag(kAgreeSequence, 3, 0), 10, 2, 2));  // one a member saw first
    }

    void aTagWithItsTopBitSetIsTaken_data() {
        QTest::addColumn<bool>("sealed");
        QTest::newRow("curve") << false;
        QTest::newRow("sealed") << true;
    }

    // A new pushing worker's model goes down under the top sequence (PartyCollective's agreeing
    // again): its tags have the top bit set. Over CURVE they travel as negative integers, and were
    // refused as malformed: every other member waited out its deadline.
    void aTagWithItsTopBitSetIsTaken() {
        QFETCH(bool, sealed);
        auto ranks = party(2, 3s);
        const quint64 tag = collectiveTag(0xffffffu, 2, 7);
        QVERIFY(tag >> 63);
        std::vector<float> sent = inputOf(0, 100), got(100, 0);
        const QString error = onRanks(ranks, [&](int r, MeshPeers& p) {
            if (sealed) p.sealLinks("test binding");
            if (r == 0) p.send(1, tag, sent.data(), sent.size());
            else p.receive(0, tag, got.data(), got.size(), false);
        });
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(got == sent);
        QCOMPARE(ranks[1]->peers->refused(), quint64(0));
    }

    void aStepLargerThanTheQueuesIsNoDeadlock_data() { aTagWithItsTopBitSetIsTaken_data(); }

    // Every collective sends a whole step before it receives. Two ranks that each send the other
    // more than the queues and the kernel hold (15,000 chunks of 1 KiB) waited for room, neither
    // reading, until the deadline; a rank waiting for room now reads what comes meanwhile.
    void aStepLargerThanTheQueuesIsNoDeadlock() {
        QFETCH(bool, sealed);
        auto ranks = party(2, 5s);
        constexpr int kChunks = 15000;
        constexpr size_t kFloats = 256;
        const QString error = onRanks(ranks, [&](int r, MeshPeers& p) {
            if (sealed) p.sealLinks("test binding");
            const std::vector<float> own = inputOf(r, kFloats);
            for (int k = 0; k < kChunks; ++k) p.send(1 - r, quint64(k), own.data(), kFloats);
            std::vector<float> got(kFloats);
            const std::vector<float> theirs = inputOf(1 - r, kFloats);
            for (int k = 0; k < kChunks; ++k) {
                p.receive(1 - r, quint64(k), got.data(), kFloats, false);
                if (got != theirs) throw std::runtime_error("chunk " + std::to_string(k) + " is not what was sent");
            }
        });
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    // A stop shuts a worker's ZeroMQ context down (a shared trainer's worker thread): a mesh
    // closed after that has nothing to let leave, and its destructor must not throw. It did
    // (setting the linger said ETERM), which ended the whole shared trainer in std::terminate.
    void aMeshClosedAfterItsContextWasShutDownClosesQuietly() {
        auto ranks = party(2, 2s);
        std::vector<float> chunk = inputOf(0, 16);
        ranks[0]->peers->send(1, 1, chunk.data(), chunk.size());
        ranks[0]->ctx.shutdown();
        bool ended = false;
        try {
            for (int k = 2; k < 100000; ++k) ranks[0]->peers->send(1, quint64(k), chunk.data(), chunk.size());
        } catch (const std::exception&) {
            ended = true;  // (the stop, as a role sees it)
        }
        QVERIFY(ended);
        ranks[0]->peers.reset();
    }

    void aSilentMemberIsNamedAtTheDeadline() {
        auto ranks = party(3, 400ms);
        const auto butterfly = CollectiveRegistry::create(QStringLiteral("butterfly"));
        std::vector<std::vector<float>> data{inputOf(0, 64), inputOf(1, 64), inputOf(2, 64)};
        const QString error = onRanks(ranks, [&](int r, MeshPeers& p) {
            if (r != 2) butterfly->allreduce(data[size_t(r)].data(), 64, p, 1);
        });
        QVERIFY2(error.contains(QLatin1String("party1/worker2 sent nothing to party1/worker1 within the deadline")), qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(TestMeshPeers)
#include "tst_meshpeers.moc"
