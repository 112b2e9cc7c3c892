// Topology parsing and validation: the shipped default loads, writing then reading gives the
// same document, and each kind of broken file gets its own path and message.
#include "TopologyReader.h"
#include "TopologyWriter.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>
#include <functional>

using namespace hips;

namespace {

QJsonObject validTopology() {
    QFile f(HIPS_SOURCE_DIR "/resources/topologies/default.json");
    if (!f.open(QIODevice::ReadOnly)) qFatal("cannot open the default topology");
    return QJsonDocument::fromJson(f.readAll()).object();
}

// Sets o[path...] = value, creating nothing: the path must exist up to its last key.
void set(QJsonObject& root, const QStringList& path, const QJsonValue& value);

QJsonValue setIn(QJsonValue node, QStringList path, const QJsonValue& value) {
    if (path.isEmpty()) return value;
    const QString key = path.takeFirst();
    bool isIndex = false;
    const int index = key.toInt(&isIndex);
    if (isIndex) {
        QJsonArray a = node.toArray();
        a[index] = setIn(a[index], path, value);
        return a;
    }
    QJsonObject o = node.toObject();
    if (value.isUndefined() && path.isEmpty()) o.remove(key);
    else o[key] = setIn(o.value(key), path, value);
    return o;
}

void set(QJsonObject& root, const QStringList& path, const QJsonValue& value) {
    root = setIn(root, path, value).toObject();
}

struct BrokenCase {
    const char* name;
    std::function<void(QJsonObject&)> breakIt;
    const char* path;     // expected JSON path of the first issue
    const char* message;  // expected fragment of its message
};

QList<BrokenCase> brokenCases() {
    const QJsonValue remove = QJsonValue(QJsonValue::Undefined);
    return {
        {"unknown role", [](QJsonObject& t) { set(t, {"parties", "1", "roles", "mixer"}, QJsonObject{}); },
         "$.parties[1].roles.mixer", "unknown role 'mixer'"},
        {"global role in a party", [](QJsonObject& t) { set(t, {"parties", "1", "roles", "master_worker"}, QJsonObject{}); },
         "$.parties[1].roles.master_worker", "belongs to the central party"},
        {"central roles in an ordinary party", [](QJsonObject& t) { set(t, {"parties", "0", "central"}, false); },
         "$.parties[0].roles.global_scheduler", "role 'global_scheduler' belongs to the central party"},
        {"no central party", [](QJsonObject& t) {
             QJsonArray parties = t["parties"].toArray();
             parties.removeFirst();
             t["parties"] = parties;
         }, "$.parties", "no central party"},
        {"two central parties", [](QJsonObject& t) {
             QJsonArray parties = t["parties"].toArray();
             QJsonObject copy = parties[0].toObject();
             copy["id"] = "central2";
             QJsonObject roles = copy["roles"].toObject();
             roles["global_scheduler"] = QJsonObject{{"port", 9400}};
             roles["global_servers"] = QJsonArray{QJsonObject{{"port", 9401}}};
             copy["roles"] = roles;
             parties.append(copy);
             t["parties"] = parties;
         }, "$.parties", "2 parties are marked central"},
        {"party without scheduler", [=](QJsonObject& t) { set(t, {"parties", "1", "roles", "scheduler"}, remove); },
         "$.parties[1].roles", "has no scheduler"},
        {"party without server", [](QJsonObject& t) { set(t, {"parties", "1", "roles", "servers"}, QJsonArray{}); },
         "$.parties[1].roles", "has no servers"},
        {"party without workers", [](QJsonObject& t) { set(t, {"parties", "2", "roles", "workers", "0", "count"}, 0); },
         "$.parties[2].roles.workers", "has no workers"},
        {"no master worker", [=](QJsonObject& t) { set(t, {"parties", "0", "roles", "master_worker"}, remove); },
         "$.parties[0].roles", "has no master_worker"},
        {"duplicate party id", [](QJsonObject& t) { set(t, {"parties", "2", "id"}, "party1"); },
         "$.parties[2].id", "duplicate party id 'party1'"},
        {"duplicate host id", [](QJsonObject& t) {
             QJsonArray hosts = t["hosts"].toArray();
             hosts.append(hosts[0]);
             t["hosts"] = hosts;
         }, "$.hosts[1].id", "duplicate host id 'local'"},
        {"two deployed hosts on one machine with one agent port", [](QJsonObject& t) {
             t["hosts"] = QJsonArray{QJsonObject{{"id", "a"}, {"address", "10.0.0.5"}, {"install_dir", "/srv/a"}},
                                     QJsonObject{{"id", "b"}, {"address", "10.0.0.5"}, {"install_dir", "/srv/b"}}};
             QJsonArray parties = t["parties"].toArray();
             for (int i = 0; i < parties.size(); ++i) {
                 QJsonObject p = parties[i].toObject();
                 p["host"] = i == 0 ? "a" : "b";
                 parties[i] = p;
             }
             t["parties"] = parties;
         }, "$.hosts[1].agent_port", "share address 10.0.0.5 and agent_port 7070"},
        {"port clash", [](QJsonObject& t) { set(t, {"parties", "2", "roles", "scheduler", "port"}, 9200); },
         "$.parties[2].roles.scheduler.port", "port 9200 on host 'local' is already used by party1 scheduler"},
        {"undeclared host", [](QJsonObject& t) { set(t, {"parties", "1", "roles", "servers", "0", "host"}, "nowhere"); },
         "$.parties[1].roles.servers[0].host", "host 'nowhere' is not declared"},
        {"port out of range", [](QJsonObject& t) { set(t, {"parties", "1", "roles", "servers", "0", "port"}, 70000); },
         "$.parties[1].roles.servers[0].port", "out of range"},
        {"port not an integer", [](QJsonObject& t) { set(t, {"parties", "1", "roles", "servers", "0", "port"}, "9201"); },
         "$.parties[1].roles.servers[0].port", "must be an integer"},
        {"negative rounds", [](QJsonObject& t) { set(t, {"training", "rounds"}, -3); },
         "$.training.rounds", "out of range"},
        {"fractional batch", [](QJsonObject& t) { set(t, {"training", "batch_size"}, 6.5); },
         "$.training.batch_size", "must be an integer"},
        {"unknown model", [](QJsonObject& t) { set(t, {"training", "model"}, "resnet"); },
         "$.training.model", "'resnet' is not supported"},
        {"unknown training key", [](QJsonObject& t) { set(t, {"training", "lerning_rate"}, 0.1); },
         "$.training.lerning_rate", "unknown training setting"},
        {"both local iters and epochs", [](QJsonObject& t) { set(t, {"training", "local_epochs"}, 2); },
         "$.training.local_iters", "exactly one of local_iters and local_epochs"},
        {"bad device", [](QJsonObject& t) { set(t, {"parties", "1", "roles", "workers", "0", "device"}, "gpu0"); },
         "$.parties[1].roles.workers[0].device", "not a device"},
        {"wrong format", [](QJsonObject& t) { t["format"] = "something-else"; }, "$.format", "must be \"hips-topology\""},
        {"future version", [](QJsonObject& t) { t["version"] = 9; }, "$.version", "newer than this program reads"},
        {"missing hosts", [](QJsonObject& t) { t.remove("hosts"); }, "$.hosts", "missing"},
        {"parties not an array", [](QJsonObject& t) { t["parties"] = "three"; }, "$.parties", "must be an array"},
        {"eval after the end", [](QJsonObject& t) { set(t, {"training", "eval_every"}, 50); },
         "$.training.eval_every", "larger than rounds"},
    };
}

}  // namespace

class TopologyTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
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
    }

    void writeThenReadIsIdentity() {
        const TopologyLoad first = TopologyReader::readJson(QJsonDocument(validTopology()).toJson());
        QVERIFY(first.ok());
        const QByteArray written = TopologyWriter::toJson(*first.topology);
        const TopologyLoad second = TopologyReader::readJson(written);
        QVERIFY2(second.ok(), qPrintable(second.errorText()));
        QCOMPARE(TopologyWriter::toJson(*second.topology), written);
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
        const QList<BrokenCase> cases = brokenCases();
        for (int i = 0; i < cases.size(); ++i) QTest::newRow(cases[i].name) << i;
    }

    void brokenFile() {
        QFETCH(int, index);
        const BrokenCase c = brokenCases()[index];
        QJsonObject t = validTopology();
        c.breakIt(t);
        const TopologyLoad load = TopologyReader::readJson(QJsonDocument(t).toJson(), "broken.json");
        QVERIFY2(!load.ok(), "a broken topology was accepted");
        bool found = false;
        for (const TopologyIssue& issue : load.issues)
            found = found || (issue.path == QLatin1String(c.path) && issue.message.contains(QLatin1String(c.message)));
        QVERIFY2(found, qPrintable(QStringLiteral("expected %1: ...%2... in:\n%3").arg(c.path, c.message, load.errorText())));
    }
};

QTEST_GUILESS_MAIN(TopologyTest)
#include "tst_topology.moc"
