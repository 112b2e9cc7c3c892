// RunController's parts on their own: the metrics feed (rounds taken once, traffic carried across
// restarts and resumes, membership told once), the process table (each agent word's state) and
// the launch plan (schedulers first, every node its own key, all the public ones).
#include "AgentClient.h"
#include "AgentFleet.h"
#include "ClockOffset.h"
#include "ClockStamp.h"
#include "ControlProtocol.h"
#include "LabelSpaceCheck.h"
#include "LaunchPlan.h"
#include "MetricsFeed.h"
#include "ProcessTable.h"
#include "RunRecorder.h"
#include "RunStore.h"
#include "TopologyReader.h"

#include <QDeadlineTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QtTest>

#include <thread>

using namespace hips;

namespace {

const QString kSmall = QStringLiteral(HIPS_SOURCE_DIR "/tests/data/topologies/small.json");

QByteArray record(const QJsonObject& o) {
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

QJsonObject traffic(const QString& node, double sent, double received) {
    return {{"kind", "traffic"},
            {"node", node},
            {"links", QJsonArray{QJsonObject{{"peer", "central/global_server0"}, {"sent", sent}, {"received", received}}}}};
}

double sentOf(const QJsonObject& trafficRecord) {
    return trafficRecord["links"].toArray().first().toObject()["sent"].toDouble();
}

Topology small() {
    const TopologyLoad load = TopologyReader::readFile(kSmall);
    if (!load.ok()) qFatal("%s", qPrintable(load.errorText()));
    return *load.topology;
}

// A fleet of agents the test plays (routers on loopback, no CURVE): added, and started again.
class PlayedFleet : public AgentFleet {
public:
    PlayedFleet(const Topology& t) : AgentFleet(t, QString(), false) { m_savesRoster = false; }
    void start() override {}
    void shutdown() override {}
    void add(const QString& host, Channel& agent) {
        addAgent(host, host, QString::fromStdString(agent.socket().get(zmq::sockopt::last_endpoint)), CurveConfig{}, false);
    }
    void startedAgain(const QString& host, Channel& agent) {
        retireAgent(host);
        add(host, agent);
    }
};

// Answers the hello `agent` got, as a compatible agent.
bool answerHello(Channel& agent) {
    const std::optional<Envelope> hello = agent.receive(std::chrono::seconds(10));
    if (!hello || hello->message.type != QLatin1String("hello")) return false;
    return agent.send(hello->peer, Message(QStringLiteral("hello_ok"), {{QStringLiteral("compatible"), true}}));
}

}  // namespace

class RunPartsTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void theFeedTakesEachRoundsEvaluationOnce() {
        MetricsFeed feed;
        const QJsonObject eval{{"kind", "eval"}, {"node", "central/master_worker"}, {"round", 3}, {"test_acc", 0.8}};
        QVERIFY(feed.take(record(eval)));
        QVERIFY(!feed.take(record(eval)));  // a restarted master's repeat
        QJsonObject next = eval;
        next["round"] = 4;
        QVERIFY(feed.take(record(next)));
        // Aggregates are once per global server, not once per round.
        const QJsonObject a{{"kind", "aggregate"}, {"node", "central/global_server0"}, {"round", 3}};
        QJsonObject b = a;
        b["node"] = "central/global_server1";
        QVERIFY(feed.take(record(a)) && feed.take(record(b)) && !feed.take(record(a)));
        // A round's draw is said once, though a restarted global server closes the round again.
        const QJsonObject draw{{"kind", "sample"}, {"node", "central/global_server0"}, {"round", 3}};
        QVERIFY(feed.take(record(draw)) && !feed.take(record(draw)));
        // Other kinds are never repeats, and their line is kept as sent.
        const QByteArray train = record({{"kind", "train"}, {"node", "party1/worker0"}, {"round", 3}});
        QCOMPARE(feed.take(train)->line, train);
        QCOMPARE(feed.take(train)->line, train);
    }

    // A record's time is moved from its host's clock onto the controller's, in the line kept too.
    void theFeedPlacesRecordsOnTheControllersClock() {
        MetricsFeed feed;
        const QByteArray train = record({{"kind", "train"}, {"node", "party1/worker0"}, {"round", 3}, {"t", 1000.25}});
        const auto moved = feed.take(train, 30);
        QCOMPARE(moved->record["t"].toDouble(), 1030.25);
        QCOMPARE(QJsonDocument::fromJson(moved->line).object()["t"].toDouble(), 1030.25);
        QCOMPARE(feed.take(train, 0)->line, train);  // a host in step: as it came
        // A traffic record carried across a restart is moved as well.
        QVERIFY(feed.take(record(traffic("party1/server0", 100, 10))));
        feed.processEnded("party1/server0");
        QJsonObject later = traffic("party1/server0", 5, 1);
        later["t"] = 2000.0;
        const auto carried = feed.take(record(later), -2.5);
        QCOMPARE(sentOf(carried->record), 105.0);
        QCOMPARE(QJsonDocument::fromJson(carried->line).object()["t"].toDouble(), 1997.5);
    }

    // The offset comes from the quickest exchange of the last ones, and is applied only where it
    // is more than the measure's error and the clocks' step apart.
    void theClockMeasureTakesItsQuickestExchange() {
        ClockOffset c;
        QVERIFY(!c.measured());
        QCOMPARE(c.correction(), 0.0);
        c.sample(1000, 970.1, 1001);  // a host 30 s behind, seen through a slow exchange: 30.4 ± 0.5
        QCOMPARE(c.estimate(), 30.4);
        QCOMPARE(c.uncertainty(), 0.5);
        c.sample(1002, 972.001, 1002.002);  // a quick one: 30.0 ± 0.001
        QVERIFY(qAbs(c.correction() - 30.0) < 1e-9);
        c.sample(1005, 900, 1004);  // one that ran backwards (it would be the quickest): no measure
        c.sample(1007, 1007 + 2 * ClockOffset::kFurthest, 1007);  // nor a clock no clock is
        QVERIFY(qAbs(c.estimate() - 30.0) < 1e-9);
        ClockOffset slow;
        slow.sample(1006, 900, 1006 + ClockOffset::kLongestExchange + 1);  // nor one past kLongestExchange
        QVERIFY(!slow.measured());
        ClockOffset unset;
        unset.sample(1.8e9, 0.5, 1.8e9 + 0.002);  // a host that reads 1970 is a clock, far off
        QVERIFY(qAbs(unset.correction() - (1.8e9 + 0.001 - 0.5)) < 1e-3);
        // The quick one is forgotten after kKept others: a clock set anew shows.
        for (size_t i = 0; i < ClockOffset::kKept; ++i) c.sample(2000 + double(i), 1995 + double(i), 2000.01 + double(i));
        QVERIFY(qAbs(c.estimate() - 5.005) < 1e-9);

        ClockOffset inStep, near, unsure;
        inStep.sample(100, 99.99, 100.002);  // 11 ms apart: within kInStep
        QCOMPARE(inStep.correction(), 0.0);
        near.sample(100, 99.95, 100.002);  // 51 ms apart, measured to 1 ms
        QVERIFY(qAbs(near.correction() - 0.051) < 1e-9);
        unsure.sample(100, 100.2, 101);  // 0.3 s, but measured to 0.5 s
        QCOMPARE(unsure.correction(), 0.0);
    }

    // The agent's answers to a hello and to each ping carry its clock: a host 30 s behind this one
    // is measured so from the hello on (its events come right after), and each pong measures it
    // again. An older agent's answers carry no clock: its records stay as stamped.
    void theClientMeasuresTheAgentsClock() {
        zmq::context_t zmq(1);
        Channel agent = Channel::router(zmq, QStringLiteral("agent"), QStringLiteral("tcp://127.0.0.1:*"));
        AgentClient client(QStringLiteral("far"), QString::fromStdString(agent.socket().get(zmq::sockopt::last_endpoint)));
        QSignalSpy ready(&client, &AgentClient::ready);
        const auto behind = [](double s) { return double(QDateTime::currentMSecsSinceEpoch()) / 1000.0 - s; };
        const std::optional<Envelope> hello = agent.receive(std::chrono::seconds(10));
        QVERIFY(hello && hello->message.type == QLatin1String("hello"));
        std::this_thread::sleep_for(std::chrono::seconds(1));  // a slow answer: measured to within half a second or worse
        Message ok(QStringLiteral("hello_ok"), {{QStringLiteral("compatible"), true}});
        control::answerClock(ok, hello->message, behind(30));
        agent.send(hello->peer, std::move(ok));
        QVERIFY(ready.wait(10000));
        QVERIFY(client.clock().uncertainty() >= 0.5);
        QVERIFY2(qAbs(client.clock().correction() - 30) <= client.clock().uncertainty() + 0.002,
                 qPrintable(QString::number(client.clock().correction())));
        // The next ping, answered at once by a clock set back 10 s more: the quicker measure wins.
        std::optional<Envelope> ping;
        for (QDeadlineTimer wait(10000); !wait.hasExpired() && !(ping && ping->message.type == QLatin1String("ping"));) {
            QCoreApplication::processEvents(QEventLoop::AllEvents, 50);  // (the client pings from this thread's timer)
            ping = agent.receive(std::chrono::milliseconds(50));
        }
        QVERIFY(ping && ping->message.type == QLatin1String("ping"));
        Message pong(QStringLiteral("pong"));
        control::answerClock(pong, ping->message, behind(40));
        agent.send(ping->peer, std::move(pong));
        QTRY_VERIFY_WITH_TIMEOUT(client.clock().uncertainty() < 0.5, 10000);
        QVERIFY2(qAbs(client.clock().correction() - 40) <= client.clock().uncertainty() + 0.002,
                 qPrintable(QString::number(client.clock().correction())));

        Channel older = Channel::router(zmq, QStringLiteral("agent"), QStringLiteral("tcp://127.0.0.1:*"));
        AgentClient olderClient(QStringLiteral("old"), QString::fromStdString(older.socket().get(zmq::sockopt::last_endpoint)));
        QSignalSpy olderReady(&olderClient, &AgentClient::ready);
        const std::optional<Envelope> olderHello = older.receive(std::chrono::seconds(10));
        QVERIFY(olderHello && olderHello->message.fields.value(control::kSentAt).isDouble());
        older.send(olderHello->peer, Message(QStringLiteral("hello_ok"), {{QStringLiteral("compatible"), true}}));
        QVERIFY(olderReady.wait(10000));
        QVERIFY(!olderClient.clock().measured());
        QCOMPARE(olderClient.clock().correction(), 0.0);
    }

    void trafficGoesOnAcrossARestart() {
        MetricsFeed feed;
        QCOMPARE(sentOf(feed.take(record(traffic("party1/server0", 100, 10)))->record), 100.0);
        feed.processEnded("party1/server0");  // its next process counts from zero
        const auto after = feed.take(record(traffic("party1/server0", 5, 1)));
        QCOMPARE(sentOf(after->record), 105.0);
        QVERIFY(after->line.contains("105"));  // the line kept is the carried record
        feed.processEnded("party1/server0");
        QCOMPARE(sentOf(feed.take(record(traffic("party1/server0", 2, 0)))->record), 107.0);
        // A link the new process has not used yet keeps what was counted on it.
        const auto silent = feed.take(record({{"kind", "traffic"}, {"node", "party1/server0"}, {"links", QJsonArray{}}}));
        QCOMPARE(silent->record["links"].toArray().size(), 1);
        QCOMPARE(sentOf(silent->record), 105.0);  // (what its two predecessors counted)
    }

    void aResumeCarriesTheCheckpointsCountsAndRounds() {
        MetricsFeed feed;
        feed.resumeFrom(traffic("party2/server0", 40, 4));
        feed.resumeFrom({{"kind", "eval"}, {"round", 5}});
        QCOMPARE(sentOf(feed.take(record(traffic("party2/server0", 1, 0)))->record), 41.0);
        QVERIFY(!feed.take(record({{"kind", "eval"}, {"round", 5}})));
        // Attached, the processes go on counting: nothing is added, but a restart carries their last.
        MetricsFeed attached;
        attached.attachTo(traffic("party2/server0", 40, 4));
        QCOMPARE(sentOf(attached.take(record(traffic("party2/server0", 41, 4)))->record), 41.0);
        attached.processEnded("party2/server0");
        QCOMPARE(sentOf(attached.take(record(traffic("party2/server0", 1, 0)))->record), 42.0);
        // A record that carried an earlier process's counts says so: a controller that attaches
        // later adds them on too (the live process counts its own from zero).
        const auto carriedOn = attached.take(record(traffic("party2/server0", 3, 0)));
        QCOMPARE(sentOf(carriedOn->record), 44.0);
        MetricsFeed later;
        later.attachTo(carriedOn->record);
        QCOMPARE(sentOf(later.take(record(traffic("party2/server0", 5, 0)))->record), 46.0);
        later.attachTo(traffic("party2/server0", 7, 0));  // (a record without a carry: nothing to add)
        QCOMPARE(sentOf(later.take(record(traffic("party2/server0", 8, 0)))->record), 8.0);
    }

    // A process restarted just before its controller died: the controller that attaches never
    // hears of its end, but the new process's records name another process than the history's
    // last, so the last one's counts are carried on (they were lost, and the totals went down).
    void aRestartTheAttachedControllerNeverHeardOfIsCarried() {
        const auto of = [](double sent, const QString& instance) {
            QJsonObject r = traffic("party2/server0", sent, 0);
            r["instance"] = instance;
            return r;
        };
        MetricsFeed attached;
        QJsonObject last = of(40, "a1");
        last["carried"] = QJsonArray{QJsonObject{{"peer", "central/global_server0"}, {"sent", 10.0}, {"received", 0.0}}};
        last["links"] = QJsonArray{QJsonObject{{"peer", "central/global_server0"}, {"sent", 40.0}, {"received", 0.0}}};  // (10 carried in)
        attached.attachTo(last);
        QCOMPARE(sentOf(attached.take(record(of(2, "b2")))->record), 42.0);  // b2's 2 on a1's 40 (10 of them a1's predecessor's)
        QCOMPARE(sentOf(attached.take(record(of(5, "b2")))->record), 45.0);  // the same process again: nothing more
        // Heard of (processEnded) and then seen in the records too: carried once.
        attached.processEnded("party2/server0");
        QCOMPARE(sentOf(attached.take(record(of(1, "c3")))->record), 46.0);
        QCOMPARE(sentOf(attached.take(record(of(4, "c3")))->record), 49.0);
        // Records that name no process (older roles') are taken as before.
        MetricsFeed older;
        older.attachTo(traffic("party2/server0", 40, 0));
        QCOMPARE(sentOf(older.take(record(of(2, "b2")))->record), 2.0);
    }

    void aMembersChangeIsToldOnce() {
        MetricsFeed feed;
        auto membership = [](const QString& scheduler, const QString& state) {
            return record(
                {{"kind", "membership"}, {"node", scheduler}, {"member", "party2/server0"}, {"state", state}, {"reason", "silent 3 s"}});
        };
        const auto first = feed.take(membership("party2/scheduler", "down"));
        QCOMPARE(first->member, QStringLiteral("party2/server0"));
        QCOMPARE(first->change, QStringLiteral("party2/server0 declared down: silent 3 s"));
        QVERIFY(feed.take(membership("central/global_scheduler", "down"))->change.isEmpty());  // the other scheduler's word
        QVERIFY(!feed.take(membership("party2/scheduler", "up"))->change.isEmpty());
        MetricsFeed attached;  // a state the history holds is known, not news
        attached.attachTo(QJsonDocument::fromJson(membership("party2/scheduler", "down")).object());
        QVERIFY(attached.take(membership("central/global_scheduler", "down"))->change.isEmpty());
    }

    void processesFollowTheirAgentsWord() {
        const Topology t = small();
        ProcessTable table;
        table.reset(t.nodes());
        QCOMPARE(table.all().size(), t.nodes().size());
        QVERIFY(!table.allStarted() && !table.allDone());
        for (ProcessInfo& p : table) table.started(p, 100);
        QVERIFY(table.allStarted() && !table.allDone() && !table.roundsDone());
        ProcessInfo& worker = *table.find("party1/worker0");
        // A crash its agent restarts; then, with the run ending, a bad exit is a stop.
        QVERIFY(table.exited(worker, {{QStringLiteral("code"), 9}, {QStringLiteral("crashed"), true}, {QStringLiteral("restarting"), true}},
                             false));
        QCOMPARE(worker.state, ProcessInfo::State::Restarting);
        QCOMPARE(worker.restarts, 1);
        QCOMPARE(describeExit(worker),
                 QStringLiteral("party1/worker0 (pid 100) was killed by signal 9 (%1)").arg(QString::fromLocal8Bit(strsignal(9))));
        QVERIFY(!table.exited(worker, {{QStringLiteral("code"), 1}, {QStringLiteral("restarting"), true}}, true));
        QCOMPARE(worker.state, ProcessInfo::State::Stopped);
        ProcessInfo& server = *table.find("party1/server0");
        QVERIFY(!table.exited(server, {{QStringLiteral("code"), 3}, {QStringLiteral("error"), QStringLiteral("no table")}}, false));
        QCOMPARE(server.state, ProcessInfo::State::Failed);
        QCOMPARE(describeExit(server), QStringLiteral("party1/server0 (pid 100) exited with status 3: no table"));
        // The rounds are done once the global server and the master have exited cleanly.
        for (const char* node : {"central/global_server0", "central/master_worker"})
            table.exited(*table.find(node), {{QStringLiteral("code"), 0}}, false);
        QVERIFY(table.roundsDone() && !table.allDone());
        // The agent takes the rest with it: those running were up, and are restarting now.
        const auto everyNode = [](const Node&) { return true; };
        const auto gone = table.goneWithAgent(everyNode, QStringLiteral("was killed by signal 9"));
        QCOMPARE(gone.size(), t.nodes().size() - 4);
        QVERIFY(std::all_of(gone.begin(), gone.end(),
                            [](const auto& g) { return g.second && g.first->state == ProcessInfo::State::Restarting; }));
        QCOMPARE(gone.first().first->error, QStringLiteral("ended with its agent, which was killed by signal 9"));
        QCOMPARE(table.stopUnfinished().size(), gone.size());
        QVERIFY(table.allDone());
        QVERIFY(table.stopUnfinished().isEmpty());

        // One restart is counted once: a role its agent was about to start again, then gone with
        // the agent, restarts once more only when it runs again (the table said "restarts: 2").
        // Nor is a role that never ran restarted.
        ProcessTable again;
        again.reset(t.nodes());
        ProcessInfo& crashed = *again.find("party1/worker0");
        again.started(crashed, 100);
        QVERIFY(again.exited(
            crashed, {{QStringLiteral("code"), 9}, {QStringLiteral("crashed"), true}, {QStringLiteral("restarting"), true}}, false));
        again.goneWithAgent(everyNode, QStringLiteral("was killed by signal 9"));
        QCOMPARE(crashed.restarts, 1);
        QCOMPARE(again.find("party1/server0")->restarts, 0);  // (pending)
        again.started(crashed, 101);
        again.goneWithAgent(everyNode, QStringLiteral("was killed by signal 9"));
        QCOMPARE(crashed.restarts, 2);
    }

    // The local agent runs every host but a Slurm party's, whose agents come with its job: one
    // that dies takes only its own roles, and only those start again when it is back (the Slurm
    // party's running roles were "restarted" too, their restarts and privacy reruns counted).
    void theLocalAgentHoldsAllButTheSlurmPartys() {
        QTemporaryDir dir;
        QFile in(HIPS_SOURCE_DIR "/resources/topologies/default.json");
        QVERIFY(in.open(QIODevice::ReadOnly));
        QJsonObject t = QJsonDocument::fromJson(in.readAll()).object();
        QJsonArray hosts = t["hosts"].toArray(), parties = t["parties"].toArray();
        hosts.append(QJsonObject{{"id", "p2node"}});
        for (int i = 0; i < parties.size(); ++i) {
            QJsonObject p = parties[i].toObject();
            if (p["id"].toString() != "party2") continue;
            p["host"] = "p2node";
            p["launcher"] = QJsonObject{{"kind", "slurm"}, {"partition", "hips"}, {"install_dir", dir.filePath("shared")}};
            parties[i] = p;
        }
        t["hosts"] = hosts;
        t["parties"] = parties;
        QFile out(dir.filePath("slurm.json"));
        QVERIFY(out.open(QIODevice::WriteOnly) && out.write(QJsonDocument(t).toJson()) > 0);
        out.close();
        const TopologyLoad load = TopologyReader::readFile(out.fileName());
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
        const Topology& topology = *load.topology;
        ProcessTable table;
        table.reset(topology.nodes());
        for (ProcessInfo& p : table) table.started(p, 100);
        const auto gone = table.goneWithAgent([&](const Node& n) { return agentHolds(topology, QString(), n); },
                                              QStringLiteral("was killed by signal 9"));
        QVERIFY(!gone.isEmpty());
        for (const auto& [p, wasUp] : gone) QVERIFY2(!p->node.id.startsWith("party2/"), qPrintable(p->node.id));
        QCOMPARE(table.find("party2/worker0")->state, ProcessInfo::State::Running);
        QCOMPARE(table.find("party1/worker0")->state, ProcessInfo::State::Restarting);
        const Node& slurmWorker = table.find("party2/worker0")->node;
        QVERIFY(agentHolds(topology, QStringLiteral("p2node"), slurmWorker));
        QVERIFY(!agentHolds(topology, QStringLiteral("p2node"), table.find("party1/worker0")->node));
    }

    // A party's source read on two hosts must hold the same on both (each reader cuts its shard
    // from its own copy): copies that differ stop the run, naming both readers and what each
    // read. The same digest from another reader, or another party's source, passes.
    void aPartysCopiesThatDifferAreNamed() {
        LabelSpaceCheck check;
        const auto startup = [](const char* node, const char* source, const char* digest) {
            return QJsonObject{{"kind", "startup"}, {"node", node}, {"data_source", source}, {"source_digest", digest}};
        };
        QCOMPARE(check.ingest(startup("p1/worker0", "party 'p1'", "10000 rows, 3fa2")), QString());
        QCOMPARE(check.ingest(startup("p1/worker1", "party 'p1'", "10000 rows, 3fa2")), QString());
        QCOMPARE(check.ingest(startup("p2/worker0", "party 'p2'", "500 rows, 77aa")), QString());
        const QString error = check.ingest(startup("p1/worker2", "party 'p1'", "10010 rows, 9c1e"));
        QVERIFY2(error.contains("party 'p1''s data differs between the hosts that read it: p1/worker0 read 10000 rows, 3fa2 and "
                                "p1/worker2 read 10010 rows, 9c1e"),
                 qPrintable(error));
    }

    void schedulersStartFirstEachWithItsOwnKey() {
        const Topology t = small();
        LaunchPlan plan;
        plan.makeKeys(t.nodes());
        const auto all = plan.commands(
            t, [](const Node&) { return true; }, [](const Node& n) { return "/runs/x/" + n.id; }, 42);
        QCOMPARE(all.size(), t.nodes().size());
        int schedulers = 0;
        while (schedulers < all.size() &&
               (all[schedulers].first.kind == RoleKind::Scheduler || all[schedulers].first.kind == RoleKind::GlobalScheduler))
            ++schedulers;
        QCOMPARE(schedulers, 3);  // the global scheduler and each party's, before any other
        QSet<QByteArray> keys;
        for (const auto& [node, start] : all) {
            QCOMPARE(start.node, node.id);
            QCOMPARE(start.outDir, "/runs/x/" + node.id);
            QCOMPARE(start.placement, 42);
            QCOMPARE(start.peerKeys.all().size(), t.nodes().size());
            QCOMPARE(start.peerKeys.keyOf(node.id), start.nodeKey.publicKey);
            keys.insert(start.nodeKey.secretKey);
        }
        QCOMPARE(keys.size(), all.size());  // no two nodes share a key
        // A restart starts only the nodes picked, with the same keys (the same identity).
        const auto one = plan.commands(
            t, [](const Node& n) { return n.id == QLatin1String("party2/worker1"); }, [](const Node&) { return QString(); }, 43);
        QCOMPARE(one.size(), 1);
        const auto before =
            std::find_if(all.begin(), all.end(), [](const auto& c) { return c.first.id == QLatin1String("party2/worker1"); });
        QCOMPARE(one.first().second.nodeKey.secretKey, before->second.nodeKey.secretKey);
    }

    // A controller stopped past the agent's patience finds, once continued, the agent's "bye"
    // queued beside its overdue ping timer: it names its own stall, not the agent's exit (the
    // order the two were handled in was Qt's; tst_run's stoppedControllerNamesItself failed on it).
    void aByeThatCameDuringOurStallIsOurStall() {
        zmq::context_t zmq(1);
        Channel agent = Channel::router(zmq, QStringLiteral("agent"), QStringLiteral("tcp://127.0.0.1:*"));
        const QString endpoint = QString::fromStdString(agent.socket().get(zmq::sockopt::last_endpoint));
        AgentClient client(QStringLiteral("localhost"), endpoint);
        client.setSilenceTimeout(1);
        QSignalSpy ready(&client, &AgentClient::ready), stalled(&client, &AgentClient::stalled), bye(&client, &AgentClient::bye);
        const std::optional<Envelope> hello = agent.receive(std::chrono::seconds(10));
        QVERIFY(hello && hello->message.type == QLatin1String("hello"));
        agent.send(hello->peer, Message(QStringLiteral("hello_ok"), {{QStringLiteral("compatible"), true}}));
        QVERIFY(ready.wait(10000));
        agent.send(hello->peer, Message(QStringLiteral("bye")));
        std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // "stopped": the bye arrives meanwhile
        QTRY_COMPARE_WITH_TIMEOUT(stalled.size() + bye.size(), 1, 10000);
        QCOMPARE(stalled.size(), 1);
    }

    // Events that gave way in a full journal come as one marker, {seq, through}: the client takes
    // it as the last of them, and the event after it in turn (it waited for seq + 1 for ever).
    void aMarkerStandsForTheEventsThatGaveWay() {
        zmq::context_t zmq(1);
        Channel agent = Channel::router(zmq, QStringLiteral("agent"), QStringLiteral("tcp://127.0.0.1:*"));
        AgentClient client(QStringLiteral("localhost"), QString::fromStdString(agent.socket().get(zmq::sockopt::last_endpoint)));
        QSignalSpy ready(&client, &AgentClient::ready), events(&client, &AgentClient::event);
        const std::optional<Envelope> hello = agent.receive(std::chrono::seconds(10));
        QVERIFY(hello && hello->message.type == QLatin1String("hello"));
        agent.send(hello->peer, Message(QStringLiteral("hello_ok"), {{QStringLiteral("compatible"), true}}));
        QVERIFY(ready.wait(10000));
        const auto event = [](qint64 seq, const QString& kind, qint64 through = 0) {
            QCborMap fields{{QStringLiteral("seq"), seq}, {QStringLiteral("kind"), kind}, {QStringLiteral("node"), QStringLiteral("w0")}};
            if (through) fields.insert(QStringLiteral("through"), through);
            return Message(QStringLiteral("event"), fields);
        };
        agent.send(hello->peer, event(1, QStringLiteral("log")));
        agent.send(hello->peer, event(2, QStringLiteral("skipped"), 9));
        agent.send(hello->peer, event(10, QStringLiteral("log")));
        // One that begins before what it has and holds the next number is taken too; one wholly
        // before it is not.
        agent.send(hello->peer, event(5, QStringLiteral("skipped"), 12));
        agent.send(hello->peer, event(3, QStringLiteral("skipped"), 8));
        agent.send(hello->peer, event(13, QStringLiteral("log")));
        QTRY_COMPARE_WITH_TIMEOUT(events.size(), 5, 10000);
        QCOMPARE(events[1][1].toLongLong(), 9);
        QCOMPARE(events[2][1].toLongLong(), 10);
        QCOMPARE(events[3][1].toLongLong(), 12);
        QCOMPARE(events[4][1].toLongLong(), 13);
    }

    // Two agents started again at once (a switch that cut both hosts off): each one's roles start
    // again when it is back, the first one's too (it waited for the other and was never told).
    void agentsStartedAgainTogetherAreEachBack() {
        zmq::context_t zmq(1);
        const auto router = [&zmq] { return Channel::router(zmq, QStringLiteral("agent"), QStringLiteral("tcp://127.0.0.1:*")); };
        Channel a = router(), b = router();
        PlayedFleet fleet(small());
        QSignalSpy ready(&fleet, &AgentFleet::ready), back(&fleet, &AgentFleet::agentBack);
        fleet.add(QStringLiteral("a"), a);
        fleet.add(QStringLiteral("b"), b);
        QVERIFY(answerHello(a) && answerHello(b));
        QTRY_COMPARE_WITH_TIMEOUT(ready.size(), 1, 10000);
        Channel a2 = router(), b2 = router();
        fleet.startedAgain(QStringLiteral("a"), a2);
        fleet.startedAgain(QStringLiteral("b"), b2);
        QVERIFY(answerHello(a2));
        QTRY_COMPARE_WITH_TIMEOUT(back.size(), 1, 10000);
        QCOMPARE(back[0][0].toString(), QStringLiteral("a"));
        QVERIFY(answerHello(b2));
        QTRY_COMPARE_WITH_TIMEOUT(back.size(), 2, 10000);
        QCOMPARE(back[1][0].toString(), QStringLiteral("b"));
        QCOMPARE(ready.size(), 1);
    }

    // A resumed run whose controller died before its first new round keeps, in the history, its
    // rounds past the checkpoint from before the resume (the resumed run would cut them at its
    // first later round). The controller that attaches cuts them then, as the resumed one would
    // have: each round is in the history once, the new run's.
    void anAttachCutsWhatAResumeLeftToCut() {
        QTemporaryDir dir;
        QString error;
        auto store = RunStore::open(dir.filePath("h.sqlite"), &error);
        QVERIFY2(store, qPrintable(error));
        const Topology t = small();
        const auto eval = [](int round, double accuracy) {
            return QJsonObject{{"kind", "eval"}, {"node", "central/master_worker"}, {"round", round}, {"test_acc", accuracy}};
        };
        qint64 run = 0;
        {
            RunRecorder first;
            first.setStore(store.get());
            QVERIFY(first.begin(t, dir.path(), 0, 0, 0));
            run = first.runId();
            for (int round = 1; round <= 8; ++round) first.metric(eval(round, 0.5));
            QVERIFY(store->flush());
        }
        {
            RunRecorder resumed;  // from the checkpoint of round 5; killed before round 6
            resumed.setStore(store.get());
            QVERIFY(resumed.begin(t, dir.path(), run, 5, 0));
            QVERIFY(store->flush());
        }
        QCOMPARE(store->pendingCut(run), std::optional<int>(5));
        RunRecorder attached;
        attached.setStore(store.get());
        QVERIFY(attached.reattach(run, QStringLiteral("attached")));
        attached.metric(eval(6, 0.9));
        QVERIFY(store->flush());
        QMap<int, QList<double>> accuracies;
        for (const MetricRecord& m : store->metrics(run))
            if (m.name == QLatin1String("eval.test_acc")) accuracies[m.round] << m.value;
        QCOMPARE(accuracies.keys(), (QList<int>{1, 2, 3, 4, 5, 6}));
        QCOMPARE(accuracies[6], QList<double>{0.9});
        QVERIFY(!store->pendingCut(run));
    }
};

QTEST_GUILESS_MAIN(RunPartsTest)
#include "tst_runparts.moc"
