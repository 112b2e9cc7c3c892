// The scheduler with real clients over loopback: rendezvous hands every member the same node
// table, a barrier releases nobody until all have arrived, a stranger is not let in, the
// scheduler exits cleanly once every member has said bye, and one restarted mid-run has every
// member register again (and a global server send it its recovery point again); of two processes
// of one node, the one placed later is listened to, and the other told to stop.
#include "RoleError.h"
#include "SmallTopology.h"
#include "SchedulerClient.h"
#include "SchedulerIncarnations.h"
#include "SchedulerRole.h"
#include "Vocabulary.h"
#include "ShardedLinks.h"
#include "TopologyReader.h"

#include <QtTest>
#include <atomic>
#include <functional>
#include <future>
#include <thread>

using namespace hips;
using hips::test::smallTopology;

namespace {

// fault_policy continue, the global server with a standby host, silences found after 2 s.
Topology standbyTopology() {
    Topology t = smallTopology();
    t.training.faultPolicy = QStringLiteral("continue");
    t.training.heartbeatTimeoutS = 2;
    t.parties[0].servers[0].standbyHost = QStringLiteral("elsewhere");
    return t;
}

// The global scheduler's members in smallTopology(): the global server first.
const QStringList kGlobalMembers{"central/global_server0", "party1/server0", "party2/server0", "central/master_worker"};

// Starts a client for each of kGlobalMembers (the servers with an endpoint) and has them join at
// once; returns the size of the node table each got.
QList<qsizetype> joinGlobalMembers(const Topology& t, const Node& scheduler, std::vector<std::unique_ptr<RoleContext>>& contexts,
                                   std::vector<std::unique_ptr<SchedulerClient>>& members) {
    for (const QString& id : kGlobalMembers) {
        contexts.push_back(std::make_unique<RoleContext>(t, *t.node(id), QDir::tempPath()));
        const QString endpoint = id.contains("server") ? "tcp://127.0.0.1:1" + QString::number(kGlobalMembers.indexOf(id)) : "";
        members.push_back(std::make_unique<SchedulerClient>(*contexts.back(), scheduler, endpoint));
    }
    std::vector<std::future<QList<PeerInfo>>> joins;
    for (auto& m : members) joins.push_back(std::async(std::launch::async, [&m] { return m->join(); }));
    QList<qsizetype> sizes;
    for (auto& j : joins) sizes.append(j.get().size());
    return sizes;
}

// party1's scheduler and its three members, joined, with heartbeat_timeout_s 2.
struct JoinedParty {
    Topology t = [] {
        Topology t = smallTopology();
        t.training.heartbeatTimeoutS = 2;
        return t;
    }();
    const Node scheduler = *t.node("party1/scheduler");
    RoleContext schedulerCtx{t, scheduler, QDir::tempPath()};
    std::future<int> schedulerExit = std::async(std::launch::async, [this] { return runScheduler(schedulerCtx); });
    RoleContext serverCtx{t, *t.node("party1/server0"), QDir::tempPath()}, w0Ctx{t, *t.node("party1/worker0"), QDir::tempPath()},
        w1Ctx{t, *t.node("party1/worker1"), QDir::tempPath()};
    SchedulerClient server{serverCtx, scheduler, "tcp://127.0.0.1:19201"}, w0{w0Ctx, scheduler, {}}, w1{w1Ctx, scheduler, {}};

    JoinedParty() {
        auto serverJoin = std::async(std::launch::async, [&] { return server.join(); });
        auto w0Join = std::async(std::launch::async, [&] { return w0.join(); });
        w1.join();
        serverJoin.get();
        w0Join.get();
    }
    // Why the server was told the run is aborted, within 15 s (empty: it was not); `eachTick`
    // runs every 100 ms meanwhile.
    QString abortReason(const std::function<void()>& eachTick = {}) {
        for (int i = 0; i < 150; ++i) {
            if (eachTick) eachTick();
            try {
                server.throwIfAborted();
            } catch (const RoleError& e) {
                return QString::fromUtf8(e.what());
            }
            QTest::qWait(100);
        }
        return {};
    }
};

}  // namespace

class SchedulerTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void membersOfPartyAndGlobalSchedulers() {
        const Topology t = smallTopology();
        QStringList party1, global;
        for (const Node& n : membersOf(t, *t.node("party1/scheduler"))) party1 << n.id;
        for (const Node& n : membersOf(t, *t.node("central/global_scheduler"))) global << n.id;
        QCOMPARE(party1, (QStringList{"party1/server0", "party1/worker0", "party1/worker1"}));
        QCOMPARE(global, (QStringList{"central/global_server0", "party1/server0", "party2/server0", "central/master_worker"}));
    }

    void rendezvousBarrierAndBye() {
        const Topology t = smallTopology();
        const Node scheduler = *t.node("party1/scheduler");
        RoleContext schedulerCtx(t, scheduler, QDir::tempPath());
        auto schedulerExit = std::async(std::launch::async, [&] { return runScheduler(schedulerCtx); });

        std::atomic<int> arrivedAtBarrier{0};
        std::atomic<int> passedBeforeAll{0};
        auto member = [&](const QString& id) {
            RoleContext ctx(t, *t.node(id), QDir::tempPath());
            SchedulerClient client(ctx, scheduler, id.endsWith("server0") ? "tcp://127.0.0.1:19201" : "");
            const QList<PeerInfo> table = client.join();
            if (id == "party1/worker1") QTest::qWait(300);  // the last one to arrive at the barrier
            ++arrivedAtBarrier;
            client.barrier("after-join");
            if (arrivedAtBarrier < 3) ++passedBeforeAll;
            client.leave();
            return table;
        };
        auto a = std::async(std::launch::async, member, QStringLiteral("party1/server0"));
        auto b = std::async(std::launch::async, member, QStringLiteral("party1/worker0"));
        auto c = std::async(std::launch::async, member, QStringLiteral("party1/worker1"));
        const QList<PeerInfo> table = a.get();
        b.get();
        c.get();
        QCOMPARE(table.size(), 3);
        QCOMPARE(SchedulerClient::find(table, "server").endpoint, QStringLiteral("tcp://127.0.0.1:19201"));
        QCOMPARE(passedBeforeAll.load(), 0);
        QCOMPARE(schedulerExit.get(), int(kRoleOk));
    }

    // A barrier waited at longer than heartbeat_timeout_s is no silence: heartbeats go on, and
    // the waiting thread vouches for itself.
    void aLongBarrierKeepsHeartbeatsGoing() {
        Topology t = smallTopology();
        t.training.heartbeatTimeoutS = 2;
        const Node scheduler = *t.node("party1/scheduler");
        RoleContext schedulerCtx(t, scheduler, QDir::tempPath());
        auto schedulerExit = std::async(std::launch::async, [&] { return runScheduler(schedulerCtx); });
        auto member = [&](const QString& id) {
            RoleContext ctx(t, *t.node(id), QDir::tempPath());
            SchedulerClient client(ctx, scheduler, id.endsWith("server0") ? "tcp://127.0.0.1:19201" : "");
            client.join();
            client.watchWorkThread();
            if (id == "party1/worker1") {  // late by twice the timeout, its work thread moving
                for (int i = 0; i < 40; ++i) client.working(), QTest::qWait(100);
            }
            client.barrier("late");
            client.leave();
        };
        auto a = std::async(std::launch::async, member, QStringLiteral("party1/server0"));
        auto b = std::async(std::launch::async, member, QStringLiteral("party1/worker0"));
        auto c = std::async(std::launch::async, member, QStringLiteral("party1/worker1"));
        a.get(), b.get(), c.get();  // no abort thrown: nobody was found silent
        QCOMPARE(schedulerExit.get(), int(kRoleOk));
    }

    // Heartbeats vouch for the work thread: a node whose work thread stops moving is found like a
    // dead one (named), while one whose thread moves is kept however long it works.
    void aHungWorkThreadIsFoundBySilence() {
        JoinedParty party;
        party.w0.watchWorkThread();
        party.w1.watchWorkThread();  // and never moves again: hung
        const QString reason = party.abortReason([&] { party.w0.working(); });
        QVERIFY2(reason.contains("node party1/worker1 sent no heartbeat for 2 s"), qPrintable(reason));
        QCOMPARE(party.schedulerExit.get(), int(kRoleFailed));
    }

    // A role on a thread of a shared trainer is stopped by shutting its ZeroMQ context down: its
    // heartbeat thread's next call fails (ETERM) and it stops beating, quietly, instead of ending
    // the process (an uncaught exception on a thread would); the scheduler finds the node silent.
    void aShutDownContextEndsTheHeartbeatsNotTheProcess() {
        JoinedParty party;
        party.w1Ctx.zmq.shutdown();  // a stop
        const QString reason = party.abortReason();
        QVERIFY2(reason.contains("node party1/worker1 sent no heartbeat for 2 s"), qPrintable(reason));
        QCOMPARE(party.schedulerExit.get(), int(kRoleFailed));
    }

    void strangerIsNotLetIn() {
        Topology t = smallTopology();
        t.training.replyTimeoutS = 2;
        const Node scheduler = *t.node("party2/scheduler");
        RoleContext schedulerCtx(t, scheduler, QDir::tempPath());
        auto schedulerExit = std::async(std::launch::async, [&] { return runScheduler(schedulerCtx); });
        // party1's worker knocks at party2's scheduler: it gets no table, and the scheduler,
        // whose own members never come, gives up naming them.
        RoleContext strangerCtx(t, *t.node("party1/worker0"), QDir::tempPath());
        SchedulerClient stranger(strangerCtx, scheduler, {});
        QVERIFY_THROWS_EXCEPTION(RoleError, stranger.join());
        QCOMPARE(schedulerExit.get(), int(kRoleFailed));
    }

    // Mode, rule, model and their parameters are agreed at the rendezvous: a worker started with
    // another mode than its server's is refused, and so is everyone waiting with it, with both
    // settings named, instead of pushing what the server cannot combine.
    void roleWithAnotherModeIsRefused() {
        const Topology t = smallTopology();
        Topology other = t;
        other.training.mode = QStringLiteral("local");
        const Node scheduler = *t.node("party1/scheduler");
        RoleContext schedulerCtx(t, scheduler, QDir::tempPath());
        auto schedulerExit = std::async(std::launch::async, [&] { return runScheduler(schedulerCtx); });
        auto member = [&](const Topology& topology, const QString& id) {
            RoleContext ctx(topology, *t.node(id), QDir::tempPath());
            SchedulerClient client(ctx, scheduler, id.endsWith("server0") ? "tcp://127.0.0.1:19201" : "");
            try {
                client.join();
            } catch (const RoleError& e) {
                return QString::fromStdString(e.what());
            }
            client.leave();
            return QString();
        };
        auto server = std::async(std::launch::async, member, t, QStringLiteral("party1/server0"));
        auto same = std::async(std::launch::async, member, t, QStringLiteral("party1/worker0"));
        auto odd = std::async(std::launch::async, member, other, QStringLiteral("party1/worker1"));
        const QString refused = odd.get();
        QVERIFY2(refused.contains("party1/worker1 runs mode local"), qPrintable(refused));
        QVERIFY2(refused.contains("its server party1/server0 runs mode fedavg"), qPrintable(refused));
        QCOMPARE(server.get(), refused);  // the others are told the same, and nobody hangs
        QCOMPARE(same.get(), refused);
        QCOMPARE(schedulerExit.get(), int(kRoleFailed));
    }

    // fault_policy continue: a member that goes silent (gone without a bye) is declared down to
    // the others instead of ending the run; when it registers again it is declared back up. With
    // min_workers above what is left, the scheduler stops the run naming the shortage.
    void silentMemberIsDeclaredDownThenUp() {
        for (const double minWorkers : {1.0, 0.0}) {
            Topology t = smallTopology();
            t.training.faultPolicy = QStringLiteral("continue");
            t.training.heartbeatTimeoutS = 2;
            t.training.params.insert(QStringLiteral("min_workers"), minWorkers);
            const Node scheduler = *t.node("party1/scheduler");
            RoleContext schedulerCtx(t, scheduler, QDir::tempPath());
            auto schedulerExit = std::async(std::launch::async, [&] { return runScheduler(schedulerCtx); });
            RoleContext serverCtx(t, *t.node("party1/server0"), QDir::tempPath()), w0Ctx(t, *t.node("party1/worker0"), QDir::tempPath());
            SchedulerClient server(serverCtx, scheduler, "tcp://127.0.0.1:19201"), w0(w0Ctx, scheduler, {});
            auto lost = std::async(std::launch::async, [&] {
                RoleContext ctx(t, *t.node("party1/worker1"), QDir::tempPath());
                SchedulerClient w1(ctx, scheduler, {});
                w1.join();
            });  // joins, then its client goes without a bye: silent from now on
            auto serverJoin = std::async(std::launch::async, [&] { return server.join(); });
            w0.join();
            serverJoin.get();
            server.watchMembership();  // as a server does (nobody else keeps the changes)
            lost.get();
            if (minWorkers == 0) {  // every worker needed: the run stops, naming why
                QCOMPARE(schedulerExit.get(), int(kRoleFailed));
                QTRY_VERIFY_WITH_TIMEOUT(
                    [&] {
                        try {
                            server.throwIfAborted();
                            return false;
                        } catch (const RoleError& e) {
                            return QString(e.what()).contains("party party1 has 1 of its 2 workers up, and min_workers is 2");
                        }
                    }(),
                    10000);
                continue;
            }
            QList<MembershipChange> changes;
            QTRY_VERIFY_WITH_TIMEOUT(!(changes += server.takeMembershipChanges()).isEmpty(), 10000);
            QCOMPARE(changes.first().node, QStringLiteral("party1/worker1"));
            QVERIFY(!changes.first().up);
            QVERIFY2(changes.first().reason.contains("sent no heartbeat for 2 s"), qPrintable(changes.first().reason));
            server.throwIfAborted();  // not an abort
            RoleContext againCtx(t, *t.node("party1/worker1"), QDir::tempPath());
            SchedulerClient again(againCtx, scheduler, {});  // restarted: it registers again
            QCOMPARE(again.join().size(), 3);
            changes.clear();
            QTRY_VERIFY_WITH_TIMEOUT(!(changes += server.takeMembershipChanges()).isEmpty(), 10000);
            QVERIFY(changes.first().up);
            QCOMPARE(changes.first().reason, QStringLiteral("restarted"));
            QVERIFY(changes.first().restarted);  // a new process: its server sends it what it had again
            for (SchedulerClient* c : {&server, &w0, &again}) c->leave();
            QCOMPARE(schedulerExit.get(), int(kRoleOk));
        }
    }

    // fault_policy continue: a scheduler that dies after some members registered and before the
    // table takes their registrations along; they say them again until a table comes, so that its
    // successor hears of every member and the rendezvous completes.
    void aSchedulerThatDiesBeforeTheTableLeavesNobodyWaiting() {
        Topology t = smallTopology();
        t.training.faultPolicy = QStringLiteral("continue");
        const Node scheduler = *t.node("party1/scheduler");
        auto first = std::make_unique<RoleContext>(t, scheduler, QDir::tempPath());
        auto firstExit = std::async(std::launch::async, [&] { return runScheduler(*first); });
        std::vector<std::unique_ptr<RoleContext>> contexts;
        std::vector<std::unique_ptr<SchedulerClient>> members;
        std::vector<std::future<QList<PeerInfo>>> joins;
        for (const QString id : {"party1/server0", "party1/worker0", "party1/worker1"}) {
            contexts.push_back(std::make_unique<RoleContext>(t, *t.node(id), QDir::tempPath()));
            members.push_back(
                std::make_unique<SchedulerClient>(*contexts.back(), scheduler, id.endsWith("server0") ? "tcp://127.0.0.1:19201" : ""));
        }
        const auto byeAll = qScopeGuard([&] {
            for (auto& m : members) m->leave();
        });
        for (int i = 0; i < 2; ++i) joins.push_back(std::async(std::launch::async, [&m = members[i]] { return m->join(); }));
        QTest::qWait(500);  // both registered with the first, which waits for the third

        first->zmq.shutdown();
        QVERIFY_THROWS_EXCEPTION(zmq::error_t, firstExit.get());
        first.reset();
        RoleContext second(t, scheduler, QDir::tempPath());
        auto secondExit = std::async(std::launch::async, [&] { return runScheduler(second); });
        joins.push_back(std::async(std::launch::async, [&m = members[2]] { return m->join(); }));
        for (auto& j : joins) {
            try {
                QCOMPARE(j.get().size(), 3);
            } catch (const RoleError& e) {  // (the registrations said once: no table within 10 s)
                QFAIL(e.what());
            }
        }
        for (auto& m : members) m->leave();
        QCOMPARE(secondExit.get(), int(kRoleOk));
    }

    // fault_policy continue, a global server with a standby host: the global scheduler keeps its
    // recovery point and confirms it; the server's next process (elsewhere: another endpoint) gets
    // it with the table, and the party servers are told where it listens now.
    void aGlobalServersRecoveryPointGoesToItsNextProcess() {
        const Topology t = standbyTopology();
        const Node scheduler = *t.node("central/global_scheduler");
        RoleContext schedulerCtx(t, scheduler, QDir::tempPath());
        auto schedulerExit = std::async(std::launch::async, [&] { return runScheduler(schedulerCtx); });
        const QStringList& ids = kGlobalMembers;
        std::vector<std::unique_ptr<RoleContext>> contexts;
        std::vector<std::unique_ptr<SchedulerClient>> members;
        QCOMPARE(joinGlobalMembers(t, scheduler, contexts, members), QList<qsizetype>(4, 4));
        QString error;
        QVERIFY(!members[0]->recoveryPoint(1, &error) && error.isEmpty());  // a first start has none
        members[1]->watchMembership();
        const size_t floats = shardMapOf(t.training, 1).shardSize(0);
        std::vector<float> model(floats);
        for (size_t i = 0; i < floats; ++i) model[i] = float(i % 97) * 0.01f;
        QVERIFY(members[0]->keepCopy(recoveryPointMessage(Checkpoint{2, 2, model, {}}), 2));

        // Its host is lost: it falls silent and is declared down. (Without CURVE, as here, a node's
        // routing id is its name, and the scheduler's socket keeps a name for the connection that
        // had it until that one is gone: the next process comes once the first is down, as it would.)
        members[0].reset();
        contexts[0].reset();
        QList<MembershipChange> changes;
        const auto saidDown = [&] {
            changes += members[1]->takeMembershipChanges();
            return std::any_of(changes.begin(), changes.end(), [&](const MembershipChange& c) { return c.node == ids[0] && !c.up; });
        };
        QTRY_VERIFY_WITH_TIMEOUT(saidDown(), 10000);
        changes.clear();
        RoleContext movedCtx(t, *t.node(ids[0]), QDir::tempPath());
        SchedulerClient moved(movedCtx, scheduler, "tcp://127.0.0.1:19999");
        QCOMPARE(moved.join().size(), 4);
        const auto recovered = moved.recoveryPoint(floats, &error);
        QVERIFY2(recovered, qPrintable(error));
        QCOMPARE(recovered->round, qint64(2));
        QVERIFY(recovered->model == model);
        QTRY_VERIFY_WITH_TIMEOUT(!(changes += members[1]->takeMembershipChanges()).isEmpty(), 5000);
        QCOMPARE(changes.front().node, ids[0]);
        QVERIFY(changes.front().up && changes.front().restarted);
        QCOMPARE(changes.front().endpoint, QStringLiteral("tcp://127.0.0.1:19999"));
        moved.leave();
        for (auto& m : members)
            if (m) m->leave();
        QCOMPARE(schedulerExit.get(), int(kRoleOk));
    }

    // A global scheduler restarted after it kept the server's recovery point starts with none: the
    // server, asked to register again, sends it the newest one, which the server's next process
    // (its host lost) then gets with the table.
    void aRestartedSchedulerGetsTheNewestRecoveryPointAgain() {
        const Topology t = standbyTopology();
        const Node scheduler = *t.node("central/global_scheduler");
        auto first = std::make_unique<RoleContext>(t, scheduler, QDir::tempPath());
        auto firstExit = std::async(std::launch::async, [&] { return runScheduler(*first); });
        const QStringList& ids = kGlobalMembers;
        std::vector<std::unique_ptr<RoleContext>> contexts;
        std::vector<std::unique_ptr<SchedulerClient>> members;
        QCOMPARE(joinGlobalMembers(t, scheduler, contexts, members), QList<qsizetype>(4, 4));
        members[1]->watchMembership();
        const size_t floats = shardMapOf(t.training, 1).shardSize(0);
        std::vector<float> model(floats);
        for (size_t i = 0; i < floats; ++i) model[i] = float(i % 89) * 0.02f;
        QVERIFY(members[0]->keepCopy(recoveryPointMessage(Checkpoint{3, 3, model, {}}), 3));

        first->zmq.shutdown();  // the scheduler dies, and the copy it kept with it
        QVERIFY_THROWS_EXCEPTION(zmq::error_t, firstExit.get());
        first.reset();
        QTest::qWait(1500);
        RoleContext second(t, scheduler, QDir::tempPath());
        auto secondExit = std::async(std::launch::async, [&] { return runScheduler(second); });
        const auto byeAll = qScopeGuard([&] {
            for (auto& m : members)
                if (m) m->leave();
        });
        QList<MembershipChange> changes;
        const auto heard = [&](bool up) {
            changes += members[1]->takeMembershipChanges();
            return std::any_of(changes.begin(), changes.end(), [&](const MembershipChange& c) { return c.node == ids[0] && c.up == up; });
        };
        QTRY_VERIFY_WITH_TIMEOUT(heard(true), 10000);  // the server registered with the new scheduler,
        QTRY_COMPARE_WITH_TIMEOUT(members[0]->copyKept(), qint64(3), 10000);  // which says it keeps the copy

        // Then its host is lost; its next process gets the copy the new scheduler was sent.
        members[0].reset();
        contexts[0].reset();
        QTRY_VERIFY_WITH_TIMEOUT(heard(false), 10000);
        RoleContext movedCtx(t, *t.node(ids[0]), QDir::tempPath());
        SchedulerClient moved(movedCtx, scheduler, "tcp://127.0.0.1:19998");
        QCOMPARE(moved.join().size(), 4);
        QString error;
        const auto recovered = moved.recoveryPoint(floats, &error);
        QVERIFY2(recovered, qPrintable(error.isEmpty() ? QStringLiteral("the table came without a recovery point") : error));
        QCOMPARE(recovered->version, qint64(3));
        QVERIFY(recovered->model == model);
        moved.leave();
        for (auto& m : members)
            if (m) m->leave();
        QCOMPARE(secondExit.get(), int(kRoleOk));
    }

    // Which process of a node is listened to: a registration replaces the current one unless it
    // was placed earlier (the agent restarting it where it was places it the same); any other
    // message must come from the current one.
    void theProcessPlacedLatestIsListenedTo() {
        using V = SchedulerIncarnations::Verdict;
        SchedulerIncarnations table;
        QCOMPARE(table.message("n", 1), V::Current);  // unknown: a restarted scheduler asks it to register
        table.heardOn("n", "route");
        QCOMPARE(table.message("n", 2), V::Current);  // still unknown: hearing it made nobody current
        QVERIFY(table.route("n").isEmpty());
        QCOMPARE(table.registration("n", 1, 100), V::Replaces);
        QCOMPARE(table.registration("n", 1, 100), V::Current);
        QCOMPARE(table.registration("n", 2, 100), V::Replaces);
        QCOMPARE(table.message("n", 1), V::Superseded);
        QCOMPARE(table.message("n", 2), V::Current);
        QCOMPARE(table.registration("n", 3, 99), V::Superseded);
        QCOMPARE(table.message("n", 2), V::Current);
        QCOMPARE(table.message("m", 5), V::Current);
    }

    // Two processes of one node are connected at once, both under its key (its host was cut off,
    // it was started on another, the cut healed). The one placed earlier is told it was
    // superseded, on its own connection, and what the scheduler says to the node still reaches
    // the one it listens to, though the other spoke last.
    void aProcessOfANodeThatAnotherReplacedIsToldToStop() {
        const Topology t = smallTopology();
        const Node scheduler = *t.node("party1/scheduler");
        const CurveKeyPair schedulerKeys = CurveKeyPair::generate();
        PeerKeys peers;
        QHash<QByteArray, QString> members;
        QHash<QString, CurveKeyPair> keys;
        for (const QString id : {"party1/server0", "party1/worker0", "party1/worker1"}) {
            keys.insert(id, CurveKeyPair::generate());
            members.insert(keys[id].publicKey, id);
            peers.insert(id, keys[id].publicKey);
        }
        peers.insert(scheduler.id, schedulerKeys.publicKey);
        Channel::setRunIdentity(schedulerKeys, peers);  // the scheduler's, as in its own process
        const auto plain = qScopeGuard([] { Channel::setRunIdentity(CurveKeyPair(), PeerKeys()); });
        RoleContext schedulerCtx(t, scheduler, QDir::tempPath());
        CurveGuard guard(schedulerCtx.zmq, members, scheduler.id);
        auto schedulerExit = std::async(std::launch::async, [&] { return runScheduler(schedulerCtx); });

        zmq::context_t zmq;
        const auto process = [&](const QString& id) {
            return std::make_unique<Channel>(
                Channel::dealer(zmq, id, t.endpoint(scheduler), scheduler.id, CurveConfig{keys[id], schedulerKeys.publicKey}));
        };
        const auto say = [](Channel& c, const QString& type, qint64 incarnation, QCborMap fields = {}) {
            fields.insert(QStringLiteral("incarnation"), incarnation);
            c.send(Message(type, fields));
        };
        const auto registration = [&](const QString& id, qint64 placement) {
            return QCborMap{{QStringLiteral("role"), roleName(t.node(id)->kind)},
                            {QStringLiteral("endpoint"), id.contains("server") ? QStringLiteral("tcp://127.0.0.1:19201") : QString()},
                            {QStringLiteral("settings"), t.training.agreementText()},
                            {QStringLiteral("placement"), placement}};
        };
        const auto next = [](Channel& c, const QString& type) -> std::optional<Message> {
            for (int i = 0; i < 50; ++i)
                if (auto e = c.receive(std::chrono::milliseconds(100)); e && e->message.type == type) return std::move(e->message);
            return std::nullopt;
        };
        auto server = process("party1/server0"), w0 = process("party1/worker0"), w1 = process("party1/worker1");
        say(*server, message::kRegister, 1, registration("party1/server0", 100));
        say(*w0, message::kRegister, 2, registration("party1/worker0", 100));
        say(*w1, message::kRegister, 3, registration("party1/worker1", 100));
        QVERIFY(next(*server, message::kTable) && next(*w0, message::kTable) && next(*w1, message::kTable));

        // The stale process heartbeats between the others' barriers: it is told to stop, and the
        // barrier's release still reaches the process listened to.
        auto stale = process("party1/server0");
        say(*server, message::kBarrier, 1, {{QStringLiteral("name"), QStringLiteral("b")}});
        say(*w0, message::kBarrier, 2, {{QStringLiteral("name"), QStringLiteral("b")}});
        say(*stale, message::kHeartbeat, 9);
        const std::optional<Message> told = next(*stale, message::kSuperseded);
        QVERIFY(told);
        QVERIFY2(told->string("reason").contains("placed later, registered from tcp://127.0.0.1:19201"),
                 qPrintable(told->string("reason")));
        say(*w1, message::kBarrier, 3, {{QStringLiteral("name"), QStringLiteral("b")}});
        QVERIFY(next(*server, message::kBarrierOk));
        QVERIFY(next(*w0, message::kBarrierOk) && next(*w1, message::kBarrierOk));
        say(*stale, message::kRegister, 9, registration("party1/server0", 50));  // placed earlier: refused
        QVERIFY(next(*stale, message::kSuperseded));

        // A process placed later replaces the current one, which is then told to stop.
        auto moved = process("party1/server0");
        say(*moved, message::kRegister, 10, registration("party1/server0", 200));
        QVERIFY(next(*moved, message::kTable));
        say(*server, message::kHeartbeat, 1);
        QVERIFY(next(*server, message::kSuperseded));
        say(*moved, message::kBye, 10), say(*w0, message::kBye, 2), say(*w1, message::kBye, 3);
        QCOMPARE(schedulerExit.get(), int(kRoleOk));
    }

    // fault_policy continue: a scheduler that dies mid-run (its socket gone) and is started again
    // learns it was restarted from a member's heartbeat: every member registers again, nobody is
    // declared down or aborted, and the new one ends cleanly when they all say bye.
    void aRestartedSchedulerHasItsMembersRegisterAgain() {
        Topology t = smallTopology();
        t.training.faultPolicy = QStringLiteral("continue");
        t.training.heartbeatTimeoutS = 3;
        const Node scheduler = *t.node("party1/scheduler");
        auto first = std::make_unique<RoleContext>(t, scheduler, QDir::tempPath());
        auto firstExit = std::async(std::launch::async, [&] { return runScheduler(*first); });
        std::vector<std::unique_ptr<RoleContext>> contexts;
        std::vector<std::unique_ptr<SchedulerClient>> members;
        const QStringList ids{"party1/server0", "party1/worker0", "party1/worker1"};
        for (const QString& id : ids) {
            contexts.push_back(std::make_unique<RoleContext>(t, *t.node(id), QDir::tempPath()));
            members.push_back(
                std::make_unique<SchedulerClient>(*contexts.back(), scheduler, id.endsWith("server0") ? "tcp://127.0.0.1:19201" : ""));
        }
        std::vector<std::future<QList<PeerInfo>>> joins;
        for (auto& m : members) joins.push_back(std::async(std::launch::async, [&m] { return m->join(); }));
        for (auto& j : joins) QCOMPARE(j.get().size(), 3);
        members.front()->watchMembership();

        first->zmq.shutdown();  // its death: the socket goes, the members' heartbeats find nobody
        QVERIFY_THROWS_EXCEPTION(zmq::error_t, firstExit.get());
        first.reset();  // (its port is free once its context is gone)
        QTest::qWait(1500);
        RoleContext second(t, scheduler, QDir::tempPath());
        auto secondExit = std::async(std::launch::async, [&] { return runScheduler(second); });
        const auto byeAll = qScopeGuard([&] {
            for (auto& m : members) m->leave();
        });  // (a failed check ends it too)
        // The workers register again: the server is told each is up (rejoined, not restarted).
        const QSet<QString> workers{"party1/worker0", "party1/worker1"};
        QSet<QString> rejoined;
        bool onlyRejoins = true;
        auto allRejoined = [&] {
            for (const MembershipChange& c : members.front()->takeMembershipChanges()) {
                onlyRejoins = onlyRejoins && c.up && !c.restarted;
                rejoined.insert(c.node);
            }
            return rejoined == workers;
        };
        QTRY_VERIFY_WITH_TIMEOUT(allRejoined(), 10000);
        QVERIFY(onlyRejoins);
        QTest::qWait(4000);  // past heartbeat_timeout_s: nobody is found silent
        for (auto& m : members) m->throwIfAborted();
        QVERIFY(members.front()->takeMembershipChanges().isEmpty());
        for (auto& m : members) m->leave();
        QCOMPARE(secondExit.get(), int(kRoleOk));
    }
};

QTEST_GUILESS_MAIN(SchedulerTest)
#include "tst_scheduler.moc"
