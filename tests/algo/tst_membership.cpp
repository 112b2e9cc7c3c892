// fault_policy continue at a server: a round that closes without a contributor declared down, or
// at round_timeout_s, with the contributor left out of the fold order and the aggregate scaled to
// stand for every contributor.
#include "AggregatorRegistry.h"
#include "DataPlan.h"
#include "PushSlices.h"
#include "RoundCollector.h"
#include "TopologyReader.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace hips;
using namespace hips::test;

class MembershipTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // fault_policy continue: a contributor declared down mid-round is left out of the fold order
    // (the others fold in theirs), the round closes once everyone up has pushed, and the
    // aggregate stands for all (scaled by contributors / contributions, as a quorum's). The next
    // round begins without it, until it is back.
    void absentContributorIsLeftOut() {
        const std::vector<float> base{10.0f, 20.0f};
        RoundCollector c("p/server0", {"a", "b", "c"}, AggregatorRegistry::create("fedavg"));
        ModelBufferPool pool;
        c.foldOnArrival([&] { return RoundCollector::FoldTarget{pool.acquire(2), base.data()}; });
        c.tolerateLatePushes();
        QVERIFY(!c.add(push("c", 1, {4.0f, 8.0f}), 1, 2));  // held: a and b fold before it
        QVERIFY(!c.add(push("b", 1, {2.0f, 2.0f}), 1, 2));
        QVERIFY(!c.setAbsent("x", true));  // a stranger: nothing
        QVERIFY(c.setAbsent("a", true));  // everyone up is in: the round closes
        QVERIFY(c.takeFinalSlice());
        FloatBuffer out = c.takeFolded();
        QVERIFY(out);
        QCOMPARE((*out)[0], 10.0f + 1.5f * (2.0f + 4.0f));  // base + (3 / 2) · (b + c)
        QCOMPARE((*out)[1], 20.0f + 1.5f * (2.0f + 8.0f));
        // Round 2 without a: b and c close it; a's late push of round 1 is counted as late.
        QVERIFY(!c.add(push("a", 1, {1.0f, 1.0f}), 2, 2));
        QCOMPARE(c.late(), quint64(1));
        QVERIFY(!c.add(push("b", 2, {1.0f, 1.0f}), 2, 2));
        QVERIFY(c.add(push("c", 2, {3.0f, 3.0f}), 2, 2));
        // Back for round 3: all three are needed again.
        QVERIFY(!c.setAbsent("a", false));
        QVERIFY(!c.add(push("b", 3, {1.0f, 1.0f}), 3, 2));
        QVERIFY(!c.add(push("c", 3, {1.0f, 1.0f}), 3, 2));
        QVERIFY(c.add(push("a", 3, {1.0f, 1.0f}), 3, 2));
        // Down after its push: its contribution stays in, and the round still waits for the others.
        QVERIFY(!c.add(push("a", 4, {1.0f, 1.0f}), 4, 2));
        QVERIFY(!c.setAbsent("a", true));
        QVERIFY(!c.add(push("b", 4, {1.0f, 1.0f}), 4, 2));
        QVERIFY(c.add(push("c", 4, {1.0f, 1.0f}), 4, 2));
    }

    // Down and back within one round: that round does not wait for it (its missing slices were
    // counted without it), the next one does. With several slices each is scaled, before it goes
    // out, by the contributors whose slice of it is in.
    void leftOutContributorIsNotWaitedForAndEachSliceStandsForAll() {
        const size_t total = kSliceFloats + 2;
        RoundCollector c("p/server0", {"a", "b"}, AggregatorRegistry::create("fedavg"));
        ModelBufferPool pool;
        c.foldOnArrival([&] { return RoundCollector::FoldTarget{pool.acquire(total), nullptr}; });
        c.tolerateLatePushes();
        std::vector<Envelope> a = pushSlices("a", 1, total, [](size_t) { return 1.0f; });
        std::vector<Envelope> b = pushSlices("b", 1, total, [](size_t) { return 3.0f; });
        QVERIFY(!c.add(a[0], 1, total));
        QVERIFY(!c.add(b[0], 1, total));
        QCOMPARE(c.takeFinalSlice(), std::optional<size_t>(0));
        QCOMPARE(c.openWeight(), 2.0);  // the samples behind the slices that go up: a's and b's
        QVERIFY(!c.setAbsent("a", true));  // its slice 1 counted without it; b's slice 1 still to come
        QVERIFY(!c.setAbsent("a", false));  // back before the round closed
        // Its update is out of the round, and its samples with it: the next slices go up with b's
        // alone, as the whole sum would (roundWeight). (They counted a's, or 1 for one not drawn.)
        QCOMPARE(c.openWeight(), 1.0);
        QVERIFY(!c.add(a[1], 1, total));  // refused: that slice of the round was counted without it
        QVERIFY(c.add(b[1], 1, total));  // b was the one still awaited
        QCOMPARE(c.roundWeight(), 1.0);
        QCOMPARE(c.takeFinalSlice(), std::optional<size_t>(1));
        const FloatBuffer out = c.takeFolded();
        QCOMPARE((*out)[0], 4.0f);  // both pushes of slice 0
        QCOMPARE((*out)[kSliceFloats], 6.0f);  // b's alone, standing for two
        std::vector<Envelope> b2 = pushSlices("b", 2, total, [](size_t) { return 1.0f; });
        QVERIFY(!c.add(b2[0], 2, total));
        QVERIFY(!c.add(b2[1], 2, total));  // round 2 waits for a again
    }

    // round_timeout_s: a round closes with the whole contributions it has, if enough; the others'
    // pushes of it are late.
    void closeWithWhatCameNeedsEnough() {
        RoundCollector c("p/server0", {"a", "b", "c"}, AggregatorRegistry::create("fedavg"));
        ModelBufferPool pool;
        c.foldOnArrival([&] { return RoundCollector::FoldTarget{pool.acquire(1), nullptr}; });
        c.tolerateLatePushes();
        QVERIFY(!c.closeWithWhatCame(1));  // no round open
        QVERIFY(!c.add(push("b", 1, {3.0f}), 1, 1));
        QVERIFY(!c.closeWithWhatCame(2));  // one contribution, two needed
        QVERIFY(c.closeWithWhatCame(1));
        QCOMPARE((*c.takeFolded())[0], 9.0f);  // (3 / 1) · 3: it stands for all three
        QVERIFY(!c.add(push("a", 1, {1.0f}), 2, 1));
        QCOMPARE(c.late(), quint64(1));
        // A party server's next round waits for the global model: until it comes, round 1 is still
        // the one it expects, and a push of round 1 is late, not round 1 opened anew.
        QVERIFY(!c.add(push("c", 1, {5.0f}), 1, 1));
        QCOMPARE(c.late(), quint64(2));
        QVERIFY(!c.roundOpen());
        QCOMPARE(requiredContributors(0, 4), 4);
        QCOMPARE(requiredContributors(0.5, 3), 2);
        QCOMPARE(requiredContributors(3, 2), 2);
        QCOMPARE(requiredContributors(1, 5), 1);
        QCOMPARE(requiredContributors(0.07, 100), 7);  // (7.000000000000001 as a float's product)
    }

    // Client sampling: the contributors not drawn for a round are left out of it from its start;
    // the drawn ones close it in their fold order, the sum stands for all, and a push from one
    // not drawn is refused. The next round draws again.
    void contributorsNotDrawnAreLeftOutOfTheirRound() {
        const std::vector<float> base{10.0f, 20.0f};
        RoundCollector c("p/server0", {"a", "b", "c", "d"}, AggregatorRegistry::create("fedavg"));
        ModelBufferPool pool;
        c.foldOnArrival([&] { return RoundCollector::FoldTarget{pool.acquire(2), base.data()}; });
        c.setRoundContributors([](qint64 round) { return round == 1 ? QSet<QString>{"a", "c"} : QSet<QString>{"b"}; });
        QVERIFY(!c.add(push("c", 1, {4.0f, 8.0f}), 1, 2));  // held: a folds before it
        QVERIFY(!c.add(push("b", 1, {100.0f, 100.0f}), 1, 2));  // not drawn: refused
        QCOMPARE(c.rejected(), quint64(1));
        QVERIFY(c.add(push("a", 1, {2.0f, 2.0f}), 1, 2));
        FloatBuffer out = c.takeFolded();
        QCOMPARE((*out)[0], 10.0f + 2.0f * (2.0f + 4.0f));  // base + (4 / 2) · (a + c)
        QCOMPARE((*out)[1], 20.0f + 2.0f * (2.0f + 8.0f));
        QVERIFY(c.add(push("b", 2, {1.0f, 1.0f}), 2, 2));  // round 2 draws b alone
        out = c.takeFolded();
        QCOMPARE((*out)[0], 10.0f + 4.0f);
    }

    // Client sampling under fault_policy continue: a contributor that sits a round out is left out
    // of that round alone (its push of it is late); a round whose every drawn contributor is down
    // or sat out closes empty, its result the base, as a round that a rule that does not fold
    // would have aggregated (it is not asked).
    void aRoundNoDrawnContributorCanDeliverClosesEmpty() {
        const std::vector<float> base{10.0f, 20.0f};
        RoundCollector c("global", {"a", "b", "c"}, AggregatorRegistry::create("fedavg"));
        ModelBufferPool pool;
        c.foldOnArrival([&] { return RoundCollector::FoldTarget{pool.acquire(2), base.data()}; });
        c.tolerateLatePushes();
        c.setRoundContributors([](qint64 round) {
            return round == 2 ? QSet<QString>{"c"} : round == 3 ? QSet<QString>{"a", "c"} : QSet<QString>{"a", "b"};
        });
        QVERIFY(!c.sitOut("a", 1));  // before round 1 opens
        QVERIFY(!c.noneCanDeliver(1));
        QVERIFY(c.add(push("b", 1, {3.0f, 3.0f}), 1, 2));  // b alone closes it, standing for all three
        QCOMPARE((*c.takeFolded())[0], 10.0f + 3.0f * 3.0f);
        QVERIFY(!c.add(push("a", 1, {1.0f, 1.0f}), 2, 2));
        QCOMPARE(c.late(), quint64(1));
        QVERIFY(!c.closedEmpty());
        QVERIFY(!c.sitOut("a", 2));  // not drawn for round 2: nothing to sit out
        QVERIFY(!c.setAbsent("c", true));  // round 2's only drawn contributor
        QVERIFY(c.noneCanDeliver(2));
        QVERIFY(c.closeEmpty(2, 2));
        QVERIFY(c.closedEmpty());
        std::vector<float> out(2);
        c.write(out.data(), base.data(), 0, 2);  // (a round with a contributor down is not folded)
        QCOMPARE(out, base);
        QVERIFY(!c.noneCanDeliver(3));  // a sat out round 1 only
        QVERIFY(!c.closeEmpty(3, 2));
        QVERIFY(c.add(push("a", 3, {1.0f, 1.0f}), 3, 2));  // c is down: a closes it
        c.takeFolded();
        QVERIFY(!c.add(push("a", 4, {1.0f, 1.0f}), 4, 2));
        QVERIFY(c.sitOut("b", 4));  // the open round waited for b alone
        QVERIFY(!c.add(push("b", 4, {5.0f, 5.0f}), 5, 2));
        QCOMPARE(c.late(), quint64(2));
        QCOMPARE(c.rejected(), quint64(0));
        // Without client sampling nothing tells a round that can never come (the server waits),
        // and nobody sits one out.
        RoundCollector all("global", {"a", "b"}, AggregatorRegistry::create("fedavg"));
        QVERIFY(!all.setAbsent("a", true));
        QVERIFY(!all.sitOut("b", 1));
        QVERIFY(!all.noneCanDeliver(1));
        // A server none of whose contributors is drawn has no round to close.
        RoundCollector party("p/server0", {"a"}, AggregatorRegistry::create("fedavg"));
        party.setRoundContributors([](qint64) { return QSet<QString>{"elsewhere"}; });
        QVERIFY(!party.setAbsent("a", true));
        QVERIFY(!party.noneCanDeliver(1));
        // A rule that does not fold: the base, and the rule is not asked for an aggregate of nothing.
        RoundCollector median("global", {"a", "b"}, AggregatorRegistry::create("median"));
        median.setRoundContributors([](qint64) { return QSet<QString>{"a"}; });
        QVERIFY(!median.setAbsent("a", true));
        QVERIFY(median.closeEmpty(1, 2));
        std::vector<float> written{0.0f, 0.0f};
        median.write(written.data(), base.data(), 0, 2);
        QCOMPARE(written, base);
    }

    // A party server's round: what a drawn worker that went down had sent of it is dropped when
    // none drawn is left up, and the worker back starts the round again.
    void aRoundNoneCanFinishIsDroppedAndBegunAgain() {
        const size_t total = kSliceFloats + 2;
        RoundCollector c("p/server0", {"a", "b"}, AggregatorRegistry::create("fedavg"));
        ModelBufferPool pool;
        c.foldOnArrival([&] { return RoundCollector::FoldTarget{pool.acquire(total), nullptr}; });
        c.tolerateLatePushes();
        c.setRoundContributors([](qint64) { return QSet<QString>{"a"}; });
        std::vector<Envelope> a = pushSlices("a", 1, total, [](size_t) { return 2.0f; });
        QVERIFY(!c.add(a[0], 1, total));
        QVERIFY(!c.setAbsent("a", true));
        QVERIFY(c.noneCanDeliver(1));
        c.dropRound();
        QVERIFY(!c.roundOpen());
        QVERIFY(!c.setAbsent("a", false));
        QVERIFY(!c.noneCanDeliver(1));
        std::vector<Envelope> again = pushSlices("a", 1, total, [](size_t) { return 3.0f; });
        QVERIFY(!c.add(again[0], 1, total));
        QVERIFY(c.add(again[1], 1, total));
        const FloatBuffer out = c.takeFolded();
        QCOMPARE((*out)[0], 6.0f);  // a's whole push again, standing for both
        QCOMPARE((*out)[kSliceFloats], 6.0f);
    }

    // A robust rule over the parties' sums takes each per worker behind it: parties of 6, 1 and 1
    // workers, honest and alike (each worker's update d), give FedAvg's 8·d; the median of their
    // sums, 3 × d, put a party of 6 on a par with one of 1.
    void aCentreOfPartiesIsTakenPerWorker() {
        RoundCollector c("global", {"p1/server0", "p2/server0", "p3/server0"}, AggregatorRegistry::create("median"));
        c.setShares({{"p1/server0", 6.0}});
        QVERIFY(!c.add(push("p1/server0", 1, {6.0f, -12.0f}), 1, 2));
        QVERIFY(!c.add(push("p2/server0", 1, {1.0f, -2.0f}), 1, 2));
        QVERIFY(c.add(push("p3/server0", 1, {1.0f, -2.0f}), 1, 2));
        std::vector<float> out(2);
        c.write(out.data(), nullptr, 0, 2);
        QCOMPARE(out, (std::vector<float>{8.0f, -16.0f}));
    }

    // A global round that leaves a party out (undrawn, down, past its deadline) stands for it by
    // the workers behind each party's push, not by their count: a party of one left out beside a
    // party of three scales the three's sum by 4/3 (it was 2/1, and a party of one alone by 2:
    // the step's size depended on which party was drawn).
    void aRoundStandsForThoseLeftOutByTheWorkersBehindThem() {
        const std::vector<float> base{10.0f, 20.0f};
        const QSet<QString> parties{"p1/server0", "p3/server0"};
        const QHash<QString, double> behind{{"p1/server0", 1.0}, {"p3/server0", 3.0}};
        // Drawn: the slices are scaled as they become final.
        RoundCollector c("global", parties, AggregatorRegistry::create("fedavg"));
        ModelBufferPool pool;
        c.setShares(behind);
        c.foldOnArrival([&] { return RoundCollector::FoldTarget{pool.acquire(2), base.data()}; });
        c.setRoundContributors([](qint64 round) { return round == 1 ? QSet<QString>{"p3/server0"} : QSet<QString>{"p1/server0"}; });
        QVERIFY(c.add(push("p3/server0", 1, {3.0f, 6.0f}), 1, 2));
        FloatBuffer out = c.takeFolded();
        QCOMPARE((*out)[0], 10.0f + (4.0f / 3.0f) * 3.0f);
        QCOMPARE((*out)[1], 20.0f + (4.0f / 3.0f) * 6.0f);
        QVERIFY(c.add(push("p1/server0", 2, {1.0f, 1.0f}), 2, 2));
        out = c.takeFolded();
        QCOMPARE((*out)[0], 10.0f + 4.0f);  // one worker of four: its push times 4
        // Declared down before the round: the round is not folded in order, and is scaled as a whole.
        RoundCollector d("global", parties, AggregatorRegistry::create("fedavg"));
        d.setShares(behind);
        d.tolerateLatePushes();
        QVERIFY(!d.setAbsent("p1/server0", true));
        QVERIFY(d.add(push("p3/server0", 1, {3.0f, 6.0f}), 1, 2));
        std::vector<float> written(2);
        d.write(written.data(), base.data(), 0, 2);
        QCOMPARE(written[0], 10.0f + (4.0f / 3.0f) * 3.0f);
        QCOMPARE(written[1], 20.0f + (4.0f / 3.0f) * 6.0f);
    }

    // The shares a global round's contributors stand for: a party server's party's workers, a
    // collective party's pushing worker's too; a central worker, or any other, one.
    void workersBehindAPushAreItsPartysWorkers() {
        QFile f(HIPS_SOURCE_DIR "/resources/topologies/default.json");
        QVERIFY(f.open(QIODevice::ReadOnly));
        QJsonObject t = QJsonDocument::fromJson(f.readAll()).object();
        QJsonArray parties = t["parties"].toArray();
        QJsonObject party2 = parties[2].toObject(), roles = party2["roles"].toObject();
        roles["workers"] = QJsonArray{QJsonObject{{"count", 3}}};
        party2["roles"] = roles;
        parties[2] = party2;
        QJsonObject party1 = parties[1].toObject();
        party1["transport"] = "ring";
        parties[1] = party1;
        t["parties"] = parties;
        const TopologyLoad load = TopologyReader::readJson(QJsonDocument(t).toJson());
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
        const QHash<QString, double> behind = workersBehind(*load.topology, {"party1/worker0", "party2/server0", "party2/worker1"});
        QCOMPARE(behind.value("party1/worker0"), 2.0);  // a ring's pushing worker
        QCOMPARE(behind.value("party2/server0"), 3.0);
        QVERIFY(!behind.contains("party2/worker1"));  // one
    }

    // Two hosts' own sources with the same settings are two data sets, each on its host: each
    // host's worker reads all of its own (not half of each, as one source split in two).
    void eachHostsOwnSourceIsItsOwnDataSet() {
        QFile f(HIPS_SOURCE_DIR "/resources/topologies/default.json");
        QVERIFY(f.open(QIODevice::ReadOnly));
        QJsonObject t = QJsonDocument::fromJson(f.readAll()).object();
        const QJsonObject site{{"format", "csv"}, {"path", "/data/site.csv"}};
        t["hosts"] = QJsonArray{QJsonObject{{"id", "local"}, {"address", "127.0.0.1"}},
                                QJsonObject{{"id", "h1"}, {"address", "127.0.0.1"}, {"agent_port", 7071}, {"data", site}},
                                QJsonObject{{"id", "h2"}, {"address", "127.0.0.1"}, {"agent_port", 7072}, {"data", site}}};
        QJsonArray parties = t["parties"].toArray();
        QJsonObject party1 = parties[1].toObject(), party2 = parties[2].toObject(), roles = party2["roles"].toObject();
        party1["data"] = QJsonObject{{"format", "csv"}, {"path", "/data/p1.csv"}};
        roles["workers"] = QJsonArray{QJsonObject{{"host", "h1"}, {"count", 1}}, QJsonObject{{"host", "h2"}, {"count", 1}}};
        party2["roles"] = roles;
        parties[1] = party1;
        parties[2] = party2;
        t["parties"] = parties;
        QJsonObject training = t["training"].toObject();
        training["evaluation_data"] = QJsonObject{{"format", "csv"}, {"path", "/data/test.csv"}};
        t["training"] = training;
        const TopologyLoad load = TopologyReader::readJson(QJsonDocument(t).toJson());
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
        for (const char* worker : {"party2/worker0", "party2/worker1"}) {
            const DataPlan plan = dataPlanOf(*load.topology, *load.topology->node(worker));
            QCOMPARE(plan.partitions, 1);
            QCOMPARE(plan.parts.size(), 1);
            QCOMPARE(plan.parts[0].first, 0);
        }
        const DataPlan party1Plan = dataPlanOf(*load.topology, *load.topology->node("party1/worker1"));
        QCOMPARE(party1Plan.partitions, 2);  // (one source, the party's: split between its two workers)
        QCOMPARE(party1Plan.parts[0].first, 1);
    }
};

QTEST_GUILESS_MAIN(MembershipTest)
#include "tst_membership.moc"
