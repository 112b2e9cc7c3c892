// Wire codec: round trips keep header fields and frames; every kind of malformed or
// oversized input is rejected with its reason and counted; a Channel survives garbage.
#include "Channel.h"
#include "StartCommand.h"
#include "WireCodec.h"

#include <QCborArray>
#include <QTemporaryDir>
#include <QtTest>
#include <thread>

using namespace hips;
using namespace std::chrono_literals;

namespace {

std::vector<zmq::message_t> encoded(Message m) {
    std::vector<zmq::message_t> parts;
    WireCodec::encode(std::move(m), parts);
    return parts;
}

zmq::message_t bytes(const QByteArray& b) {
    return zmq::message_t(b.constData(), size_t(b.size()));
}

QByteArray header(QCborMap m) {
    return m.toCborValue().toCbor();
}

}  // namespace

class WireTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void roundTripKeepsFieldsAndFrames() {
        Message m(QStringLiteral("push"), {{QStringLiteral("round"), 7}, {QStringLiteral("note"), QStringLiteral("hé")}});
        auto payload = std::make_shared<std::vector<float>>(std::vector<float>{1.5f, -2.0f, 3.25f});
        m.frames.push_back(sharedFrame(payload, payload->data(), payload->size() * sizeof(float)));
        m.frames.emplace_back(0);  // an empty frame is legal
        auto parts = encoded(std::move(m));
        QCOMPARE(parts.size(), size_t(3));
        WireStats stats;
        Decoded d = WireCodec::decode(parts, 0, WireLimits{}, &stats);
        QVERIFY(d.message.has_value());
        QCOMPARE(d.message->type, QStringLiteral("push"));
        QCOMPARE(d.message->integer("round"), 7);
        QCOMPARE(d.message->string("note"), QStringLiteral("hé"));
        QVERIFY(!d.message->fields.contains(QStringLiteral("sizes")));  // codec bookkeeping is stripped
        QCOMPARE(d.message->frames.size(), size_t(2));
        const auto* values = static_cast<const float*>(d.message->frames[0].data());
        QCOMPARE(values[2], 3.25f);
        QCOMPARE(stats.totalErrors(), quint64(0));
    }

    void sharedFrameIsZeroCopy() {
        auto payload = std::make_shared<std::vector<float>>(1000, 1.0f);
        std::weak_ptr<std::vector<float>> watch = payload;
        {
            zmq::message_t frame = sharedFrame(payload, payload->data(), payload->size() * sizeof(float));
            QCOMPARE(frame.data(), static_cast<void*>(payload->data()));
            payload.reset();
            QVERIFY(!watch.expired());  // the frame keeps the buffer alive
        }
        QVERIFY(watch.expired());  // and releases it
    }

    void malformedInputIsRejected_data() {
        QTest::addColumn<int>("error");
        QTest::addColumn<QList<QByteArray>>("frames");
        const QCborArray one{qint64(4)};
        QTest::newRow("empty") << int(WireError::Empty) << QList<QByteArray>{};
        QTest::newRow("not cbor") << int(WireError::NotCbor) << QList<QByteArray>{"\xff\xfe garbage"};
        QTest::newRow("cbor but not a map") << int(WireError::NotCbor) << QList<QByteArray>{QCborValue(42).toCbor()};
        QTest::newRow("wrong version") << int(WireError::BadVersion)
                                       << QList<QByteArray>{header({{"v", 99}, {"type", "push"}, {"sizes", QCborArray{}}})};
        QTest::newRow("no version") << int(WireError::BadVersion) << QList<QByteArray>{header({{"type", "push"}, {"sizes", QCborArray{}}})};
        QTest::newRow("no type") << int(WireError::BadType) << QList<QByteArray>{header({{"v", 1}, {"sizes", QCborArray{}}})};
        QTest::newRow("type not a string") << int(WireError::BadType)
                                           << QList<QByteArray>{header({{"v", 1}, {"type", 5}, {"sizes", QCborArray{}}})};
        QTest::newRow("no size table") << int(WireError::BadFrameTable) << QList<QByteArray>{header({{"v", 1}, {"type", "x"}})};
        QTest::newRow("negative size") << int(WireError::BadFrameTable)
                                       << QList<QByteArray>{header({{"v", 1}, {"type", "x"}, {"sizes", QCborArray{qint64(-4)}}}), "abcd"};
        QTest::newRow("frame missing") << int(WireError::FrameSizeMismatch)
                                       << QList<QByteArray>{header({{"v", 1}, {"type", "x"}, {"sizes", one}})};
        QTest::newRow("frame shorter than declared")
            << int(WireError::FrameSizeMismatch) << QList<QByteArray>{header({{"v", 1}, {"type", "x"}, {"sizes", one}}), "ab"};
        QTest::newRow("extra frame") << int(WireError::FrameSizeMismatch)
                                     << QList<QByteArray>{header({{"v", 1}, {"type", "x"}, {"sizes", one}}), "abcd", "more"};
        QTest::newRow("too many frames") << int(WireError::TooManyFrames) << QList<QByteArray>(80, "x");
        QTest::newRow("header too large") << int(WireError::HeaderTooLarge) << QList<QByteArray>{QByteArray(70000, 'a')};
    }

    void malformedInputIsRejected() {
        QFETCH(int, error);
        QFETCH(QList<QByteArray>, frames);
        std::vector<zmq::message_t> parts;
        for (const QByteArray& f : frames) parts.push_back(bytes(f));
        WireStats stats;
        const Decoded d = WireCodec::decode(parts, 0, WireLimits{}, &stats);
        QVERIFY(!d.message.has_value());
        QCOMPARE(int(d.error), error);
        QCOMPARE(stats.errors(WireError(error)), quint64(1));
        QCOMPARE(stats.totalErrors(), quint64(1));
    }

    void oversizedPayloadIsRejected() {
        Message m(QStringLiteral("push"));
        m.frames.emplace_back(size_t(2048));
        auto parts = encoded(std::move(m));
        WireLimits limits;
        limits.maxPayloadBytes = 1024;
        WireStats stats;
        QCOMPARE(WireCodec::decode(parts, 0, limits, &stats).error, WireError::PayloadTooLarge);
        QCOMPARE(stats.errors(WireError::PayloadTooLarge), quint64(1));
    }

    void channelCountsTrafficAndSurvivesGarbage() {
        zmq::context_t ctx;
        Channel server = Channel::router(ctx, "partyA/server0", "tcp://127.0.0.1:*");
        const QString endpoint = QString::fromStdString(server.socket().get(zmq::sockopt::last_endpoint));
        Channel worker = Channel::dealer(ctx, "partyA/worker0", endpoint, "partyA/server0");
        Channel stranger = Channel::dealer(ctx, "partyB/server0", endpoint, "partyA/server0");

        zmq::socket_t raw(ctx, zmq::socket_type::dealer);  // speaks garbage
        raw.set(zmq::sockopt::routing_id, "rogue/x");
        raw.set(zmq::sockopt::linger, 0);
        raw.connect(endpoint.toStdString());
        raw.send(zmq::str_buffer("not a message"), zmq::send_flags::none);

        worker.send(Message(QStringLiteral("pull"), {{QStringLiteral("version"), 3}}));
        stranger.send(Message(QStringLiteral("pull"), {{QStringLiteral("version"), 1}}));
        int good = 0;
        const auto deadline = std::chrono::steady_clock::now() + 5s;
        while ((good < 2 || server.stats().totalErrors() == 0) && std::chrono::steady_clock::now() < deadline)
            if (auto e = server.receive(100ms)) {
                ++good;
                QVERIFY(e->peer == "partyA/worker0" || e->peer == "partyB/server0");
            }
        QCOMPARE(good, 2);
        QCOMPARE(server.stats().errors(WireError::NotCbor), quint64(1));
        QVERIFY(server.traffic().receivedBytes(Tier::Inside) > 0);  // same party
        QVERIFY(server.traffic().receivedBytes(Tier::Across) > 0);  // partyB and the rogue
        server.send("partyA/worker0", Message(QStringLiteral("model"), {{QStringLiteral("version"), 3}}));
        auto reply = worker.receive(5000ms);
        QVERIFY(reply.has_value());
        QCOMPARE(reply->message.integer("version"), 3);
        QCOMPARE(worker.traffic().sentBytes(Tier::Inside), server.traffic().links().value("partyA/worker0").received);
    }

    // CURVE with a key pair per node: members get in and are named after their key, whatever
    // routing id they claim; another key and a plain client do not get in; the refusal is
    // counted; a send to a peer that never connected or has gone is dropped, never thrown.
    void curveNamesEachPeerByItsKey() {
        zmq::context_t ctx(1);
        const CurveKeyPair serverKeys = CurveKeyPair::generate(), w0 = CurveKeyPair::generate(), w1 = CurveKeyPair::generate();
        QVERIFY(!serverKeys.isNull());
        QCOMPARE(CurveKeyPair::fromText(w0.toText()).secretKey, w0.secretKey);
        PeerKeys peers;
        peers.insert("partyA/worker0", w0.publicKey);
        peers.insert("partyA/worker1", w1.publicKey);
        QCOMPARE(PeerKeys::fromText(peers.toText()).keyOf("partyA/worker1"), w1.publicKey);
        QVERIFY(PeerKeys::fromText("partyA/worker0 short\n").isEmpty());
        QHash<QByteArray, QString> members;
        for (auto it = peers.all().begin(); it != peers.all().end(); ++it) members.insert(it.value(), it.key());
        CurveGuard guard(ctx, members, "test-server");
        Channel server = Channel::router(ctx, "partyA/server0", "tcp://127.0.0.1:*", CurveConfig{serverKeys, {}});
        const QString endpoint = QString::fromStdString(server.socket().get(zmq::sockopt::last_endpoint));

        Channel worker0 = Channel::dealer(ctx, "partyA/worker0", endpoint, "partyA/server0", CurveConfig{w0, serverKeys.publicKey});
        worker0.send(Message("pull"));
        auto got = server.receive(std::chrono::seconds(5));
        QVERIFY(got.has_value());
        QCOMPARE(got->peer, QStringLiteral("partyA/worker0"));

        // worker1's key, claiming worker0's routing id: it is worker1 all the same, and worker0
        // keeps its own connection.
        zmq::socket_t liar(ctx, zmq::socket_type::dealer);
        liar.set(zmq::sockopt::linger, 0);
        liar.set(zmq::sockopt::routing_id, "partyA/worker0");
        CurveConfig{w1, serverKeys.publicKey}.applyAsClient(liar);
        liar.connect(endpoint.toStdString());
        std::vector<zmq::message_t> parts;
        WireCodec::encode(Message("pull"), parts);
        for (size_t i = 0; i < parts.size(); ++i)
            liar.send(parts[i], i + 1 < parts.size() ? zmq::send_flags::sndmore : zmq::send_flags::none);
        got = server.receive(std::chrono::seconds(5));
        QVERIFY(got.has_value());
        QCOMPARE(got->peer, QStringLiteral("partyA/worker1"));
        QVERIFY(server.send("partyA/worker0", Message("model", {{"version", 7}})));
        const auto reply = worker0.receive(std::chrono::seconds(5));
        QVERIFY(reply.has_value());
        QCOMPARE(reply->message.integer("version"), 7);
        QCOMPARE(guard.admissions(), 2u);

        const CurveKeyPair stranger = CurveKeyPair::generate();
        Channel intruder = Channel::dealer(ctx, "partyA/worker0", endpoint, "partyA/server0", CurveConfig{stranger, serverKeys.publicKey});
        intruder.send(Message("pull"));
        zmq::context_t other(1);  // a plain client, as a port scanner would be
        Channel plain = Channel::dealer(other, "partyA/worker0", endpoint, "partyA/server0", CurveConfig{});
        plain.send(Message("pull"));
        QTRY_COMPARE(guard.refusals(), 1u);
        QVERIFY(!server.receive(std::chrono::milliseconds(500)).has_value());  // neither got through

        QVERIFY(!server.send("partyB/worker9", Message("model")));  // never connected
        QCOMPARE(server.undeliverable(), 1u);
    }

    // Found by fuzzing: a version given as a huge or NaN double (cast to an integer: undefined
    // behaviour) and a header key given twice (two readers, two meanings) are both rejected.
    void hostileHeadersAreRejected() {
        auto decodeHeader = [](const QByteArray& cbor, WireStats* stats) {
            std::vector<zmq::message_t> parts;
            parts.emplace_back(cbor.constData(), size_t(cbor.size()));
            return WireCodec::decode(parts, 0, WireLimits{}, stats).error;
        };
        WireStats stats;
        QCOMPARE(decodeHeader(QByteArray::fromHex("a16176f97e00"), &stats), WireError::BadVersion);  // {"v": NaN}
        QCOMPARE(decodeHeader(QCborValue(QCborMap{{"v", 1e300}, {"type", "push"}, {"sizes", QCborArray{}}}).toCbor(), &stats),
                 WireError::BadVersion);
        QByteArray twice = QByteArray::fromHex("a4") + QCborValue("v").toCbor() + QCborValue(1).toCbor() + QCborValue("type").toCbor() +
                           QCborValue("push").toCbor() + QCborValue("sizes").toCbor() + QCborValue(QCborArray{}).toCbor() +
                           QCborValue("type").toCbor() + QCborValue(0).toCbor();
        QCOMPARE(decodeHeader(twice, &stats), WireError::DuplicateKey);
        QCOMPARE(stats.totalErrors(), quint64(3));
        // A header of many keys (checked through a set, a few pairwise): one twice is refused,
        // all different is taken.
        const auto manyKeys = [](int fields, bool repeatFirst) {
            QByteArray cbor = QCborValue(QCborMap{{"v", 1}, {"type", "push"}, {"sizes", QCborArray{}}}).toCbor();
            cbor[0] = char(0xb8), cbor.insert(1, char(3 + fields + int(repeatFirst)));  // a map of that many pairs
            for (int f = 0; f < fields; ++f) cbor += QCborValue(QStringLiteral("field%1").arg(f)).toCbor() + QCborValue(f).toCbor();
            if (repeatFirst) cbor += QCborValue("field0").toCbor() + QCborValue(-1).toCbor();
            return cbor;
        };
        for (int fields : {4, 30}) {
            QCOMPARE(decodeHeader(manyKeys(fields, true), &stats), WireError::DuplicateKey);
            QCOMPARE(decodeHeader(manyKeys(fields, false), &stats), WireError::None);
        }
        Message m("slice", {{"version", 1e300}, {"offset", std::nan("")}});
        QCOMPARE(m.integer("version"), -1);
        QCOMPARE(m.integer("offset", 7), 7);
    }

    // The agent's start command: accepted only with an output directory strictly inside the runs
    // directory (after "~" and ".."), the node's own valid keys, and threads in range.
    void startCommandIsConfined_data() {
        QTest::addColumn<QString>("outDir");
        QTest::addColumn<int>("threads");
        QTest::addColumn<bool>("ownKey");
        QTest::addColumn<QString>("expected");  // the accepted directory, or a word of the refusal
        QTest::newRow("inside") << "/srv/runs/r1" << 2 << true << "/srv/runs/r1";
        QTest::newRow("home") << "~/runs/x/../r2" << 1 << true << "/srv/runs/r2";
        QTest::newRow("dot-dot out") << "/srv/runs/../etc" << 1 << true << "outside";
        QTest::newRow("the root itself") << "/srv/runs" << 1 << true << "outside";
        QTest::newRow("a sibling") << "/srv/runs-evil/x" << 1 << true << "outside";
        QTest::newRow("relative") << "runs/r1" << 1 << true << "absolute";
        QTest::newRow("another's key") << "/srv/runs/r1" << 1 << false << "keys";
        QTest::newRow("threads") << "/srv/runs/r1" << 0 << true << "threads";
    }
    void startCommandIsConfined() {
        QFETCH(QString, outDir);
        QFETCH(int, threads);
        QFETCH(bool, ownKey);
        QFETCH(QString, expected);
        const CurveKeyPair mine = CurveKeyPair::generate(), other = CurveKeyPair::generate();
        PeerKeys peers;
        peers.insert("p/w0", mine.publicKey);
        peers.insert("p/w1", other.publicKey);
        const StartCommand sent{"p/w0", outDir, "{}", ownKey ? mine : other, peers, threads};
        QString error;
        const auto got = StartCommand::fromMessage(sent.toMessage(), "/srv/runs", "/srv", &error);
        if (expected.startsWith('/')) {
            QVERIFY2(got.has_value(), qPrintable(error));
            QCOMPARE(got->outDir, expected);
            QCOMPARE(got->threads, threads);
            QCOMPARE(got->nodeKey.secretKey, mine.secretKey);
        } else {
            QVERIFY(!got.has_value());
            QVERIFY2(error.contains(expected), qPrintable(error));
        }
    }

    // The controller names the output folder as install_dir says, which may go through a link (a
    // home on a shared file system); the agent's runs directory is the resolved one. It was refused
    // as outside it, and a Slurm party on such a home could not start a role.
    void anOutputDirectoryThroughALinkIsInside() {
        QTemporaryDir dir;
        QVERIFY(QDir().mkpath(dir.filePath("shared/runs")) && QFile::link(dir.filePath("shared"), dir.filePath("linked")));
        const QString runs = QFileInfo(dir.filePath("shared/runs")).canonicalFilePath();
        const CurveKeyPair mine = CurveKeyPair::generate();
        PeerKeys peers;
        peers.insert("p/w0", mine.publicKey);
        QString error;
        const auto start = [&](const QString& outDir) {
            return StartCommand::fromMessage(StartCommand{"p/w0", outDir, "{}", mine, peers, 1}.toMessage(), runs, "/srv", &error);
        };
        const auto got = start(dir.filePath("linked/runs/r1"));
        QVERIFY2(got.has_value(), qPrintable(error));
        QCOMPARE(got->outDir, runs + "/r1");  // (resolved: the link is not followed again)
        QVERIFY(!start(dir.filePath("linked/other/r1")));
        QVERIFY2(error.contains("is outside this agent's runs directory"), qPrintable(error));
    }

    // The controller's placement reaches the agent; none (an older controller) is 0, and one that
    // is not a non-negative integer is refused.
    void startCommandCarriesItsPlacement() {
        const CurveKeyPair mine = CurveKeyPair::generate();
        PeerKeys peers;
        peers.insert("p/w0", mine.publicKey);
        const StartCommand sent{"p/w0", "/srv/runs/r1", "{}", mine, peers, 1, 1795500000123};
        QString error;
        const auto parse = [&](const Message& m) { return StartCommand::fromMessage(m, "/srv/runs", "/srv", &error); };
        QCOMPARE(parse(sent.toMessage())->placement, qint64(1795500000123));
        Message without = sent.toMessage();
        without.fields.remove(QStringLiteral("placement"));
        QCOMPARE(parse(without)->placement, qint64(0));
        for (const QCborValue& bad : {QCborValue(-1), QCborValue(QStringLiteral("soon")), QCborValue(2.5)}) {
            Message m = sent.toMessage();
            m.fields.insert(QStringLiteral("placement"), bad);
            QVERIFY(!parse(m));
            QVERIFY2(error.contains("placement must be a non-negative integer"), qPrintable(error));
        }
    }

    // Whether the agent keeps the role's log on its host reaches it; none (an older controller)
    // is false, and anything but true or false is refused.
    void startCommandSaysWhetherTheLogStaysOnTheHost() {
        const CurveKeyPair mine = CurveKeyPair::generate();
        PeerKeys peers;
        peers.insert("p/w0", mine.publicKey);
        StartCommand sent{"p/w0", "/srv/runs/r1", "{}", mine, peers, 1};
        QString error;
        const auto parse = [&](const Message& m) { return StartCommand::fromMessage(m, "/srv/runs", "/srv", &error); };
        QCOMPARE(parse(sent.toMessage())->logOnHost, false);
        sent.logOnHost = true;
        QCOMPARE(parse(sent.toMessage())->logOnHost, true);
        Message without = sent.toMessage();
        without.fields.remove(QStringLiteral("log_on_host"));
        QCOMPARE(parse(without)->logOnHost, false);
        for (const QCborValue& bad : {QCborValue(1), QCborValue(QStringLiteral("yes"))}) {
            Message m = sent.toMessage();
            m.fields.insert(QStringLiteral("log_on_host"), bad);
            QVERIFY(!parse(m));
            QVERIFY2(error.contains("log_on_host must be true or false"), qPrintable(error));
        }
    }

    // A peer that vanished (its connection closed) costs a dropped, counted send, not the role.
    void sendToAVanishedPeerIsDropped() {
        zmq::context_t ctx(1);
        Channel server = Channel::router(ctx, "central/global_server0", "tcp://127.0.0.1:*");
        const QString endpoint = QString::fromStdString(server.socket().get(zmq::sockopt::last_endpoint));
        {
            Channel stranger = Channel::dealer(ctx, "rogue/x", endpoint, "central/global_server0");
            stranger.send(Message("pull"));
            QVERIFY(server.receive(std::chrono::seconds(5)).has_value());
        }
        bool dropped = false;
        for (int i = 0; i < 100 && !dropped; ++i) {  // the disconnect reaches the router asynchronously
            dropped = !server.send("rogue/x", Message("model"));
            if (!dropped) std::this_thread::sleep_for(20ms);
        }
        QVERIFY(dropped);
        QVERIFY(server.undeliverable() >= 1);
    }
};

QTEST_GUILESS_MAIN(WireTest)
#include "tst_wire.moc"
