// Topology parsing and validation: the shipped default loads, writing then reading gives the
// same document, and each kind of broken file gets its own path and message.
#include "FieldRules.h"
#include "PrintableText.h"
#include "TopologyAdvice.h"
#include "TopologyLimits.h"
#include "BrokenTopologies.h"
#include "TopologyTestSupport.h"
#include "TopologyReader.h"
#include "TopologyShape.h"
#include "TopologyWriter.h"

#include <QDir>
#include <QMap>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QtTest>
#include <cstring>
#include <functional>

using namespace hips;
using namespace hips::test;

namespace {

// A compact topology with `parties` ordinary parties of `workers` workers each, plus the central one.
QByteArray manyParties(int parties, int workers) {
    QByteArray out = R"({"format":"hips-topology","version":1,"hosts":[{"id":"l","address":"127.0.0.1"}],)"
                     R"("parties":[{"id":"c","central":true,"host":"l","roles":{"global_scheduler":{"port":2000},)"
                     R"("global_servers":[{"port":2001}],"master_worker":{}}})";
    for (int i = 0; i < parties; ++i)
        out += QStringLiteral(R"(,{"id":"p%1","host":"l","roles":{"scheduler":{"port":%2},"servers":[{"port":%3}],)"
                              R"("workers":[{"count":%4}]}})")
                   .arg(i)
                   .arg(3000 + 2 * (i % 30000))
                   .arg(3001 + 2 * (i % 30000))
                   .arg(workers)
                   .toUtf8();
    return out + "]}";
}

}  // namespace

class TopologyTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Settings measured to train poorly get a note naming the field and what to use instead; the
    // rest get none (the default run, a codec where it holds accuracy).
    void poorSettingsGetANoteAndTheRestNone() {
        const TopologyLoad load = TopologyReader::readFile(HIPS_SOURCE_DIR "/resources/topologies/default.json");
        QVERIFY(load.ok());
        QTemporaryDir data;  // the four files the trainers open (only their presence is checked)
        for (const char* f :
             {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"}) {
            QFile file(data.filePath(f));
            QVERIFY(file.open(QIODevice::WriteOnly));
        }
        const auto notesFor = [&](const std::function<void(TrainingSettings&)>& change) {
            Topology t = *load.topology;
            t.training.dataDir = data.path();
            change(t.training);
            QStringList out;
            for (const TopologyIssue& note : topologyAdvice(t)) out << note.toString();
            return out;
        };
        QVERIFY(notesFor([](TrainingSettings&) {}).isEmpty());
        QVERIFY(notesFor([](TrainingSettings& s) { s.compression = "2bit"; }).isEmpty());  // fedavg holds it
        QVERIFY(notesFor([](TrainingSettings& s) { s.mode = "ssgd", s.compression = "topk"; }).isEmpty());
        QVERIFY(notesFor([](TrainingSettings& s) { s.serverOptimizer = "adam", s.compression = "topk"; }).isEmpty());
        const QStringList ssgd = notesFor([](TrainingSettings& s) { s.mode = "ssgd", s.partyCompression = "2bit"; });
        QCOMPARE(ssgd.size(), 1);
        QVERIFY2(ssgd[0].startsWith("$.training.party_compression: 2bit under mode ssgd") && ssgd[0].contains("fp16"), qPrintable(ssgd[0]));
        const QStringList momentum = notesFor([](TrainingSettings& s) { s.serverOptimizer = "momentum", s.compression = "topk"; });
        QCOMPARE(momentum.size(), 1);
        QVERIFY2(momentum[0].startsWith("$.training.compression: server momentum"), qPrintable(momentum[0]));
        const QStringList adam = notesFor([](TrainingSettings& s) { s.serverOptimizer = "yogi", s.partyCompression = "2bit"; });
        QCOMPARE(adam.size(), 1);
        QVERIFY2(adam[0].startsWith("$.training.party_compression: an adaptive server optimizer with 2bit"), qPrintable(adam[0]));
        // by_class over the default's 4 workers, 2 classes each: 8 of the 10 classes are in a shard.
        const QStringList byClass = notesFor([](TrainingSettings& s) { s.partition = "by_class"; });
        QCOMPARE(byClass.size(), 1);
        QVERIFY2(byClass[0].startsWith("$.training.partition: partition by_class") && byClass[0].contains("hold 8 of the 10 classes") &&
                     byClass[0].contains("at least 3"),
                 qPrintable(byClass[0]));
        QVERIFY(notesFor([](TrainingSettings& s) { s.partition = "by_class", s.params["classes_per_worker"] = 3; }).isEmpty());
        const QStringList local = notesFor([](TrainingSettings& s) { s.mode = "local", s.compression = "fp16"; });
        QCOMPARE(local.size(), 1);
        QVERIFY2(local[0].contains("the codec has no effect"), qPrintable(local[0]));

        // A data folder this machine lacks, with every role here: the first missing file, named.
        QVERIFY(QFile::remove(data.filePath("t10k-labels-idx1-ubyte.gz")));
        const QStringList data1 = notesFor([](TrainingSettings&) {});
        QCOMPARE(data1.size(), 1);
        QVERIFY2(data1[0].startsWith("$.training.data_dir: " + data.filePath("t10k-labels-idx1-ubyte.gz") + " is missing on this machine"),
                 qPrintable(data1[0]));
        QVERIFY(notesFor([](TrainingSettings& s) { s.dataset = "synthetic"; }).isEmpty());
        QVERIFY(notesFor([](TrainingSettings& s) { s.dataDir = "data/fashion"; }).isEmpty());  // relative: the hosts' own
        Topology remote = *load.topology;
        remote.training.dataDir = "/nonexistent";
        remote.hosts.first().address = "10.0.0.7";  // a remote host reads its own folder
        QVERIFY(topologyAdvice(remote).isEmpty());
    }

    void defaultTopologyLoads() {
        const TopologyLoad load = TopologyReader::readFile(HIPS_SOURCE_DIR "/resources/topologies/default.json");
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
        const Topology& t = *load.topology;
        QCOMPARE(t.parties.size(), 3);
        QCOMPARE(t.trainingWorkerCount(), 4);
        QCOMPARE(t.nodes().size(), 11);  // 3 schedulers, 3 servers, master, 4 workers
        QCOMPARE(t.nodes().first().kind, RoleKind::GlobalScheduler);
        QCOMPARE(t.trainingWorkerIndex("party2/worker1"), 3);
        QCOMPARE(t.endpoint(*t.node("party1/server0")), QStringLiteral("tcp://127.0.0.1:9201"));
        QVERIFY(t.allHostsLocal());
        // Each node finds its schedulers: the global one from any party, its party's own.
        QCOMPARE(t.scheduler(RoleKind::GlobalScheduler, "party2")->kind, RoleKind::GlobalScheduler);
        QCOMPARE(t.scheduler(RoleKind::GlobalScheduler)->party, t.centralParty()->id);
        const auto party2 = t.scheduler(RoleKind::Scheduler, "party2");
        QVERIFY(party2 && party2->kind == RoleKind::Scheduler && party2->party == "party2");
        QVERIFY(!t.scheduler(RoleKind::Scheduler, "nowhere"));
        QVERIFY(!t.scheduler(RoleKind::Worker, "party2"));  // not a scheduler kind
    }

    void writeThenReadIsIdentity() {
        const TopologyLoad first = TopologyReader::readJson(QJsonDocument(validTopology()).toJson());
        QVERIFY(first.ok());
        const QByteArray written = TopologyWriter::toJson(*first.topology);
        const TopologyLoad second = TopologyReader::readJson(written);
        QVERIFY2(second.ok(), qPrintable(second.errorText()));
        QCOMPARE(TopologyWriter::toJson(*second.topology), written);
    }

    // agent_timeout_s (default 10) is written only when it is not the default, and read back.
    void theAgentSilenceLimitRoundTrips() {
        Topology t = *TopologyReader::readJson(defaultText()).topology;
        QCOMPARE(t.training.agentTimeoutS, 10);
        QVERIFY(!TopologyWriter::toJson(t).contains("agent_timeout_s"));
        t.training.agentTimeoutS = 4;
        const TopologyLoad back = TopologyReader::readJson(TopologyWriter::toJson(t));
        QVERIFY2(back.ok(), qPrintable(back.errorText()));
        QCOMPARE(back.topology->training.agentTimeoutS, 4);
    }

    // A global server's standby host is read, written back, and carried by its node.
    void aStandbyHostRoundTrips() {
        QJsonObject json = validTopology();
        standbyServer(json, "b", "c");
        const TopologyLoad load = TopologyReader::readJson(QJsonDocument(json).toJson());
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
        QCOMPARE(load.topology->node("central/global_server0")->standbyHost, QStringLiteral("c"));
        QCOMPARE(load.topology->node("central/global_server0")->host, QStringLiteral("b"));
        QVERIFY(load.topology->node("party1/server0")->standbyHost.isEmpty());
        const TopologyLoad again = TopologyReader::readJson(TopologyWriter::toJson(*load.topology));
        QVERIFY2(again.ok(), qPrintable(again.errorText()));
        QCOMPARE(again.topology->parties[0].servers[0].standbyHost, QStringLiteral("c"));
    }

    // So is the master's.
    void theMastersStandbyHostRoundTrips() {
        QJsonObject json = validTopology();
        standbyMaster(json, "b", "c");
        const TopologyLoad load = TopologyReader::readJson(QJsonDocument(json).toJson());
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
        QCOMPARE(load.topology->node("central/master_worker")->standbyHost, QStringLiteral("c"));
        QCOMPARE(load.topology->node("central/master_worker")->host, QStringLiteral("b"));
        QVERIFY(load.topology->node("central/global_server0")->standbyHost.isEmpty());
        const TopologyLoad again = TopologyReader::readJson(TopologyWriter::toJson(*load.topology));
        QVERIFY2(again.ok(), qPrintable(again.errorText()));
        QCOMPARE(again.topology->parties[0].masterWorker->standbyHost, QStringLiteral("c"));
    }

    // And the state service's, which esync may now go on through failures with.
    void theStateServicesStandbyHostRoundTrips() {
        QJsonObject json = validTopology();
        standbyStateService(json, "b", "c");
        set(json, {"training", "mode"}, "esync");
        const TopologyLoad load = TopologyReader::readJson(QJsonDocument(json).toJson());
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
        QCOMPARE(load.topology->node("central/state_service")->standbyHost, QStringLiteral("c"));
        QCOMPARE(load.topology->node("central/state_service")->host, QStringLiteral("b"));
        const TopologyLoad again = TopologyReader::readJson(TopologyWriter::toJson(*load.topology));
        QVERIFY2(again.ok(), qPrintable(again.errorText()));
        QCOMPARE(again.topology->parties[0].stateService->standbyHost, QStringLiteral("c"));
    }

    // Which workers run as threads of a shared trainer (trainer_processes): under auto, those of a
    // host with more than 8 CPU workers of the run; all under per_host; none under per_worker. The
    // setting round-trips, and a wrong one is named with the choices.
    void workersShareATrainerBeyondEightOnAHost() {
        auto load = [](const QJsonObject& json) { return TopologyReader::readJson(QJsonDocument(json).toJson()); };
        QJsonObject json = validTopology();
        set(json, {"parties", "1", "roles", "workers"}, QJsonArray{QJsonObject{{"count", 6}}});  // + party2's 2: 8
        TopologyLoad t = load(json);
        QVERIFY2(t.ok(), qPrintable(t.errorText()));
        QVERIFY(!t.topology->sharesTrainer(*t.topology->node("party1/worker0")));
        set(json, {"parties", "1", "roles", "workers"}, QJsonArray{QJsonObject{{"count", 7}}});  // 9
        t = load(json);
        QVERIFY(t.topology->sharesTrainer(*t.topology->node("party2/worker1")));
        QVERIFY(!t.topology->sharesTrainer(*t.topology->node("party1/scheduler")));
        QVERIFY(!t.topology->sharesTrainer(*t.topology->node("central/master_worker")));
        set(json, {"training", "trainer_processes"}, "per_worker");
        t = load(json);
        QVERIFY(!t.topology->sharesTrainer(*t.topology->node("party2/worker1")));
        set(json, {"parties", "1", "roles", "workers"}, QJsonArray{QJsonObject{{"count", 1}}});
        set(json, {"training", "trainer_processes"}, "per_host");
        t = load(json);
        QVERIFY(t.topology->sharesTrainer(*t.topology->node("party1/worker0")));
        const TopologyLoad again = TopologyReader::readJson(TopologyWriter::toJson(*t.topology));
        QCOMPARE(again.topology->training.trainerProcesses, QStringLiteral("per_host"));
        set(json, {"training", "trainer_processes"}, "per_thread");
        t = load(json);
        QVERIFY(!t.ok());
        QVERIFY2(t.errorText().contains("trainer_processes") && t.errorText().contains("per_host"), qPrintable(t.errorText()));
    }

    void centralWorkersTrainOnlyWhenEnabled() {
        QJsonObject t = validTopology();
        set(t, {"parties", "0", "roles", "workers"}, QJsonArray{QJsonObject{{"count", 2}}});
        TopologyLoad load = TopologyReader::readJson(QJsonDocument(t).toJson());
        QVERIFY(load.ok());
        QCOMPARE(load.topology->trainingWorkerCount(), 4);
        set(t, {"training", "train_central_workers"}, true);
        load = TopologyReader::readJson(QJsonDocument(t).toJson());
        QCOMPARE(load.topology->trainingWorkerCount(), 6);
        QVERIFY(load.topology->node("central/worker1").has_value());
    }

    void notJsonNamesTheLine() {
        const TopologyLoad load = TopologyReader::readJson("{\n  \"format\": \"hips-topology\",\n  oops\n}", "t.json");
        QVERIFY(!load.ok());
        QVERIFY2(load.errorText().contains("t.json: $: not valid JSON at line 3"), qPrintable(load.errorText()));
    }

    void missingFileIsReported() {
        const TopologyLoad load = TopologyReader::readFile("/nonexistent/topology.json");
        QVERIFY(!load.ok());
        QVERIFY(load.errorText().contains("cannot open the file"));
    }

    void brokenFile_data() {
        QTest::addColumn<int>("index");
        const QList<BrokenCase> cases = topologyBrokenCases();
        for (int i = 0; i < cases.size(); ++i) QTest::newRow(cases[i].name) << i;
    }

    void brokenFile() {
        QFETCH(int, index);
        TopologyLoad load;
        const QString missing = missingIssue(topologyBrokenCases()[index], &load);
        QVERIFY2(!load.ok(), "a broken topology was accepted");
        QVERIFY2(missing.isEmpty(), qPrintable(missing));
        for (const TopologyIssue& issue : load.issues)
            QVERIFY2(hips::printableText(issue.toString()) == issue.toString(), "an issue holds an unprintable character");
    }

    // The same rules apply to a topology built in memory (the designer), not only to files.
    void validateAppliesFieldRules() {
        Topology t = *TopologyReader::readJson(defaultText()).topology;
        t.parties[1].id = withUnit("p", 0x202E, "1");
        t.hosts[0].address = QStringLiteral("a/b");
        t.parties[2].workers[0].count = -1;
        t.parties[2].servers[0].port = 80;
        const TopologyIssues issues = TopologyReader::validate(t);
        QStringList paths;
        for (const TopologyIssue& i : issues) paths << i.path;
        QVERIFY2(paths.contains("$.parties[1].id"), qPrintable(paths.join(' ')));
        QVERIFY(paths.contains("$.hosts[0].address"));
        QVERIFY(paths.contains("$.parties[2].roles.workers[0].count"));
        QVERIFY(paths.contains("$.parties[2].roles.servers[0].port"));
    }

    // Every party's and host's setting with a path named by ids (History's compare, hips history
    // show), and none of training's, which the run's settings hold.
    void topologySettingsAreFlatWithIds() {
        Topology t = *TopologyReader::readJson(defaultText()).topology;
        t.parties[2].workers[0].slowdown = 2.5;
        QMap<QString, QString> flat;
        for (const auto& [key, value] : topologySettings(t)) flat.insert(key, value);
        QCOMPARE(flat.value("party1.workers[0].count"), QString("2"));
        QCOMPARE(flat.value("party2.workers[0].slowdown"), QString("2.5"));
        QCOMPARE(flat.value("central.central"), QString("true"));
        QCOMPARE(flat.value("central.global_servers[0].port"), QString("9101"));
        QCOMPARE(flat.value("hosts.local.address"), QString("127.0.0.1"));
        for (const QString& key : flat.keys()) QVERIFY2(!key.contains("training") && !key.contains(".id"), qPrintable(key));
    }

    // An empty text is called empty, and a value of another type is named by its type (an
    // empty party id was "must be a non-empty string, found a string").
    void anEmptyOrMistypedTextSaysWhichItIs() {
        for (const auto& [value, expected] :
             {std::pair{QJsonValue(" "), QString("$.parties[1].id: is empty; give it a value")},
              std::pair{QJsonValue(5), QString("$.parties[1].id: must be a non-empty string, found a number")}}) {
            QJsonObject t = validTopology();
            set(t, {"parties", "1", "id"}, value);
            const TopologyLoad load = TopologyReader::readJson(QJsonDocument(t).toJson());
            QVERIFY(!load.ok());
            QVERIFY2(load.errorText().contains(expected), qPrintable(load.errorText()));
        }
    }

    // A loopback host beside a remote one is refused by validation itself, so the designer,
    // `hips validate` and `hips run` agree (the designer called it ready; Start all refused it).
    void aLoopbackHostBesideARemoteOneIsRefused() {
        Topology t = *TopologyReader::readJson(defaultText()).topology;
        QVERIFY(TopologyReader::validate(t).isEmpty());
        Host remote;
        remote.id = QStringLiteral("lab");
        remote.address = QStringLiteral("10.0.0.7");
        t.hosts.append(remote);
        t.parties[2].workers[0].host = remote.id;
        const TopologyIssues issues = TopologyReader::validate(t);
        QCOMPARE(issues.size(), 1);
        QCOMPARE(issues[0].path, QStringLiteral("$.hosts[0].address"));
        QVERIFY2(issues[0].message.contains("loopback") && issues[0].message.contains("'lab' (10.0.0.7)"),
                 qPrintable(issues[0].toString()));
        t.hosts[0].address = QStringLiteral("10.0.0.6");  // every host remote: fine
        QVERIFY(TopologyReader::validate(t).isEmpty());
    }

    void acceptedValues_data() {
        QTest::addColumn<QStringList>("path");
        QTest::addColumn<QString>("value");
        const QStringList partyId{"parties", "1", "id"}, address{"hosts", "0", "address"};
        QTest::newRow("Cyrillic party id") << partyId << QString::fromUtf8("партия_1");
        QTest::newRow("Chinese party id") << partyId << QString::fromUtf8("参与方一");
        QTest::newRow("Devanagari party id (combining marks)") << partyId << QString::fromUtf8("हिंदी");
        QTest::newRow("party id with '-' and '.'") << partyId << QStringLiteral("lab-2.eu");
        QTest::newRow("party id of 64 characters") << partyId << QString(64, 'p');
        QTest::newRow("localhost") << address << QStringLiteral("localhost");
        QTest::newRow("IPv4") << address << QStringLiteral("10.0.0.255");
        QTest::newRow("IPv6 loopback") << address << QStringLiteral("::1");
        QTest::newRow("IPv6") << address << QStringLiteral("2001:db8::8a2e:370:7334");
        QTest::newRow("host name") << address << QStringLiteral("node-1.cluster.example.org");
        QTest::newRow("punycode host name") << address << QStringLiteral("xn--bcher-kva.example");
        QTest::newRow("host name of 253 characters")
            << address << (QString(63, 'a') + '.' + QString(63, 'b') + '.' + QString(63, 'c') + '.' + QString(61, 'd'));
        QTest::newRow("user") << QStringList{"hosts", "0", "user"} << QStringLiteral("svc.hips_1");
        QTest::newRow("install_dir with a space") << QStringList{"hosts", "0", "install_dir"} << QStringLiteral("/srv/hips studio");
        QTest::newRow("name in another script") << QStringList{"name"} << QString::fromUtf8("实验 one");
    }

    void acceptedValues() {
        QFETCH(QStringList, path);
        QFETCH(QString, value);
        QJsonObject t = validTopology();
        set(t, path, value);
        const TopologyLoad load = TopologyReader::readJson(QJsonDocument(t).toJson());
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
    }

    void ipv6EndpointIsBracketed() {
        QJsonObject t = validTopology();
        set(t, {"hosts", "0", "address"}, "::1");
        const TopologyLoad load = TopologyReader::readJson(QJsonDocument(t).toJson());
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
        QCOMPARE(load.topology->endpoint(*load.topology->node("party1/server0")), QStringLiteral("tcp://[::1]:9201"));
    }

    // A NUL in an id once cut the reason to "hips run: p"; the whole message must survive a C string.
    void nulDoesNotCutTheMessage() {
        QByteArray json = defaultText();
        json.replace("\"party1\"", "\"p\\u0000evil\"");
        const TopologyLoad load = TopologyReader::readJson(json, "t.json");
        QVERIFY(!load.ok());
        const QString text = load.errorText();
        QVERIFY2(text.contains("t.json: $.parties[1].id: party id 'p\\x00evil' contains \\x00"), qPrintable(text));
        QVERIFY2(text.contains("use only letters"), qPrintable(text));
        QVERIFY(!text.contains(QChar(0)));
        const QByteArray c = text.toLocal8Bit();
        QCOMPARE(std::strlen(c.constData()), size_t(c.size()));
    }

    void duplicateKeys_data() {
        QTest::addColumn<QByteArray>("from");
        QTest::addColumn<QByteArray>("to");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("message");
        QTest::newRow("port of a server") << QByteArray("\"port\": 9201 }") << QByteArray("\"port\": 9201, \"port\": 9999 }")
                                          << "$.parties[1].roles.servers[0].port"
                                          << "duplicate key \"port\" on line 26 (first on line 26)";
        QTest::newRow("top-level name") << QByteArray("\"name\": \"default\",")
                                        << QByteArray("\"name\": \"default\",\n  \"name\": \"other\",") << "$.name"
                                        << "duplicate key \"name\" on line 5 (first on line 4)";
        QTest::newRow("key written with an escape")
            << QByteArray("\"port\": 9201 }") << QByteArray("\"port\": 9201, \"p\\u006frt\": 9999 }")
            << "$.parties[1].roles.servers[0].port"
            << "duplicate key \"port\"";
        QTest::newRow("party id") << QByteArray("\"id\": \"party2\",") << QByteArray("\"id\": \"party2\", \"id\": \"party1\",")
                                  << "$.parties[2].id"
                                  << "duplicate key \"id\"";
        QTest::newRow("a whole role") << QByteArray("\"scheduler\": { \"port\": 9200 },")
                                      << QByteArray("\"scheduler\": { \"port\": 9200 }, \"scheduler\": { \"port\": 9400 },")
                                      << "$.parties[1].roles.scheduler"
                                      << "duplicate key \"scheduler\"";
        QTest::newRow("inside the layout") << QByteArray("\"layout\": {}") << QByteArray("\"layout\": {\"a\": [{\"x\": 1, \"x\": 2}]}")
                                           << "$.layout.a[0].x"
                                           << "duplicate key \"x\"";
        QTest::newRow("unprintable key") << QByteArray("\"layout\": {}") << QByteArray("\"layout\": {\"a\\u202eb\": 1, \"a\\u202eb\": 2}")
                                         << "$.layout.a\\u202eb"
                                         << "duplicate key \"a\\u202eb\"";
    }

    void duplicateKeys() {
        QFETCH(QByteArray, from);
        QFETCH(QByteArray, to);
        QFETCH(QString, path);
        QFETCH(QString, message);
        QByteArray json = defaultText();
        QVERIFY(json.contains(from));
        json.replace(from, to);
        const TopologyLoad load = TopologyReader::readJson(json, "topology.json");
        QVERIFY2(!load.ok(), "a duplicate key was accepted");
        QCOMPARE(load.issues.size(), 1);
        QCOMPARE(load.issues[0].path, path);
        QVERIFY2(load.issues[0].message.contains(message), qPrintable(load.errorText()));
    }

    void sameKeyInSiblingObjectsIsNoDuplicate() {
        const QByteArray json = R"({"a": {"k": 1}, "b": {"k": 2}, "c": [{"k": 1}, {"k": 2}], "d": "k", "k": 3})";
        QVERIFY(TopologyReader::readJson(json).issues.first().message.contains("unknown top-level field"));
    }

    // Every shipped and test topology passes the new rules; port_clash.json is broken on purpose
    // (tst_run checks its message) and must fail for that reason only.
    void shippedTopologiesLoad_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("onlyIssue");
        QStringList files{HIPS_SOURCE_DIR "/resources/topologies/default.json"};
        const QDir data(HIPS_SOURCE_DIR "/tests/data/topologies");
        for (const QString& name : data.entryList({"*.json"}, QDir::Files)) files << data.filePath(name);
        QVERIFY(files.size() >= 5);
        for (const QString& f : files)
            QTest::newRow(qPrintable(QFileInfo(f).fileName()))
                << f << (f.endsWith("/port_clash.json") ? QStringLiteral("is already used by") : QString());
    }

    void shippedTopologiesLoad() {
        QFETCH(QString, file);
        QFETCH(QString, onlyIssue);
        const TopologyLoad load = TopologyReader::readFile(file);
        if (onlyIssue.isEmpty()) {
            QVERIFY2(load.ok(), qPrintable(load.errorText()));
            return;
        }
        QCOMPARE(load.issues.size(), 1);
        QVERIFY2(load.issues[0].message.contains(onlyIssue), qPrintable(load.errorText()));
    }

    // Each file under tests/data/topologies/hostile (also a fuzzing seed) is refused at its path.
    void hostileFilesRefused_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("expected");
        const QString dir = HIPS_SOURCE_DIR "/tests/data/topologies/hostile/";
        QTest::newRow("duplicate key") << dir + "duplicate_port.json"
                                       << "$.parties[1].roles.servers[0].port: duplicate key \"port\"";
        QTest::newRow("bidi id") << dir + "bidi_party_id.json"
                                 << "$.parties[1].id: party id 'party\\u202e1gnp'";
        QTest::newRow("NUL id") << dir + "nul_party_id.json"
                                << "$.parties[1].id: party id 'p\\x00evil' contains \\x00";
        QTest::newRow("lone surrogate") << dir + "lone_surrogate_host_id.json"
                                        << "$.hosts[0].id: host id 'lo\\ud800cal'";
        QTest::newRow("path as address") << dir + "slash_address.json"
                                         << "$.hosts[0].address: host 'local': address 'a/b'";
        QTest::newRow("invalid UTF-8") << dir + "invalid_utf8.json"
                                       << "$: not valid UTF-8 at line 4";
    }

    void hostileFilesRefused() {
        QFETCH(QString, file);
        QFETCH(QString, expected);
        const TopologyLoad load = TopologyReader::readFile(file);
        QVERIFY(!load.ok());
        QVERIFY2(load.errorText().contains(expected), qPrintable(load.errorText()));
    }

    // An empty file (or only blanks) says so, instead of QJsonDocument's "illegal value".
    void emptyFileSaysItIsEmpty() {
        for (const QByteArray& blank : {QByteArray(), QByteArray(" \n\t\n")}) {
            const TopologyLoad load = TopologyReader::readJson(blank, "new.json");
            QVERIFY(!load.ok());
            QVERIFY2(load.errorText().startsWith("new.json: $: the file is empty; a topology is a JSON object"),
                     qPrintable(load.errorText()));
        }
    }

    void fileSizeIsLimited() {
        QByteArray json = defaultText();
        json.append(QByteArray(kMaxTopologyBytes - json.size(), ' '));
        QVERIFY2(TopologyReader::readJson(json).ok(), "a document of exactly the limit is refused");
        json.append(' ');
        const TopologyLoad load = TopologyReader::readJson(json, "big.json");
        QVERIFY(!load.ok());
        QVERIFY2(load.errorText().contains("big.json: $: the document is 1048577 bytes; a topology may be at most "
                                           "1048576 bytes (1 MiB)"),
                 qPrintable(load.errorText()));
    }

    // 20,003 parties (2.7 MB, 5 million processes) once passed after 6 s and 1.5 GB.
    void hugeFileRefusedBeforeParsing() {
        QTemporaryDir dir;
        QFile f(dir.filePath("huge.json"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        const QByteArray json = manyParties(20003, 256);
        QVERIFY(json.size() > 2'000'000);
        f.write(json);
        f.close();
        const TopologyLoad load = TopologyReader::readFile(f.fileName());
        QVERIFY(!load.ok());
        QCOMPARE(load.issues.size(), 1);
        QVERIFY2(load.errorText().contains(QStringLiteral("the document is %1 bytes; a topology may be at most 1048576").arg(json.size())),
                 qPrintable(load.errorText()));
    }

    void tooManyPartiesRefusedBeforeReading() {
        const QByteArray json = manyParties(6000, 1);
        QVERIFY(json.size() < kMaxTopologyBytes);
        const TopologyLoad load = TopologyReader::readJson(json, "t.json");
        QVERIFY(!load.ok());
        QCOMPARE(load.issues.size(), 1);
        QVERIFY2(load.errorText().contains("t.json: $.parties: 6001 parties; at most 5461 are supported"), qPrintable(load.errorText()));
    }

    void processLimit() {
        TopologyLoad load = TopologyReader::readJson(manyParties(160, 101));  // 2 + 1 + 160 * 103 = 16483
        QVERIFY(!load.ok());
        QVERIFY2(load.errorText().contains("$.parties: the topology holds 16483 nodes; a topology may hold at most 16384"),
                 qPrintable(load.errorText()));
        load = TopologyReader::readJson(manyParties(10, 99));  // 1013
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
        QCOMPARE(load.topology->nodeCount(), load.topology->nodes().size());
    }

    // The designer's path: a topology built in memory is counted, never expanded.
    void hugeTopologyInMemoryRefused() {
        Topology t = *TopologyReader::readJson(defaultText()).topology;
        const Party model = t.parties[1];
        t.parties.clear();
        t.parties.reserve(20003);
        for (int i = 0; i < 20003; ++i) {
            Party p = model;
            p.id = QStringLiteral("p%1").arg(i);
            p.workers[0].count = 256;
            t.parties.append(p);
        }
        const TopologyIssues issues = TopologyReader::validate(t);
        QVERIFY(!issues.isEmpty() && issues.size() <= 2);
        QCOMPARE(issues[0].path, QStringLiteral("$.parties"));
        QVERIFY2(issues[0].message.contains("the topology holds 5160774 nodes; a topology may hold at most 16384"),
                 qPrintable(issues[0].message));
    }

    void issuesAreCapped() {
        QJsonObject t = validTopology();
        QJsonObject training = t["training"].toObject();
        for (int i = 0; i < 500; ++i) training.insert(QStringLiteral("unknown%1").arg(i), i);
        t["training"] = training;
        const TopologyLoad load = TopologyReader::readJson(QJsonDocument(t).toJson());
        QCOMPARE(load.issues.size(), kMaxIssues + 1);
        QVERIFY(load.issues.last().message.contains("400 more issues are not shown"));
    }

    void deepNestingRefused() {
        const QByteArray json = "{\"layout\":" + QByteArray(10000, '[') + QByteArray(10000, ']') + "}";
        const TopologyLoad load = TopologyReader::readJson(json);
        QVERIFY(!load.ok());
    }

    // Flipped, dropped and inserted bytes (a fixed seed, so a failure repeats): every variant is
    // answered with issues or a topology, never a crash or a hang, and its messages are printable.
    void mutatedDocumentsAreAnswered() {
        const QByteArray base = defaultText();
        QRandomGenerator random(9);
        static const char kBytes[] = "{}[]\",:\\u0 \n\x00\xff\xc3";
        const QByteArray alphabet(kBytes, sizeof kBytes - 1);  // the NUL included
        for (int i = 0; i < 3000; ++i) {
            QByteArray json = base;
            for (int m = random.bounded(1, 4); m > 0; --m) {
                const int at = random.bounded(int(json.size()));
                const char c = alphabet[random.bounded(int(alphabet.size()))];
                switch (random.bounded(3)) {
                    case 0: json[at] = c; break;
                    case 1: json.remove(at, 1); break;
                    default: json.insert(at, c); break;
                }
            }
            const TopologyLoad load = TopologyReader::readJson(json);
            QCOMPARE(load.ok(), load.issues.isEmpty());
            for (const TopologyIssue& issue : load.issues)
                QVERIFY2(hips::printableText(issue.toString()) == issue.toString(), json.constData());
        }
    }
};

QTEST_GUILESS_MAIN(TopologyTest)
#include "tst_topology.moc"
