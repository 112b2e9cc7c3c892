// Emulated WAN links: the shaper's arithmetic (a FIFO link of a rate and a delay), which links a
// party's `wan` shapes for each role, and the setting as the topology reads and writes it.
#include "Channel.h"
#include "LinkShaper.h"
#include "TopologyReader.h"
#include "TopologyWriter.h"
#include "WanLinks.h"

#include <QtTest>
#include <thread>

using namespace hips;
using namespace std::chrono;

namespace {

const void* const kSender = &kSender;  // (a channel's address)

LinkShaper::Pending message(const QString& peer, quint64 bytes) {
    return {{}, peer, QStringLiteral("push"), {}, bytes};
}

Topology defaultWith(const QString& wanJson, bool flat = false) {
    QFile file(HIPS_SOURCE_DIR "/resources/topologies/default.json");
    file.open(QIODevice::ReadOnly);
    QByteArray json = file.readAll();
    json.replace("\"id\": \"party1\",", "\"id\": \"party1\", " + wanJson.toUtf8());
    if (flat) json.replace("\"eval_every\": 1", "\"eval_every\": 1, \"hierarchy\": \"flat\"");
    const TopologyLoad load = TopologyReader::readJson(json);
    if (!load.ok()) qFatal("%s", qPrintable(load.errorText()));
    return *load.topology;
}

std::optional<LinkShape> shapeFor(const Topology& t, const QString& node, const QString& peer) {
    RoleContext ctx(t, *t.node(node), {});
    const auto shaper = makeWanShaper(ctx);
    return shaper ? shaper->shapeOf(peer) : std::nullopt;
}

}  // namespace

class TestWan : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // 1 MB/s and 50 ms: 100 kB take 0.1 s on the link, then 50 ms; the next 200 kB wait for it.
    void aLinkCarriesMessagesInOrderAtItsRate() {
        LinkShaper shaper([](const QString&) { return std::nullopt; });
        const LinkShape link{QStringLiteral("wan:p"), 1e6, milliseconds(50)};
        const auto before = LinkShaper::Clock::now();
        shaper.enqueue(kSender, link, message("a", 100000));
        shaper.enqueue(kSender, link, message("b", 200000));
        const auto after = LinkShaper::Clock::now();
        std::vector<QString> sent;
        std::vector<LinkShaper::Clock::time_point> dues;
        QVERIFY(shaper.nextDue(kSender) >= before + milliseconds(150));
        QVERIFY(shaper.nextDue(kSender) <= after + milliseconds(150));
        shaper.releaseDue(kSender, [&](LinkShaper::Pending& p) { sent.push_back(p.peer); });
        QVERIFY(sent.empty());  // not due yet (150 ms from now)
        // Another link is independent; a later message on the first queues behind the others.
        shaper.enqueue(kSender, {QStringLiteral("wan:q"), 1e6, milliseconds(0)}, message("c", 1000));
        QVERIFY(shaper.nextDue(kSender) <= after + milliseconds(1) + microseconds(1000));
        QVERIFY(!shaper.empty(kSender));
    }

    void dueTimesAddUp() {
        LinkShaper shaper([](const QString&) { return std::nullopt; });
        const LinkShape link{QStringLiteral("wan:p"), 1e6, milliseconds(50)};
        const auto start = LinkShaper::Clock::now();
        for (int i = 0; i < 3; ++i) shaper.enqueue(kSender, link, message(QString::number(i), 100000));
        const auto end = LinkShaper::Clock::now();
        std::vector<QString> order;
        std::vector<LinkShaper::Clock::time_point> dues;
        while (!shaper.empty(kSender)) {  // each released once due, none lost
            std::this_thread::sleep_until(*shaper.nextDue(kSender));
            shaper.releaseDue(kSender, [&](LinkShaper::Pending& p) { order.push_back(p.peer), dues.push_back(p.due); });
        }
        QCOMPARE(order, std::vector<QString>({"0", "1", "2"}));
        // Each takes 0.1 s of the link after the one before it; the first is due 0.1 s + 50 ms on.
        QCOMPARE(dues[1] - dues[0], LinkShaper::Clock::duration(milliseconds(100)));
        QCOMPARE(dues[2] - dues[1], LinkShaper::Clock::duration(milliseconds(100)));
        QVERIFY(dues[0] >= start + milliseconds(150) && dues[0] <= end + milliseconds(150));
    }

    // Two senders on one link (a worker's channels to two global servers, a party's WAN): the
    // link carries their messages one after the other, and each sender sends only its own (one
    // released the other's, on its own socket: to the wrong server).
    void sendersShareALinkAndSendTheirOwn() {
        LinkShaper shaper([](const QString&) { return std::nullopt; });
        const LinkShape link{QStringLiteral("wan:p"), 1e6, milliseconds(0)};
        int first = 0, second = 0;
        QVERIFY(shaper.enqueue(&first, link, message("global_server0", 100000)));
        QVERIFY(shaper.enqueue(&second, link, message("global_server1", 100000)));
        QCOMPARE(*shaper.nextDue(&second) - *shaper.nextDue(&first), LinkShaper::Clock::duration(milliseconds(100)));
        std::this_thread::sleep_until(*shaper.nextDue(&second));
        std::vector<QString> sentByFirst;
        shaper.releaseDue(&first, [&](LinkShaper::Pending& p) { sentByFirst.push_back(p.peer); });
        QCOMPARE(sentByFirst, std::vector<QString>({"global_server0"}));
        QVERIFY(shaper.empty(&first) && !shaper.empty(&second));
        shaper.releaseDue(&second, [&](LinkShaper::Pending& p) { QCOMPARE(p.peer, QString("global_server1")); });
        QVERIFY(shaper.empty(&second));
    }

    // A sender holds as many messages for a peer as a socket's queue of one connection would. Per
    // link, a model sent at once to a party's many workers lost its last slices.
    void aPeerIsHeldNoMoreThanASocketQueue() {
        LinkShaper shaper([](const QString&) { return std::nullopt; });
        const LinkShape fast{QStringLiteral("wan:p"), 1e12, milliseconds(0)};
        for (size_t i = 0; i < LinkShaper::kMaxHeld; ++i) QVERIFY(shaper.enqueue(kSender, fast, message("a", 1)));
        QVERIFY(!shaper.enqueue(kSender, fast, message("a", 1)));
        QVERIFY(shaper.enqueue(kSender, fast, message("b", 1)));  // another peer on the same link
        QVERIFY(shaper.enqueue(&shaper, fast, message("a", 1)));  // another sender
        std::this_thread::sleep_until(*shaper.lastDue(kSender));
        int sent = 0;
        shaper.releaseDue(kSender, [&](LinkShaper::Pending&) { ++sent; });
        QCOMPARE(sent, int(LinkShaper::kMaxHeld) + 1);
        QVERIFY(shaper.enqueue(kSender, fast, message("a", 1)));  // room again once they left
    }

    // What a closing channel does with what it holds: takes out a gone peer's, and the rest when
    // it gives up; the last due time says how long the link needs.
    void heldMessagesAreTakenOutByPeer() {
        LinkShaper shaper([](const QString&) { return std::nullopt; });
        const LinkShape link{QStringLiteral("wan:p"), 1e6, milliseconds(50)};
        const auto start = LinkShaper::Clock::now();
        for (const char* peer : {"a", "b", "a"}) QVERIFY(shaper.enqueue(kSender, link, message(peer, 100000)));
        QVERIFY(*shaper.lastDue(kSender) >= start + milliseconds(350));
        const std::vector<LinkShaper::Pending> gone = shaper.takeHeld(kSender, [](const QString& p) { return p == "b"; });
        QCOMPARE(int(gone.size()), 1);
        QCOMPARE(gone[0].peer, QStringLiteral("b"));
        QCOMPARE(int(shaper.takeHeld(kSender).size()), 2);
        QVERIFY(shaper.empty(kSender) && !shaper.lastDue(kSender));
        for (size_t i = 0; i < LinkShaper::kMaxHeld; ++i) QVERIFY(shaper.enqueue(kSender, link, message("a", 1)));  // (none held now)
    }

    // A channel that closes sends what its emulated link still holds, as the link carries it, past
    // its linger: 0.3 s of messages at 1 MB/s beside a linger of 0.1 s. (Cut at the linger, the
    // final model down a slow WAN never reached the last workers, who waited for it for ever.)
    void aClosingChannelSendsWhatItsLinkHolds() {
        zmq::context_t ctx(1);
        Channel server = Channel::router(ctx, "srv", "inproc://wanlinger", CurveConfig{});
        Channel worker = Channel::dealer(ctx, "w", "inproc://wanlinger", "srv", CurveConfig{});
        worker.send(Message(QStringLiteral("hello")));
        QVERIFY(server.receive(seconds(5)));
        server.setLinkShaper(std::make_shared<LinkShaper>([](const QString&) {
            return LinkShape{QStringLiteral("wan:p"), 1e6, milliseconds(0)};
        }));
        for (int i = 0; i < 3; ++i) {
            Message m(QStringLiteral("model"), {{QStringLiteral("i"), i}});
            m.frames.emplace_back(std::string(100000, 'x'));
            QVERIFY(server.send("w", std::move(m)));
        }
        server.lingerOnClose(milliseconds(100));
        for (int i = 0; i < 3; ++i) {
            const auto e = worker.receive(seconds(5));
            QVERIFY(e);
            QCOMPARE(e->message.integer(QStringLiteral("i")), qint64(i));
        }
        QCOMPARE(server.undeliverable(), quint64(0));
    }

    void aPartyWanShapesOnlyItsCrossingLinks() {
        const Topology t = defaultWith(R"("wan": { "bandwidth_mbps": 8, "latency_ms": 20 },)");
        const auto up = shapeFor(t, "party1/server0", "central/global_server0");
        QVERIFY(up);
        QCOMPARE(up->bytesPerSecond, 1e6);  // 8 Mbit/s, one server crossing
        QCOMPARE(up->latency, microseconds(20000));
        const auto down = shapeFor(t, "central/global_server0", "party1/server0");
        QVERIFY(down);
        QCOMPARE(down->link, QStringLiteral("wan:party1"));
        QVERIFY(!shapeFor(t, "central/global_server0", "party2/server0"));  // party2 has no wan
        QVERIFY(!shapeFor(t, "central/global_server0", "central/master_worker"));
        QVERIFY(!shapeFor(t, "party1/server0", "party1/worker0"));  // inside the party
        QVERIFY(!shapeFor(t, "party2/server0", "central/global_server0"));
    }

    void inAFlatRunThePartysWorkersShareIt() {
        const Topology t = defaultWith(R"("wan": { "bandwidth_mbps": 8 },)", true);
        const auto up = shapeFor(t, "party1/worker0", "central/global_server0");
        QVERIFY(up);
        QCOMPARE(up->bytesPerSecond, 0.5e6);  // two workers cross: half each
        QCOMPARE(up->latency, microseconds(0));
    }

    void theSettingIsCheckedAndKept() {
        const Topology t = defaultWith(R"("wan": { "bandwidth_mbps": 5, "latency_ms": 50 },)");
        const TopologyLoad again = TopologyReader::readJson(TopologyWriter::toJson(t));
        QVERIFY(again.ok());
        QCOMPARE(again.topology->party("party1")->wan->bandwidthMbps, 5.0);
        QCOMPARE(again.topology->party("party1")->wan->latencyMs, 50.0);
        QVERIFY(!again.topology->party("party2")->wan);
        for (const auto& [wan, complaint] : {std::pair{R"("wan": { "latency_ms": 5 },)", "bandwidth_mbps"},
                                             std::pair{R"("wan": { "bandwidth_mbps": 0 },)", "bandwidth_mbps"},
                                             std::pair{R"("wan": { "bandwidth_mbps": 5, "jitter": 1 },)", "jitter"}}) {
            QFile file(HIPS_SOURCE_DIR "/resources/topologies/default.json");
            file.open(QIODevice::ReadOnly);
            QByteArray json = file.readAll().replace("\"id\": \"party1\",", QByteArray("\"id\": \"party1\", ") + wan);
            const TopologyLoad load = TopologyReader::readJson(json);
            QVERIFY2(!load.ok() && load.errorText().contains(complaint), qPrintable(load.errorText()));
        }
        QFile file(HIPS_SOURCE_DIR "/resources/topologies/default.json");
        file.open(QIODevice::ReadOnly);
        const QByteArray central = file.readAll().replace("\"central\": true,", "\"central\": true, \"wan\": { \"bandwidth_mbps\": 5 },");
        QVERIFY(TopologyReader::readJson(central).errorText().contains("central party has no WAN"));
    }
};

QTEST_GUILESS_MAIN(TestWan)
#include "tst_wan.moc"
