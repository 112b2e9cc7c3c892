// A scheduler started again mid-run (fault_policy continue) knows nothing of whom its predecessor
// declared down: the members that register again name them. One not back yet is down for the new
// scheduler too, and is told that it was as it comes back (a collective party's member, told so,
// leaves the run, where it would wait for a ring that went on without it); one back already is
// told at once. A member names only its own party's nodes, and its own name is not taken; a
// scheduler that was not restarted takes no list.
#include "Channel.h"
#include "SchedulerRole.h"
#include "SmallTopology.h"
#include "Vocabulary.h"

#include <QtTest>
#include <future>
#include <optional>

using namespace hips;

namespace {

// A member's process, spoken for message by message: the test decides who says what when.
struct RawMember {
    QString id;
    Channel channel;
    qint64 incarnation;

    void say(const QString& type, QCborMap fields = {}) {
        fields.insert(QStringLiteral("incarnation"), incarnation);
        channel.send(Message(type, fields));
    }
    // The next message of `type` (about `node`, given one; others are passed over), within `ms`.
    std::optional<Message> next(const QString& type, const QString& node = {}, int ms = 5000) {
        for (int i = 0; i < ms / 100; ++i)
            if (auto e = channel.receive(std::chrono::milliseconds(100));
                e && e->message.type == type && (node.isEmpty() || e->message.string(QStringLiteral("node")) == node))
                return std::move(e->message);
        return std::nullopt;
    }
    // What a member does when a restarted scheduler hears its heartbeat: registers again, naming
    // whom it was told is down.
    bool rejoin(const Topology& t, const QStringList& down) {
        say(message::kHeartbeat);
        if (!next(message::kRejoin)) return false;
        say(message::kRegister, {{QStringLiteral("role"), roleName(t.node(id)->kind)},
                                 {QStringLiteral("endpoint"), id.contains("server") ? QStringLiteral("tcp://127.0.0.1:19201") : QString()},
                                 {QStringLiteral("settings"), t.training.agreementText()},
                                 {QStringLiteral("rejoin"), true},
                                 {QStringLiteral("placement"), 100},
                                 {QStringLiteral("down"), QCborArray::fromStringList(down)}});
        return true;
    }
};

}  // namespace

// party1's scheduler (fault_policy continue) and its three members as raw processes.
struct Party1 {
    Topology t = [] {
        Topology t = hips::test::smallTopology();
        t.training.faultPolicy = QStringLiteral("continue");
        t.training.heartbeatTimeoutS = 30;  // (nobody is found silent in these tests)
        return t;
    }();
    const Node scheduler = *t.node("party1/scheduler");
    RoleContext schedulerCtx{t, scheduler, QDir::tempPath()};
    std::future<int> schedulerExit = std::async(std::launch::async, [this] { return runScheduler(schedulerCtx); });
    zmq::context_t zmq;
    RawMember server = member("party1/server0", 1), w0 = member("party1/worker0", 2), w1 = member("party1/worker1", 3);

    RawMember member(const QString& id, qint64 incarnation) {
        return RawMember{id, Channel::dealer(zmq, id, t.endpoint(scheduler), scheduler.id), incarnation};
    }
    // Every member says bye (also when a check failed: the scheduler then ends at once).
    int end() {
        for (RawMember* m : {&server, &w0, &w1}) m->say(message::kBye);
        return schedulerExit.get();
    }
    ~Party1() {
        if (schedulerExit.valid()) end();
    }
};

class SchedulerRejoinTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void membersSayWhomThePredecessorDeclaredDown() {
        Party1 p;
        // worker0 names worker1 (not heard from yet), itself, and a node of another party; the
        // server names worker0, back already, who is told at once.
        QVERIFY(p.w0.rejoin(p.t, {"party1/worker1", "party1/worker0", "party2/worker0"}));
        QVERIFY(p.server.rejoin(p.t, {"party1/worker0"}));
        const std::optional<Message> toW0 = p.w0.next(message::kMemberDown, "party1/worker0");
        QVERIFY(toW0);  // (and nothing before of its own naming itself: that was not taken)
        QVERIFY2(toW0->string("reason").endsWith("as party1/server0 was told"), qPrintable(toW0->string("reason")));
        // worker1 comes back: told that it had been declared down, and the others that it is up.
        QVERIFY(p.w1.rejoin(p.t, {}));
        const std::optional<Message> toW1 = p.w1.next(message::kMemberDown, "party1/worker1");
        QVERIFY(toW1);
        QVERIFY2(toW1->string("reason").contains("party1/scheduler declared it down before it was restarted, as party1/worker0 was told"),
                 qPrintable(toW1->string("reason")));
        const std::optional<Message> toServer = p.server.next(message::kMemberUp, "party1/worker1");
        QVERIFY(toServer);
        QCOMPARE(toServer->string("reason"), QStringLiteral("heartbeats again"));
        QCOMPARE(p.end(), int(kRoleOk));
    }

    // A scheduler that was not restarted takes no such list: a member could have another told to
    // leave the run.
    void aSchedulerNotRestartedTakesNoList() {
        Party1 p;
        for (RawMember* m : {&p.server, &p.w0, &p.w1})
            m->say(message::kRegister,
                   {{QStringLiteral("role"), roleName(p.t.node(m->id)->kind)},
                    {QStringLiteral("endpoint"), m->id.contains("server") ? QStringLiteral("tcp://127.0.0.1:19201") : QString()},
                    {QStringLiteral("settings"), p.t.training.agreementText()},
                    {QStringLiteral("placement"), 100}});
        for (RawMember* m : {&p.server, &p.w0, &p.w1}) QVERIFY(m->next(message::kTable));
        p.w0.say(message::kRegister, {{QStringLiteral("role"), QStringLiteral("worker")},
                                      {QStringLiteral("settings"), p.t.training.agreementText()},
                                      {QStringLiteral("rejoin"), true},
                                      {QStringLiteral("placement"), 100},
                                      {QStringLiteral("down"), QCborArray{QStringLiteral("party1/worker1")}}});
        QVERIFY(!p.w1.next(message::kMemberDown, "party1/worker1", 2000));
        QCOMPARE(p.end(), int(kRoleOk));
    }
};

QTEST_GUILESS_MAIN(SchedulerRejoinTest)
#include "tst_schedulerrejoin.moc"
