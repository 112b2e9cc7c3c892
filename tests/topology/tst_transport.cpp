// A party's `transport` (Collective.h, PartyTransport.h): read with its settings from the
// collective registry, written back, refused with what is in the way, and a collective party's
// processes: no party server, and its lowest-ranked worker a member of the global scheduler.
#include "Collective.h"
#include "PartyTransport.h"
#include "SimulationCheck.h"
#include "TopologyEdits.h"
#include "TopologyReader.h"
#include "TopologyTestSupport.h"
#include "TopologyWriter.h"

#include <QJsonArray>
#include <QtTest>

using namespace hips;
using namespace hips::test;

namespace {

// The default topology with party1 (parties[1]) on `transport`, `edit` applied after.
TopologyLoad withTransport(const QString& transport, const std::function<void(QJsonObject&)>& edit = {}) {
    QJsonObject t = validTopology();
    set(t, {"parties", "1", "transport"}, transport);
    if (edit) edit(t);
    return TopologyReader::readJson(QJsonDocument(t).toJson(), QStringLiteral("transport.json"));
}

bool hasIssue(const TopologyLoad& load, const QString& path, const QString& fragment) {
    for (const TopologyIssue& i : load.issues)
        if (i.path == path && i.message.contains(fragment)) return true;
    return false;
}

}  // namespace

class TransportTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyCollectiveIsRead_data() {
        QTest::addColumn<QString>("transport");
        for (const QString& name : CollectiveRegistry::names()) QTest::newRow(qPrintable(name)) << name;
    }

    void everyCollectiveIsRead() {
        QFETCH(QString, transport);
        const TopologyLoad load = withTransport(transport);
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
        const Party& p = *load.topology->party(QStringLiteral("party1"));
        QCOMPARE(p.transport, transport);
        QCOMPARE(p.collective(), transport != QLatin1String("server"));
        QCOMPARE(load.topology->party(QStringLiteral("party2"))->transport, QStringLiteral("server"));  // the default
    }

    void settingsAreReadAndWrittenBack() {
        const TopologyLoad load = withTransport(QStringLiteral("gossip"), [](QJsonObject& t) {
            set(t, {"parties", "1", "gossip_degree"}, 4);
            set(t, {"parties", "1", "transport_chunk_kb"}, 64);
        });
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
        const Party& p = *load.topology->party(QStringLiteral("party1"));
        QCOMPARE(p.transportParam(QStringLiteral("gossip_degree")), 4.0);
        QCOMPARE(p.transportParam(QStringLiteral("transport_chunk_kb")), 64.0);
        QCOMPARE(p.transportParam(QStringLiteral("transport_timeout_s")), 600.0);  // the registry's default
        const TopologyLoad again = TopologyReader::readJson(TopologyWriter::toJson(*load.topology));
        QVERIFY2(again.ok(), qPrintable(again.errorText()));
        const Party& q = *again.topology->party(QStringLiteral("party1"));
        QCOMPARE(q.transport, QStringLiteral("gossip"));
        QCOMPARE(q.transportParams, p.transportParams);
        // A party on the default writes no transport at all (files stay as they were).
        QVERIFY(!TopologyWriter::toJsonObject(*again.topology)["parties"].toArray()[2].toObject().contains("transport"));
    }

    // hips run --servers N: a collective party has no servers to slice the model over; the
    // others get N, and the command is not refused for it.
    void serversPerPartyLeaveACollectivePartyWithout() {
        const TopologyLoad load = withTransport(QStringLiteral("ring"), [](QJsonObject& t) {
            QJsonArray parties = t["parties"].toArray();
            QJsonObject party = parties[1].toObject(), roles = party["roles"].toObject();
            roles.remove("servers");
            party["roles"] = roles;
            parties[1] = party;
            t["parties"] = parties;
        });
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
        Topology t = *load.topology;
        const QString error = edits::setServerCount(t, 2);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(t.party(QStringLiteral("party1"))->servers.isEmpty());
        QCOMPARE(t.party(QStringLiteral("party2"))->servers.size(), 2);
    }

    void badTransportsAreRefused_data() {
        QTest::addColumn<QString>("transport");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QJsonValue>("value");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("unknown transport") << "allgather"
                                           << "" << QJsonValue() << "$.parties[1].transport"
                                           << "butterfly";
        QTest::newRow("another collective's setting") << "ring"
                                                      << "gossip_degree" << QJsonValue(3) << "$.parties[1].gossip_degree"
                                                      << "not a setting of transport ring";
        QTest::newRow("a setting with the server") << "server"
                                                   << "transport_chunk_kb" << QJsonValue(64) << "$.parties[1].transport_chunk_kb"
                                                   << "not a setting of transport server";
        QTest::newRow("chunk out of range") << "ring"
                                            << "transport_chunk_kb" << QJsonValue(1) << "$.parties[1].transport_chunk_kb"
                                            << "out of range";
        QTest::newRow("fractional degree") << "gossip"
                                           << "gossip_degree" << QJsonValue(2.5) << "$.parties[1].gossip_degree"
                                           << "whole number";
        QTest::newRow("not a string") << ""
                                      << "transport" << QJsonValue(3) << "$.parties[1].transport"
                                      << "";
    }

    void badTransportsAreRefused() {
        QFETCH(QString, transport);
        QFETCH(QString, key);
        QFETCH(QJsonValue, value);
        QFETCH(QString, path);
        QFETCH(QString, fragment);
        const TopologyLoad load = withTransport(transport, [&](QJsonObject& t) {
            if (!key.isEmpty()) set(t, {"parties", "1", key}, value);
        });
        QVERIFY(!load.ok());
        QVERIFY2(hasIssue(load, path, fragment), qPrintable(load.errorText()));
    }

    // What a collective cannot do is refused naming the setting and the way out.
    void conflictsAreRefused_data() {
        QTest::addColumn<QStringList>("at");
        QTest::addColumn<QJsonValue>("value");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("fragment");
        QTest::newRow("asynchronous mode") << QStringList{"training", "mode"} << QJsonValue("asgd") << "$.parties"
                                           << "mode asgd";
        QTest::newRow("a party rule") << QStringList{"training", "party_aggregation"} << QJsonValue("median") << "$.parties"
                                      << "party_aggregation median";
        QTest::newRow("a robust global rule") << QStringList{"training", "aggregation"} << QJsonValue("median") << "$.parties"
                                              << "aggregation median";
        QTest::newRow("a party codec but fp16") << QStringList{"training", "party_compression"} << QJsonValue("2bit") << "$.parties"
                                                << "party_compression 2bit";
        QTest::newRow("a quorum") << QStringList{"training", "quorum"} << QJsonValue(1) << "$.parties"
                                  << "quorum";
        QTest::newRow("secure aggregation") << QStringList{"training", "secure_aggregation"} << QJsonValue(true) << "$.parties"
                                            << "secure aggregation";
        QTest::newRow("the central party") << QStringList{"parties", "0", "transport"} << QJsonValue("ring") << "$.parties[0].transport"
                                           << "central party";
    }

    void conflictsAreRefused() {
        QFETCH(QStringList, at);
        QFETCH(QJsonValue, value);
        QFETCH(QString, path);
        QFETCH(QString, fragment);
        const TopologyLoad load = withTransport(QStringLiteral("ring"), [&](QJsonObject& t) { set(t, at, value); });
        QVERIFY(!load.ok());
        QVERIFY2(hasIssue(load, path, fragment), qPrintable(load.errorText()));
    }

    // The same settings with party servers are fine: the conflict is the collective's.
    void conflictsAreTheCollectives() {
        QJsonObject t = validTopology();
        set(t, {"training", "party_compression"}, "2bit");
        QVERIFY(TopologyReader::readJson(QJsonDocument(t).toJson()).ok());
    }

    // fault_policy continue: a collective party goes on without a lost worker, but not under hfa,
    // whose party sums between syncs have no model from above to agree on.
    void goingOnWithoutAWorkerIsRefusedOnlyWithHfa() {
        const auto load = [](const QString& mode) {
            return withTransport(QStringLiteral("ring"), [&](QJsonObject& t) {
                set(t, {"training", "fault_policy"}, "continue");
                set(t, {"training", "mode"}, mode);
            });
        };
        QVERIFY2(load("fedavg").ok(), qPrintable(load("fedavg").errorText()));
        QVERIFY2(load("ssgd").ok(), qPrintable(load("ssgd").errorText()));
        QVERIFY(!load("hfa").ok());
        QVERIFY2(hasIssue(load("hfa"), "$.parties", "fault_policy continue with mode hfa"), qPrintable(load("hfa").errorText()));
    }

    // fp16 is the party codec a collective has: its chunks travel as half floats.
    void aCollectiveTakesFp16() {
        const TopologyLoad load = withTransport(QStringLiteral("ring"), [](QJsonObject& t) {
            set(t, {"training", "party_compression"}, "fp16");
        });
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
    }

    void synchronousModesAreAccepted_data() {
        QTest::addColumn<QString>("mode");
        for (const char* m : {"fedavg", "ssgd", "esync", "hfa"}) QTest::newRow(m) << QString::fromLatin1(m);
    }

    void synchronousModesAreAccepted() {
        QFETCH(QString, mode);
        const TopologyLoad load = withTransport(QStringLiteral("butterfly"), [&](QJsonObject& t) { set(t, {"training", "mode"}, mode); });
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
    }

    // transport_security sealed seals the party servers' links and a collective party's mesh:
    // taken with either, written back; anything else is refused, from the file or set afterwards
    // (hips run --transport-security).
    void sealedIsTakenWithServersAndCollectives() {
        QJsonObject t = validTopology();
        set(t, {"training", "transport_security"}, "sealed");
        const TopologyLoad servers = TopologyReader::readJson(QJsonDocument(t).toJson());
        QVERIFY2(servers.ok(), qPrintable(servers.errorText()));
        QCOMPARE(servers.topology->training.transportSecurity, QStringLiteral("sealed"));
        Topology edited = *servers.topology;
        edited.training.transportSecurity = QStringLiteral("tls");
        const TopologyLoad unknown = TopologyReader::readJson(TopologyWriter::toJson(edited));
        QVERIFY(hasIssue(unknown, "$.training.transport_security", ""));
        TopologyLoad afterwards;
        afterwards.issues = TopologyReader::validate(edited);
        QVERIFY2(hasIssue(afterwards, "$.training.transport_security", "use curve or sealed"), "a value set after reading is checked too");
        const TopologyLoad ring = withTransport(QStringLiteral("ring"), [](QJsonObject& t) {
            set(t, {"training", "transport_security"}, "sealed");
        });
        QVERIFY2(ring.ok(), qPrintable(ring.errorText()));
        QCOMPARE(ring.topology->training.transportSecurity, QStringLiteral("sealed"));
        const TopologyLoad again = TopologyReader::readJson(TopologyWriter::toJson(*ring.topology));
        QVERIFY(again.ok() && again.topology->training.transportSecurity == QLatin1String("sealed"));
        const TopologyLoad bad = withTransport(QStringLiteral("ring"), [](QJsonObject& t) {
            set(t, {"training", "transport_security"}, "tls");
        });
        QVERIFY(hasIssue(bad, "$.training.transport_security", ""));
    }

    // No party server starts for a collective party (its declared one waits unused); its lowest
    // rank pushes for it. A collective party needs no servers at all.
    void aCollectivePartyStartsNoServer() {
        const TopologyLoad load = withTransport(QStringLiteral("ring"), [](QJsonObject& t) {
            set(t, {"parties", "1", "roles", "workers", "0", "count"}, 3);
        });
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
        const Topology& t = *load.topology;
        QStringList ids;
        for (const Node& n : t.nodes()) ids << n.id;
        QVERIFY(!ids.contains("party1/server0"));
        QVERIFY(ids.contains("party2/server0"));
        QCOMPARE(t.nodeCount(), qint64(ids.size()));
        QVERIFY(pushesForItsParty(t, *t.node("party1/worker0")));
        QVERIFY(!pushesForItsParty(t, *t.node("party1/worker1")));
        QVERIFY(!pushesForItsParty(t, *t.node("party2/worker0")));  // a party server pushes for party2
        QVERIFY2(simulationRefusal(t).isEmpty(), qPrintable(simulationRefusal(t)));  // (simulated with its own collective)

        const TopologyLoad serverless = withTransport(QStringLiteral("ring"), [](QJsonObject& t) {
            set(t, {"parties", "1", "roles", "servers"}, QJsonArray());
        });
        QVERIFY2(serverless.ok(), qPrintable(serverless.errorText()));
    }
};

QTEST_GUILESS_MAIN(TransportTest)
#include "tst_transport.moc"
