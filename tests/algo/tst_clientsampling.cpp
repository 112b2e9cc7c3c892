// Client sampling (ClientSampling.h): the draw of each round is the same in every process, of the
// size asked (a count, a fraction rounded up, per party or across parties), new every round and
// fair over many; the settings are read, written back and refused where a run cannot sample.
#include "ClientSampling.h"
#include "TopologyReader.h"
#include "TopologyWriter.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace hips;

namespace {

// The default topology with 2 parties of `workers` workers each and the given training settings
// (and party2's clients_per_round, when given).
TopologyLoad topology(int workers, const QJsonObject& training, double party2 = 0) {
    QFile f(HIPS_SOURCE_DIR "/resources/topologies/default.json");
    f.open(QIODevice::ReadOnly);
    QJsonObject t = QJsonDocument::fromJson(f.readAll()).object();
    QJsonArray parties = t["parties"].toArray();
    for (int i = 1; i < parties.size(); ++i) {
        QJsonObject p = parties[i].toObject(), roles = p["roles"].toObject();
        roles["workers"] = QJsonArray{QJsonObject{{"count", workers}}};
        p["roles"] = roles;
        if (i == 2 && party2 > 0) p["clients_per_round"] = party2;
        parties[i] = p;
    }
    t["parties"] = parties;
    QJsonObject settings = t["training"].toObject();
    for (auto it = training.begin(); it != training.end(); ++it) settings[it.key()] = it.value();
    t["training"] = settings;
    return TopologyReader::readJson(QJsonDocument(t).toJson());
}

int inParty(const QSet<QString>& workers, const QString& party) {
    int n = 0;
    for (const QString& w : workers) n += w.startsWith(party + '/');
    return n;
}

}  // namespace

class ClientSamplingTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void drawnCountsFollowTheSetting() {
        QCOMPARE(clientsDrawn(0, 8), 8);
        QCOMPARE(clientsDrawn(0.25, 8), 2);
        QCOMPARE(clientsDrawn(0.3, 8), 3);  // rounded up
        QCOMPARE(clientsDrawn(0.01, 8), 1);  // at least one
        QCOMPARE(clientsDrawn(3, 8), 3);
        QCOMPARE(clientsDrawn(30, 8), 8);
    }

    // Across the parties: the same draw for the same round (every process computes it), a new one
    // each round, of the size asked, and over 2,000 rounds every worker drawn about as often.
    // The draw is pinned: every machine of a federation draws it alike (the seed's bytes were
    // read as char, signed on x86 and unsigned on ARM: a mixed federation disagreed on it).
    void theDrawIsTheSameOnEveryMachine() {
        const TopologyLoad load = topology(8, {{"clients_per_round", 4}});
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
        QStringList drawn;
        for (qint64 round = 1; round <= 3; ++round) {
            QStringList workers = sampledWorkers(*load.topology, round).values();
            workers.sort();
            drawn << workers.join(' ');
        }
        const QStringList pinned{"party1/worker1 party1/worker2 party2/worker4 party2/worker6",
                                 "party1/worker5 party2/worker1 party2/worker3 party2/worker5",
                                 "party1/worker2 party1/worker6 party1/worker7 party2/worker2"};  // (x86's, 2026-12-02)
        QCOMPARE(drawn, pinned);
    }

    void eachRoundDrawsTheSameFewAndAllInTurn() {
        const TopologyLoad load = topology(8, {{"clients_per_round", 4}});
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
        const Topology& t = *load.topology;
        QVERIFY(samplesClients(t));
        QCOMPARE(t.trainReportsPerRound(), 4);
        QCOMPARE(sampledWorkers(t, 7), sampledWorkers(t, 7));
        QHash<QString, int> times;
        int differs = 0;
        for (qint64 round = 1; round <= 2000; ++round) {
            const QSet<QString> drawn = sampledWorkers(t, round);
            QCOMPARE(drawn.size(), 4);
            differs += drawn != sampledWorkers(t, round + 1);
            for (const QString& w : drawn) ++times[w];
        }
        QVERIFY(differs > 1900);
        QCOMPARE(times.size(), 16);
        for (auto it = times.begin(); it != times.end(); ++it)  // 500 expected each; 5 standard deviations
            QVERIFY2(std::abs(it.value() - 500) < 5 * std::sqrt(2000 * 0.25 * 0.75), qPrintable(it.key()));
        // Another seed, another draw.
        const TopologyLoad other = topology(8, {{"clients_per_round", 4}, {"seed", 2}});
        int same = 0;
        for (qint64 round = 1; round <= 50; ++round) same += sampledWorkers(*other.topology, round) == sampledWorkers(t, round);
        QVERIFY(same < 5);
        // The global server's contributors: the party servers with a worker drawn.
        const QSet<QString> servers{"party1/server0", "party2/server0"};
        for (qint64 round = 1; round <= 20; ++round) {
            const QSet<QString> drawn = sampledWorkers(t, round);
            const QSet<QString> pushing = sampledContributors(t, servers, round);
            QCOMPARE(pushing.contains("party1/server0"), inParty(drawn, "party1") > 0);
            QCOMPARE(pushing.contains("party2/server0"), inParty(drawn, "party2") > 0);
            QCOMPARE(drawnAmong(t, servers, round), int(pushing.size()));  // (a deadline's minimum counts them)
            QCOMPARE(drawnAmong(t, drawn + QSet<QString>{"party1/worker0", "party1/worker1"}, round), int(drawn.size()));
        }
        // Without client sampling: every one.
        const TopologyLoad all = topology(8, {});
        QCOMPARE(drawnAmong(*all.topology, servers, 1), 2);
    }

    // A party's own setting draws among its workers; the run's among the others'.
    void aPartyDrawsAmongItsOwnWorkers() {
        const TopologyLoad load = topology(4, {{"clients_per_round", 0.5}}, 1);
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
        QCOMPARE(load.topology->trainReportsPerRound(), 3);
        for (qint64 round = 1; round <= 30; ++round) {
            const QSet<QString> drawn = sampledWorkers(*load.topology, round);
            QCOMPARE(inParty(drawn, "party1"), 2);
            QCOMPARE(inParty(drawn, "party2"), 1);
        }
        const QJsonObject written = QJsonDocument::fromJson(TopologyWriter::toJson(*load.topology)).object();
        QCOMPARE(written["training"].toObject()["clients_per_round"].toDouble(), 0.5);
        QCOMPARE(written["parties"].toArray()[2].toObject()["clients_per_round"].toDouble(), 1.0);
        const TopologyLoad none = topology(4, {});
        QVERIFY(!samplesClients(*none.topology));
        QCOMPARE(sampledWorkers(*none.topology, 3).size(), 8);
    }

    void whatSamplingCannotDoIsRefused_data() {
        QTest::addColumn<QJsonObject>("training");
        QTest::addColumn<QString>("message");
        QTest::newRow("too many") << QJsonObject{{"clients_per_round", 9}} << "draws more workers than the 8 there are";
        QTest::newRow("not whole") << QJsonObject{{"clients_per_round", 2.5}} << "neither a fraction below 1 nor a whole number";
        QTest::newRow("asgd") << QJsonObject{{"clients_per_round", 2}, {"mode", "asgd"}} << "use fedavg";
        QTest::newRow("ssgd") << QJsonObject{{"clients_per_round", 2}, {"mode", "ssgd"}} << "use fedavg";
        QTest::newRow("quorum") << QJsonObject{{"clients_per_round", 2}, {"quorum", 2}} << "keep one";
        QTest::newRow("krum") << QJsonObject{{"clients_per_round", 2}, {"aggregation", "krum"}} << "drawn-out party would not send";
        QTest::newRow("secure") << QJsonObject{{"clients_per_round", 2}, {"secure_aggregation", true}}
                                << "remove clients_per_round or secure_aggregation";
    }
    void whatSamplingCannotDoIsRefused() {
        QFETCH(QJsonObject, training);
        QFETCH(QString, message);
        const TopologyLoad load = topology(4, training);
        QVERIFY(!load.ok());
        QVERIFY2(load.errorText().contains(message), qPrintable(load.errorText()));
    }

    // A rule that needs several contributions gets only the drawn: Krum with byzantine_f 1 needs
    // 5, and with 8 of 16 drawn across two parties of 8 a party may have one drawn (a round of
    // one left the model as it was, silently); drawn in each party, or flat, the count decides.
    void aRuleNeedingMoreThanTheDrawIsRefused_data() {
        QTest::addColumn<QJsonObject>("training");
        QTest::addColumn<double>("party2");
        QTest::addColumn<QString>("message");
        QTest::newRow("party krum, the run's draw")
            << QJsonObject{{"clients_per_round", 8}, {"party_aggregation", "krum"}} << 0.0 << "draws as few as 1 in party party1";
        QTest::newRow("party krum, a party's draw")
            << QJsonObject{{"party_aggregation", "krum"}} << 4.0 << "draws as few as 4 in party party2";
        QTest::newRow("party krum, drawn enough") << QJsonObject{{"party_aggregation", "krum"}} << 5.0 << "";
        QTest::newRow("flat krum") << QJsonObject{{"clients_per_round", 4}, {"hierarchy", "flat"}, {"aggregation", "krum"}} << 0.0
                                   << "draws as few as 4 in the run";
        QTest::newRow("flat krum, drawn enough")
            << QJsonObject{{"clients_per_round", 5}, {"hierarchy", "flat"}, {"aggregation", "krum"}} << 0.0 << "";
    }
    void aRuleNeedingMoreThanTheDrawIsRefused() {
        QFETCH(QJsonObject, training);
        QFETCH(double, party2);
        QFETCH(QString, message);
        const TopologyLoad load = topology(8, training, party2);
        if (message.isEmpty()) QVERIFY2(load.ok(), qPrintable(load.errorText()));
        else QVERIFY2(!load.ok() && load.errorText().contains(message), qPrintable(load.errorText()));
        if (!message.isEmpty() && party2 > 0) QCOMPARE(load.issues.first().path, QStringLiteral("$.parties[2].clients_per_round"));
    }
};

QTEST_GUILESS_MAIN(ClientSamplingTest)
#include "tst_clientsampling.moc"
