// A sealed Channel (`transport_security: sealed`, SealedPlane.h): large frames travel sealed on a
// plain socket beside CURVE and come out bit for bit, in each peer's order; what a stranger sends
// to the bulk port is refused and counted while the link goes on; a router that started again
// asks its dealer for a new link, and the frames after it are sealed again.
#include "BulkLogins.h"
#include "Channel.h"

#include <QRandomGenerator>
#include <QtTest>
#include <thread>
#include <atomic>

using namespace hips;
using namespace std::chrono_literals;

namespace {

const QString kServer = QStringLiteral("partyA/server0");
const QString kWorker = QStringLiteral("partyA/worker0");
const QString kOther = QStringLiteral("partyA/worker1");
const QByteArray kBinding = "run-binding";

zmq::message_t randomFrame(size_t bytes, quint32 seed) {
    zmq::message_t m(bytes);
    QRandomGenerator random(seed);
    auto* p = static_cast<unsigned char*>(m.data());
    for (size_t i = 0; i < bytes; ++i) p[i] = static_cast<unsigned char>(random.generate());
    return m;
}

bool sameBytes(const zmq::message_t& a, const zmq::message_t& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size()) == 0;
}

Message withFrames(const QString& type, std::initializer_list<std::pair<size_t, quint32>> frames) {
    Message m(type);
    for (const auto& [bytes, seed] : frames) m.frames.push_back(randomFrame(bytes, seed));
    return m;
}

// The first message that gets through within `limit` (control messages and refusals pass by).
std::optional<Envelope> receiveWithin(Channel& c, std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline)
        if (auto e = c.receive(100ms)) return e;
    return std::nullopt;
}

struct Run {
    zmq::context_t ctx{1};
    CurveKeyPair serverKeys = CurveKeyPair::generate(), workerKeys = CurveKeyPair::generate(), otherKeys = CurveKeyPair::generate();
    std::unique_ptr<CurveGuard> guard;
    Run() {
        guard = std::make_unique<CurveGuard>(
            ctx, QHash<QByteArray, QString>{{workerKeys.publicKey, kWorker}, {otherKeys.publicKey, kOther}}, "test");
    }
    Channel server(const QString& endpoint = QStringLiteral("tcp://127.0.0.1:*")) {
        return Channel::router(ctx, kServer, endpoint, CurveConfig{serverKeys, {}, kBinding});
    }
    Channel worker(const QString& endpoint) {
        return Channel::dealer(ctx, kWorker, endpoint, kServer, CurveConfig{workerKeys, serverKeys.publicKey, kBinding});
    }
    Channel other(const QString& endpoint) {
        return Channel::dealer(ctx, kOther, endpoint, kServer, CurveConfig{otherKeys, serverKeys.publicKey, kBinding});
    }
};

QString endpointOf(Channel& c) {
    return QString::fromStdString(c.socket().get(zmq::sockopt::last_endpoint));
}

// A message each way, then until both ends send the bulk way: the dealer's offer, the router's
// answer, the dealer's hello on the bulk socket, the router's acknowledgement.
bool link(Channel& server, Channel& worker, const QString& name = kWorker) {
    worker.send(Message("join"));
    if (!receiveWithin(server, 5s)) return false;
    server.send(name, Message("welcome"));
    if (!receiveWithin(worker, 5s)) return false;
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (!(server.sealedPlane()->linkedTo(name) && worker.sealedPlane()->linkedTo(kServer)))
        if (std::chrono::steady_clock::now() > deadline || server.receive(10ms) || worker.receive(10ms)) return false;
    return true;
}

}  // namespace

class SealedChannelTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void largeFramesTravelSealedBesideCurve() {
        Run run;
        Channel server = run.server();
        Channel worker = run.worker(endpointOf(server));
        QVERIFY(link(server, worker));

        // A large frame, a small one and a large one, then a small message and a large one:
        // every byte back, in order, the large frames sealed and opened.
        worker.send(withFrames("push", {{1 << 20, 1}, {100, 2}, {SealedPlane::kMinBulkBytes, 3}}));
        worker.send(withFrames("note", {{64, 4}}));
        worker.send(withFrames("push", {{300000, 5}}));
        auto first = receiveWithin(server, 5s), second = receiveWithin(server, 5s), third = receiveWithin(server, 5s);
        QVERIFY(first && second && third);
        QCOMPARE(first->message.type, QStringLiteral("push"));
        QCOMPARE(first->message.frames.size(), size_t(3));
        QVERIFY(sameBytes(first->message.frames[0], randomFrame(1 << 20, 1)));
        QVERIFY(sameBytes(first->message.frames[1], randomFrame(100, 2)));
        QVERIFY(sameBytes(first->message.frames[2], randomFrame(SealedPlane::kMinBulkBytes, 3)));
        QCOMPARE(second->message.type, QStringLiteral("note"));
        QVERIFY(sameBytes(third->message.frames[0], randomFrame(300000, 5)));
        QCOMPARE(worker.sealedPlane()->framesSealed(), 3u);
        QCOMPARE(server.sealedPlane()->framesOpened(), 3u);
        QCOMPARE(server.refusedFromPeers(), 0u);

        // And the other way, once the router knows the dealer's bulk connection (its hello).
        QVERIFY(server.send(kWorker, withFrames("model", {{2 << 20, 6}})));
        const auto model = receiveWithin(worker, 5s);
        QVERIFY(model);
        QVERIFY(sameBytes(model->message.frames[0], randomFrame(2 << 20, 6)));
        QCOMPARE(server.sealedPlane()->framesSealed(), 1u);
        QCOMPARE(worker.sealedPlane()->framesOpened(), 1u);
    }

    // A role closes right after its last send: its lingerOnClose waits until the peer has read
    // every sealed frame (an end mark on the bulk socket, answered on CURVE), so none is still in
    // the kernel's queue when the socket closes; what comes meanwhile is kept for receive().
    void closingWaitsUntilThePeerReadEverySealedFrame() {
        Run run;
        auto server = std::make_unique<Channel>(run.server());
        Channel worker = run.worker(endpointOf(*server));
        QVERIFY(link(*server, worker));
        QVERIFY(server->send(kWorker, withFrames("model", {{4 << 20, 21}})));
        worker.send(withFrames("note", {{64, 22}}));
        std::optional<Envelope> model;
        std::atomic<bool> closed{false}, arrived{false};
        std::thread peer([&] {  // the worker reads on, as a party server waiting for its model does
            while (!closed)
                if (auto e = worker.receive(10ms); e && e->message.type == QLatin1String("model")) {
                    model = std::move(e);
                    arrived = true;
                }
        });
        const auto stop = qScopeGuard([&] {
            closed = true;
            if (peer.joinable()) peer.join();
        });
        const auto start = std::chrono::steady_clock::now();
        server->lingerOnClose(5s);
        const auto waited = std::chrono::steady_clock::now() - start;
        QVERIFY(waited < 4s);
        const auto note = server->receive(0ms);  // read while waiting, kept
        QVERIFY(note && note->message.type == QLatin1String("note"));
        server.reset();
        QTRY_VERIFY_WITH_TIMEOUT(arrived, 5000);
        closed = true;
        peer.join();
        QVERIFY(sameBytes(model->message.frames[0], randomFrame(4 << 20, 21)));
        // A channel that sent nothing sealed since has nothing to wait for.
        const auto again = std::chrono::steady_clock::now();
        worker.lingerOnClose(5s);
        QVERIFY(std::chrono::steady_clock::now() - again < 1s);
    }

    // At a run's end both ends close at once. A peer that closed first (its close mark came) has
    // read what it waited for and reads nothing more, and a peer declared gone never reads: the
    // closing end waits for neither (it used to wait its whole linger for both).
    void closingWaitsForNeitherAPeerThatClosedFirstNorOneGone() {
        Run run;
        Channel server = run.server();
        Channel worker = run.worker(endpointOf(server));
        QVERIFY(link(server, worker));
        QVERIFY(server.send(kWorker, withFrames("model", {{1 << 20, 41}})));
        const auto model = receiveWithin(worker, 5s);
        QVERIFY(model && sameBytes(model->message.frames[0], randomFrame(1 << 20, 41)));
        worker.lingerOnClose(5s);  // it sent nothing sealed: it says it closes, and reads no more
        const auto start = std::chrono::steady_clock::now();
        server.lingerOnClose(5s);
        QVERIFY(std::chrono::steady_clock::now() - start < 2s);

        Run other;
        Channel sender = other.server();
        Channel stopped = other.worker(endpointOf(sender));
        QVERIFY(link(sender, stopped));
        QVERIFY(sender.send(kWorker, withFrames("model", {{1 << 20, 42}})));  // never read
        const auto again = std::chrono::steady_clock::now();
        sender.lingerOnClose(5s, {kWorker});
        QVERIFY(std::chrono::steady_clock::now() - again < 2s);
    }

    // One node running twice at once (a standby's takeover while the old process comes back):
    // each process keeps its own link at the router, and the sealed frames of both get through.
    void aNodeRunningTwiceKeepsALinkForEachProcess() {
        Run run;
        Channel server = run.server();
        Channel old = run.worker(endpointOf(server));
        QVERIFY(link(server, old));
        Channel taken = run.worker(endpointOf(server));  // the same name and keys
        QVERIFY(link(server, taken));
        old.send(withFrames("push", {{1 << 20, 31}}));
        taken.send(withFrames("push", {{1 << 20, 32}}));
        const auto first = receiveWithin(server, 5s), second = receiveWithin(server, 5s);
        QVERIFY(first && second);
        const bool inOrder = sameBytes(first->message.frames[0], randomFrame(1 << 20, 31));
        QVERIFY(sameBytes((inOrder ? first : second)->message.frames[0], randomFrame(1 << 20, 31)));
        QVERIFY(sameBytes((inOrder ? second : first)->message.frames[0], randomFrame(1 << 20, 32)));
        QCOMPARE(server.sealedPlane()->framesOpened(), 2u);
        QCOMPARE(server.refusedFromPeers(), 0u);
    }

    // Two messages read in one go: the second is whole once the first is delivered, and its
    // sockets have nothing more to signal; a poll must still say the channel has it.
    void aHeldMessageThatIsWholeIsPolledFor() {
        Run run;
        Channel server = run.server();
        Channel worker = run.worker(endpointOf(server));
        QVERIFY(link(server, worker));
        worker.send(withFrames("push", {{1 << 20, 11}}));
        worker.send(withFrames("push", {{1 << 20, 12}}));
        QTest::qWait(300);  // (both on their way before the first receive: set-up, not a timing assertion)
        const auto first = receiveWithin(server, 5s);
        QVERIFY(first && sameBytes(first->message.frames[0], randomFrame(1 << 20, 11)));
        QCOMPARE(pollChannels({&server}, 2000ms), 0);
        const auto second = server.receive(0ms);
        QVERIFY(second && sameBytes(second->message.frames[0], randomFrame(1 << 20, 12)));
        QVERIFY(!server.hasDeliverable());
    }

    void strangersOnTheBulkPortAreRefused() {
        Run run;
        Channel server = run.server();
        Channel worker = run.worker(endpointOf(server));
        QVERIFY(link(server, worker));
        const QString bulk = server.sealedPlane()->bulkEndpoint();
        QVERIFY(bulk.startsWith("tcp://127.0.0.1:"));

        // Without a login the port is closed to it: refused at the handshake (by the ZAP handler),
        // before anything it sends is read or held.
        zmq::socket_t nobody(run.ctx, zmq::socket_type::dealer);
        nobody.set(zmq::sockopt::linger, 0);
        bulklogin::logIn(nobody, kOther, "not-a-login");
        nobody.connect(bulk.toStdString());
        (void)nobody.send(zmq::str_buffer("garbage"), zmq::send_flags::dontwait);
        QTRY_VERIFY_WITH_TIMEOUT(run.guard->refusals() > 0, 5000);
        // One that has a login (another member's, say) reaches the port: what it sends in the
        // worker's name does not open under the worker's keys.
        zmq::socket_t stranger(run.ctx, zmq::socket_type::dealer);
        stranger.set(zmq::sockopt::linger, 0);
        bulklogin::logIn(stranger, kOther, bulklogin::issue(kOther));
        stranger.connect(bulk.toStdString());
        const auto sendParts = [&](std::initializer_list<QByteArray> parts) {
            size_t i = 0;
            for (const QByteArray& p : parts)
                stranger.send(zmq::buffer(p.constData(), size_t(p.size())),
                              ++i < parts.size() ? zmq::send_flags::sndmore : zmq::send_flags::none);
        };
        // A bulk frame: [kind, 0, index, counter, size, digest of its message's header][sender][sealed].
        const auto header = [](char kind, quint64 counter, quint64 size) {
            QByteArray h(36, '\0');
            h[0] = kind;
            for (int i = 0; i < 8; ++i) h[4 + i] = char(counter >> (56 - 8 * i)), h[12 + i] = char(size >> (56 - 8 * i));
            return h;
        };
        const QByteArray name = kWorker.toUtf8();
        sendParts({"garbage"});  // not a bulk frame at all
        sendParts({header('h', 1000, 0), name, QByteArray(16, 'x')});  // a hello in the worker's name, without its key
        sendParts({header('f', quint64(1) << 63, 4), name, QByteArray(4 + 16, 'y')});  // a frame in its name, far ahead
        sendParts({header('f', 1000, 1 << 20), name, QByteArray(1000, 'c')});  // one cut short
        QTRY_COMPARE_WITH_TIMEOUT((server.receive(50ms), server.sealedPlane()->bulkRefused()), 4u, 5000);
        QVERIFY(server.sealedPlane()->linkedTo(kWorker));  // the worker's route is its own still

        worker.send(withFrames("push", {{1 << 20, 7}}));  // the link goes on
        const auto push = receiveWithin(server, 5s);
        QVERIFY(push);
        QVERIFY(sameBytes(push->message.frames[0], randomFrame(1 << 20, 7)));
        QCOMPARE(server.sealedPlane()->framesOpened(), 1u);
    }

    // A member that sends sealed frames and never the messages that name them fills only its own
    // stash: its oldest frames go (refused, counted), and another member's message still comes.
    // (The router stopped reading its bulk socket once any link's stash was full.)
    void aMemberSendingFramesAloneHoldsUpNoOneElse() {
        Run run;
        Channel server = run.server();
        Channel flooder = run.worker(endpointOf(server));
        Channel other = run.other(endpointOf(server));
        QVERIFY(link(server, flooder));
        QVERIFY(link(server, other, kOther));
        constexpr int kFrames = 1300;  // the stash keeps 1,024 a link
        // A message's header and a frame sealed the bulk way, never sent on CURVE; a frame the bulk
        // socket has no room for stays inline (not sent), and the next is tried.
        for (quint32 i = 0; flooder.sealedPlane()->framesSealed() < quint64(kFrames) && i < 20 * kFrames; ++i) {
            std::vector<zmq::message_t> parts;
            parts.emplace_back("header", 6);
            parts.push_back(randomFrame(SealedPlane::kMinBulkBytes, i));
            flooder.sealedPlane()->divert(kServer, parts, 0);
            if (i % 16 == 15)  // the router reads as they come (its bulk socket buffers 8 a connection)
                for (int k = 0; k < 4; ++k) server.receive(1ms);
        }
        QCOMPARE(flooder.sealedPlane()->framesSealed(), quint64(kFrames));
        other.send(withFrames("push", {{1 << 20, 41}}));
        const auto push = receiveWithin(server, 5s);
        QVERIFY(push);
        QCOMPARE(push->peer, kOther);
        QVERIFY(sameBytes(push->message.frames[0], randomFrame(1 << 20, 41)));
        // (the flooder's last frames may come after the push: the router reads its connections in turn)
        QTRY_VERIFY_WITH_TIMEOUT((server.receive(10ms), server.sealedPlane()->bulkRefused() == quint64(kFrames - 1024)), 5000);
    }

    void aRouterThatStartedAgainGetsANewLink() {
        Run run;
        std::optional<Channel> server = run.server();
        const QString endpoint = endpointOf(*server);
        Channel worker = run.worker(endpoint);
        QVERIFY(link(*server, worker));
        server.reset();
        for (int tries = 0; !server && tries < 50; ++tries) {  // (the old listener closes on ZeroMQ's own thread)
            try {
                server = run.server(endpoint);  // the same port, a new process's channel: it has no link
            } catch (const std::runtime_error&) {
                QTest::qWait(100);
            }
        }
        QVERIFY(server);

        // The worker's bulk socket reaches nobody now: its push goes inline, and the new router,
        // which has no link with it, asks it to offer again. (Until the worker's I/O thread has
        // seen the old bulk connection close, a push may still leave on it and be lost, as a
        // push to a server that died is: it is sent again until one comes.)
        std::optional<Envelope> inline_;
        for (int tries = 0; !inline_ && tries < 5; ++tries) {
            worker.send(withFrames("push", {{1 << 20, 8}}));
            inline_ = receiveWithin(*server, 2s);
        }
        QVERIFY(inline_ && sameBytes(inline_->message.frames[0], randomFrame(1 << 20, 8)));
        QCOMPARE(server->sealedPlane()->framesOpened(), 0u);
        const auto deadline = std::chrono::steady_clock::now() + 5s;
        while (!(server->sealedPlane()->linkedTo(kWorker) && worker.sealedPlane()->linkedTo(kServer)) &&
               std::chrono::steady_clock::now() < deadline) {
            QVERIFY(!worker.receive(10ms));
            QVERIFY(!server->receive(10ms));
        }
        QVERIFY(server->sealedPlane()->linkedTo(kWorker) && worker.sealedPlane()->linkedTo(kServer));
        worker.send(withFrames("push", {{1 << 20, 9}}));
        const auto got = receiveWithin(*server, 5s);
        QVERIFY(got);
        QVERIFY(sameBytes(got->message.frames[0], randomFrame(1 << 20, 9)));
        QCOMPARE(server->sealedPlane()->framesOpened(), 1u);
    }

    // A router and a dealer on hosts of different CPUs (one without AES-NI) agree on the cipher:
    // the router chooses, AES-256-GCM only where the dealer offered it. Each chose alone before,
    // and the dealer's hello never opened: the link never came up, and bulk stayed on CURVE.
    void endsOfDifferentCiphersAgreeOnOne_data() {
        QTest::addColumn<bool>("routerHasAes");
        QTest::newRow("router without AES-NI") << false;
        QTest::newRow("dealer without AES-NI") << true;
    }
    void endsOfDifferentCiphersAgreeOnOne() {
        QFETCH(bool, routerHasAes);
        Run run;
        setPreferredAead(routerHasAes ? std::nullopt : std::optional(AeadCipher::ChaCha20Poly1305));
        Channel server = run.server();
        setPreferredAead(routerHasAes ? std::optional(AeadCipher::ChaCha20Poly1305) : std::nullopt);
        Channel worker = run.worker(endpointOf(server));
        setPreferredAead(std::nullopt);
        QVERIFY(link(server, worker));
        worker.send(withFrames("push", {{1 << 20, 51}}));
        const auto push = receiveWithin(server, 5s);
        QVERIFY(push && sameBytes(push->message.frames[0], randomFrame(1 << 20, 51)));
        QCOMPARE(server.sealedPlane()->framesOpened(), 1u);
        QCOMPARE(server.sealedPlane()->bulkRefused(), 0u);
    }

    // A router that died with the dealer's offer unanswered: the next one asks it to offer again,
    // and it does (it waited for the lost answer for ever, its bulk on CURVE for good).
    void aDealerWhoseOfferWentUnansweredOffersAgain() {
        Run run;
        // A router that seals nothing takes the offer and never answers it.
        std::optional<Channel> server = Channel::router(run.ctx, kServer, "tcp://127.0.0.1:*", CurveConfig{run.serverKeys, {}, {}});
        const QString endpoint = endpointOf(*server);
        Channel worker = run.worker(endpoint);
        worker.send(Message("join"));  // (after the offer: once it came, so had the offer)
        QTRY_VERIFY_WITH_TIMEOUT(server->receive(10ms) || server->refusedFromPeers() > 0, 5000);
        server.reset();
        QTest::qWait(1100);  // (an offer younger than this is waited for: a new router's first ask crosses it)
        for (int tries = 0; !server && tries < 50; ++tries) {  // (the old listener closes on ZeroMQ's own thread)
            try {
                server = run.server(endpoint);
            } catch (const std::runtime_error&) {
                QTest::qWait(100);
            }
        }
        QVERIFY(server);
        const auto deadline = std::chrono::steady_clock::now() + 10s;
        while (!(server->sealedPlane()->linkedTo(kWorker) && worker.sealedPlane()->linkedTo(kServer)) &&
               std::chrono::steady_clock::now() < deadline) {
            worker.send(Message("join"));
            server->receive(10ms);
            worker.receive(10ms);
        }
        QVERIFY(server->sealedPlane()->linkedTo(kWorker) && worker.sealedPlane()->linkedTo(kServer));
    }

    // A peer that does not seal (its messages have no descriptor) is refused, never misread.
    void aPeerThatDoesNotSealIsRefused() {
        Run run;
        Channel server = run.server();
        Channel plain =
            Channel::dealer(run.ctx, kWorker, endpointOf(server), kServer, CurveConfig{run.workerKeys, run.serverKeys.publicKey});
        plain.send(withFrames("push", {{1 << 20, 10}}));
        QTRY_COMPARE_WITH_TIMEOUT((server.receive(50ms), server.refusedFromPeers()), 1u, 5000);
    }

    // A member's descriptor that does not fit its message (a frame it names came inline as well,
    // or a part the message does not have) is refused and counted, never misread; the next
    // message of that member is taken.
    void aDescriptorThatDoesNotFitIsRefused() {
        Run run;
        Channel server = run.server();
        Channel plain =
            Channel::dealer(run.ctx, kWorker, endpointOf(server), kServer, CurveConfig{run.workerKeys, run.serverKeys.publicKey});
        const auto sendWithDescriptor = [&](quint16 index) {
            std::vector<zmq::message_t> parts;
            WireCodec::encode(withFrames("push", {{1 << 20, 11}}), parts);
            QByteArray descriptor(1 + 18, '\0');
            descriptor[0] = 'D';
            descriptor[2] = char(index);  // part `index` (u16), counter 1 (u64), 1 MiB (u64), big-endian
            descriptor[10] = 1;
            descriptor[16] = 0x10;
            parts.emplace_back(descriptor.constData(), size_t(descriptor.size()));
            for (size_t i = 0; i < parts.size(); ++i)
                plain.socket().send(parts[i], i + 1 < parts.size() ? zmq::send_flags::sndmore : zmq::send_flags::none);
        };
        sendWithDescriptor(1);  // part 1 is there, inline
        QTRY_COMPARE_WITH_TIMEOUT((server.receive(50ms), server.refusedFromPeers()), 1u, 5000);
        sendWithDescriptor(7);  // the message has one part
        QTRY_COMPARE_WITH_TIMEOUT((server.receive(50ms), server.refusedFromPeers()), 2u, 5000);
    }

    // A member's message that names a sealed frame further ahead than any can be on its way, or
    // holds more parts than a channel delivers, is refused at once. Held, it waited 30 s for its
    // frames (for ever, while the member's other frames kept coming), keeping its parts meanwhile.
    void aHeldMessageBeyondWhatCanComeIsRefusedAtOnce() {
        Run run;
        Channel server = run.server();
        Channel worker = run.worker(endpointOf(server));
        QVERIFY(link(server, worker));
        const auto sendNaming = [&](quint64 counter, int parts) {
            Message m("push");
            for (int i = 0; i < parts; ++i) m.frames.emplace_back();  // part 1 is the sealed one: empty inline
            std::vector<zmq::message_t> wire;
            WireCodec::encode(std::move(m), wire);
            QByteArray descriptor(1 + 18, '\0');  // 'D', then part 1 (u16), the counter (u64), 1 KiB (u64)
            descriptor[0] = 'D';
            descriptor[2] = 1;
            for (int i = 0; i < 8; ++i) descriptor[3 + i] = char(counter >> (56 - 8 * i));
            descriptor[17] = 0x04;
            wire.emplace_back(descriptor.constData(), size_t(descriptor.size()));
            for (size_t i = 0; i < wire.size(); ++i)
                worker.socket().send(wire[i], i + 1 < wire.size() ? zmq::send_flags::sndmore : zmq::send_flags::none);
        };
        const quint64 before = server.refusedFromPeers();
        sendNaming(quint64(1) << 40, 1);
        QTRY_COMPARE_WITH_TIMEOUT((server.receive(50ms), server.refusedFromPeers()), before + 1, 5000);
        sendNaming(1, 100);
        QTRY_COMPARE_WITH_TIMEOUT((server.receive(50ms), server.refusedFromPeers()), before + 2, 5000);
        worker.send(withFrames("push", {{1 << 20, 12}}));  // and the member's next message is taken
        const auto push = receiveWithin(server, 5s);
        QVERIFY(push);
        QVERIFY(sameBytes(push->message.frames[0], randomFrame(1 << 20, 12)));
    }
};

QTEST_GUILESS_MAIN(SealedChannelTest)
#include "tst_sealedchannel.moc"
