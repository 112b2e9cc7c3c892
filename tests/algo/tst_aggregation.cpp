// Aggregation math (FedAvg two-layer sums, robust rules behind a collector, asynchronous pushes
// and server optimizers); the round collector itself: tst_roundcollector.
#include "AggregatorRegistry.h"
#include "Adversary.h"
#include "AsyncGlobalTier.h"
#include "AsyncPushes.h"
#include "Collusion.h"
#include "DataPlan.h"
#include "FedAvgRule.h"
#include "FedOptimizer.h"
#include "GlobalPolicies.h"
#include "ModelRegistry.h"
#include "ShardedLinks.h"
#include "RoundCollector.h"
#include "PushSlices.h"
#include "TopologyReader.h"

#include <QtTest>
#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>
#include <cmath>

using namespace hips;
using namespace hips::test;

class AggregationTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // A server optimizer steps the weights of its own shard only: key slicing spreads ResNet-18's
    // running statistics over the global servers too. Two shards stepped apart and put together
    // are the whole model stepped at once: its weights stepped, its statistics averaged.
    void aServerOptimizerStepsItsShardsWeightsOnly() {
        TrainingSettings s;
        s.model = "resnet18", s.dataset = "cifar10", s.serverOptimizer = "adam";
        const ShardMap map = shardMapOf(s, 2);
        std::vector<float> w(map.total(), 1.0f), delta(map.total(), 0.5f), whole(map.total()), together(map.total(), 0.0f);
        serverOptimizerFor(s)->step(whole.data(), w.data(), delta.data(), w.size());
        for (int k = 0; k < 2; ++k) {
            std::vector<float> shardW(map.shardSize(k)), shardDelta(map.shardSize(k)), out(map.shardSize(k));
            map.gather(w.data(), k, shardW.data());
            map.gather(delta.data(), k, shardDelta.data());
            serverOptimizerFor(s, 2, k)->step(out.data(), shardW.data(), shardDelta.data(), out.size());
            map.scatter(out.data(), k, together.data());
        }
        QVERIFY(together == whole);
        const size_t weights = ModelRegistry::trainableFloats(s.modelSpec());
        QVERIFY(weights < map.total() && whole[weights] == 1.5f && whole[0] != 1.5f);
    }

    // Pushes taken as they come: whole once the last slice is in, in any order; strangers,
    // replays and bases the server never sent are refused; a push with a NaN comes out without
    // values (its sender is still answered).
    void asyncPushesAssembleAndRefuse() {
        AsyncPushes pushes("central/global_server0", {"a", "b"});
        const size_t total = kSliceFloats + 3;
        std::vector<Envelope> a = pushSlices("a", 1, total, [](size_t i) { return float(i % 7); });
        std::optional<WholePush> whole = pushes.add(a[1], total, 0);
        QVERIFY(!whole);
        auto stranger = push("z", 1, {1, 2, 3});
        QVERIFY(!pushes.add(stranger, 3, 0));
        whole = pushes.add(a[0], total, 0);
        QVERIFY(whole && whole->values);
        QCOMPARE(whole->sender, QStringLiteral("a"));
        QCOMPARE(whole->base, qint64(0));
        QCOMPARE((*whole->values)[kSliceFloats + 2], float((kSliceFloats + 2) % 7));
        QCOMPARE(pushes.rejected(), quint64(1));

        std::vector<Envelope> replay = pushSlices("a", 1, total, [](size_t) { return 1.0f; });
        QVERIFY(!pushes.add(replay[0], total, 0));  // round 1 again
        std::vector<Envelope> tooNew = pushSlices("b", 1, total, [](size_t) { return 1.0f; });
        tooNew[0].message.fields[QStringLiteral("base")] = 5;
        QVERIFY(!pushes.add(tooNew[0], total, 4));  // a base newer than the newest version
        QCOMPARE(pushes.rejected(), quint64(3));

        std::vector<Envelope> poisoned =
            pushSlices("b", 2, total, [](size_t i) { return i == 5 ? std::numeric_limits<float>::quiet_NaN() : 1.0f; });
        QVERIFY(!pushes.add(poisoned[0], total, 4));
        whole = pushes.add(poisoned[1], total, 4);
        QVERIFY(whole);
        QVERIFY(!whole->values);
        QCOMPARE(pushes.nonFinite(), quint64(1));
    }

    // The asynchronous modes: a worker's pushes beyond its share of the run (rounds x its pushes a
    // round), forwarded by its party server, are refused: answered with a newer version, not
    // applied, and no share of a round, so a worker pushing on and on neither outweighs the
    // others nor ends the run early.
    void anAsyncPushBeyondItsWorkersShareIsRefused() {
        const TopologyLoad load = TopologyReader::readFile(HIPS_SOURCE_DIR "/tests/data/topologies/small.json");
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
        Topology t = *load.topology;
        t.training.mode = QStringLiteral("asgd");
        t.training.rounds = 2;
        RoleContext ctx(t, *t.node("central/global_server0"), QDir::tempPath());
        AsyncGlobalTier tier(ctx, {"party1/server0", "party2/server0"});
        const qint64 share = t.training.rounds * t.training.workerPushesPerRound();
        QVERIFY(share >= 1 && tier.pushesPerRound() > 2);  // a round is more than one worker's push
        std::vector<float> initial(3, 0.0f);
        ModelBufferPool pool;
        ModelVersion model{0, {}, initial.data(), initial.size()};
        auto pushOfWorker0 = [&](qint64 round) {
            Envelope e = push("party1/server0", round, {1, 1, 1}, 0, 0, model.version);
            e.message.fields.insert(QStringLiteral("origin"), QStringLiteral("party1/worker0"));
            const auto applied = tier.add(e, model, pool);
            if (!applied) qFatal("push %lld was not whole", qint64(round));
            return *applied;
        };
        for (qint64 round = 1; round <= share; ++round) {
            const AsyncGlobalTier::Applied a = pushOfWorker0(round);
            QVERIFY(!a.refused);
            QCOMPARE(a.origin, QStringLiteral("party1/worker0"));
        }
        QCOMPARE(model.data[0], float(share));
        const AsyncGlobalTier::Applied beyond = pushOfWorker0(share + 1);
        QVERIFY(beyond.refused && !beyond.roundDone);
        QCOMPARE(beyond.sender, QStringLiteral("party1/server0"));  // answered all the same
        QCOMPARE(model.version, share + 1);
        QCOMPARE(model.data[0], float(share));  // not applied
        QCOMPARE(tier.rejected(), quint64(1));
    }

    // DC-ASGD compensates gradients: BatchNorm's running statistics (after the weights) of a stale
    // push go in as they came (they were compensated as if a gradient, and a running variance
    // could go below zero).
    void delayCompensationLeavesTheRunningStatistics() {
        const TopologyLoad load = TopologyReader::readFile(HIPS_SOURCE_DIR "/tests/data/topologies/small.json");
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
        Topology t = *load.topology;
        t.training.mode = QStringLiteral("dcasgd");
        t.training.model = QStringLiteral("resnet18");
        t.training.dataset = QStringLiteral("cifar10");
        const size_t total = ModelRegistry::parameterCount(t.training.modelSpec());
        const size_t weights = ModelRegistry::trainableFloats(t.training.modelSpec());
        QVERIFY(weights < total);
        RoleContext ctx(t, *t.node("central/global_server0"), QDir::tempPath());
        AsyncGlobalTier tier(ctx, {"party1/server0", "party2/server0"});
        std::vector<float> initial(total, 0.0f);
        ModelBufferPool pool;
        ModelVersion model{0, {}, initial.data(), total};
        auto pushOnes = [&](const QString& from) {  // based on version 0
            std::optional<AsyncGlobalTier::Applied> applied;
            for (Envelope& e : pushSlices(from, 1, total, [](size_t) { return 1.0f; })) applied = tier.add(e, model, pool);
            return applied;
        };
        QVERIFY(pushOnes("party1/server0"));
        const std::optional<AsyncGlobalTier::Applied> stale = pushOnes("party2/server0");
        QVERIFY(stale && stale->compensated && stale->staleness == 1);
        QVERIFY(model.data[0] < 2.0f);  // a weight: compensated
        QVERIFY(model.data[weights - 1] < 2.0f);
        QCOMPARE(model.data[weights], 2.0f);  // a running statistic: as it came
        QCOMPARE(model.data[total - 1], 2.0f);
    }

    void registryKnowsFedAvg() {
        QVERIFY(AggregatorRegistry::names().contains("fedavg"));
        QVERIFY(AggregatorRegistry::create("fedavg"));
        QVERIFY(!AggregatorRegistry::create("nonsense"));
    }

    // Two parties of two workers: w + Σ_parties Σ_workers (w_i − w)/N equals the plain mean of w_i.
    void twoLayerFedAvgIsTheMeanOfLocalModels() {
        const std::vector<float> w{1.0f, -2.0f, 0.5f};
        const std::vector<std::vector<float>> local{{2, 0, 1}, {0, -4, 0}, {1, -2, 3}, {5, 2, -1}};
        const float n = float(local.size());
        std::vector<std::vector<float>> partySums;
        for (int party = 0; party < 2; ++party) {
            auto agg = AggregatorRegistry::create("fedavg");
            agg->begin(w.size());
            for (int k = 0; k < 2; ++k) {
                std::vector<float> delta(w.size());
                for (size_t i = 0; i < w.size(); ++i) delta[i] = (local[party * 2 + k][i] - w[i]) / n;
                agg->add({QString("p%1/worker%2").arg(party).arg(k), 64, delta.data(), delta.size(), nullptr});
            }
            QCOMPARE(agg->contributions(), 2);
            partySums.push_back(sumOf(*agg, w.size()));
        }
        auto global = AggregatorRegistry::create("fedavg");
        global->begin(w.size());
        for (const auto& s : partySums) global->add({"p/server0", 128, s.data(), s.size(), nullptr});
        std::vector<float> next(w.size());
        global->write(next.data(), w.data(), 0, w.size());  // w + ΣΔ, as the global server applies it
        for (size_t i = 0; i < w.size(); ++i) {
            float mean = 0;
            for (const auto& l : local) mean += l[i] / n;
            QVERIFY(std::abs(next[i] - mean) < 1e-6f);
        }
    }

    // Contributions are held (without a copy when they come with an owner) and summed when
    // written; a contribution without an owner is copied, so the caller may reuse its buffer.
    void heldContributionsSumCorrectly() {
        auto agg = AggregatorRegistry::create("fedavg");
        for (int round = 0; round < 2; ++round) {
            agg->begin(3);
            auto a = std::make_shared<std::vector<float>>(std::vector<float>{1, 2, 3});
            agg->add({"a", 1, a->data(), 3, a});
            QCOMPARE(sumOf(*agg, 3)[2], 3.0f);  // one contribution: the sum is the contribution
            float b[3] = {10, 20, 30};
            agg->add({"b", 1, b, 3, nullptr});
            b[0] = b[1] = b[2] = -99;  // reused by the caller after add: must not matter
            const float c[3] = {100, 200, 300};
            agg->add({"c", 1, c, 3, nullptr});
            QCOMPARE(sumOf(*agg, 3), (std::vector<float>{111, 222, 333}));
            std::vector<float> part(3, -1.0f);
            const float base[3] = {1000, 2000, 3000};
            agg->write(part.data(), base, 1, 3);  // a range, with a base
            QCOMPARE(part, (std::vector<float>{-1, 2222, 3333}));
        }
    }

    void wrongLengthThrows() {
        auto agg = AggregatorRegistry::create("fedavg");
        agg->begin(4);
        const float v[3] = {1, 2, 3};
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, agg->add({"a", 1, v, 3, nullptr}));
    }

    // A rule sees each contribution with its sender and the weight its push carried (absent: 1),
    // and finish() once per round, before anything is written; a weight that is no positive
    // number refuses the push.
    void ruleSeesSendersWeightsAndFinish() {
        struct Recording final : AggregationRule {
            QString name() const override { return "recording"; }
            void begin(size_t length) override {
                inner.begin(length);
                seen.clear();
            }
            void add(Contribution c) override {
                seen.append(c.from + '=' + QString::number(c.weight));
                inner.add(std::move(c));
            }
            int contributions() const override { return inner.contributions(); }
            void finish() override { ++finished; }
            void write(float* out, const float* base, size_t b, size_t e) const override { inner.write(out, base, b, e); }
            FedAvgRule inner;
            QStringList seen;
            int finished = 0;
        };
        auto owned = std::make_unique<Recording>();
        Recording* rule = owned.get();
        RoundCollector c("p/server0", {"p/w0", "p/w1", "p/w2"}, std::move(owned));
        auto weighted = [](const QString& peer, std::vector<float> v, const QCborValue& weight) {
            Envelope e = push(peer, 1, std::move(v));
            if (!weight.isUndefined()) e.message.fields.insert(QStringLiteral("weight"), weight);
            return e;
        };
        QVERIFY(!c.add(weighted("p/w0", {1, 2}, 640), 1, 2));
        QVERIFY(!c.add(weighted("p/w1", {3, 4}, -5), 1, 2));  // refused
        QVERIFY(!c.add(weighted("p/w1", {3, 4}, QCborValue()), 1, 2));
        QCOMPARE(c.rejected(), quint64(1));
        QCOMPARE(rule->finished, 0);
        QVERIFY(c.add(weighted("p/w2", {5, 6}, 64.5), 1, 2));
        QCOMPARE(rule->finished, 1);
        QCOMPARE(rule->seen, (QStringList{"p/w0=640", "p/w1=1", "p/w2=64.5"}));
        QCOMPARE(c.roundWeight(), 705.5);
        QCOMPARE(sumOf(c, 2), (std::vector<float>{9, 12}));
    }

    // A worker's claim of samples is bounded by the plan (local_iters x batch_size a push): a
    // larger one counts as the bound, and is counted; the push itself still goes in.
    void aClaimAboveThePlanCountsAsThePlansMost() {
        const TopologyLoad load = TopologyReader::readFile(HIPS_SOURCE_DIR "/tests/data/topologies/small.json");
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
        const QHash<QString, double> bounds = claimBounds(*load.topology, {"party1/worker0", "party1/worker1", "party1/server0"});
        QCOMPARE(bounds.value("party1/worker0"), 320.0);  // small.json: 10 steps of 32
        QVERIFY(!bounds.contains("party1/server0"));  // its weight is the sum of the claims it accepted
        Topology epochs = *load.topology;
        epochs.training.localIters = 0;
        epochs.training.localEpochs = 1;
        QVERIFY(claimBounds(epochs, {"party1/worker0"}).isEmpty());  // the shard's size decides
        Topology hfa = *load.topology;  // a push is a party sync: k1 steps (honest pushes were overclaims)
        hfa.training.mode = "hfa";
        hfa.training.params.insert("k1", 40);
        QCOMPARE(claimBounds(hfa, {"party1/worker0"}).value("party1/worker0"), 40.0 * 32);
        hfa.training.mode = "esync";  // its state service decides the steps
        QVERIFY(claimBounds(hfa, {"party1/worker0"}).isEmpty());

        RoundCollector c("party1/server0", {"party1/worker0", "party1/worker1"}, AggregatorRegistry::create("fedavg"));
        c.setClaimBounds(bounds);
        Envelope liar = push("party1/worker0", 1, {1, 2});
        liar.message.fields.insert(QStringLiteral("weight"), 1e15);
        Envelope honest = push("party1/worker1", 1, {3, 4});
        honest.message.fields.insert(QStringLiteral("weight"), 320);
        QVERIFY(!c.add(liar, 1, 2));
        QVERIFY(c.add(honest, 1, 2));
        QCOMPARE(c.overclaims(), quint64(1));
        QCOMPARE(c.rejected(), quint64(0));
        QCOMPARE(c.roundWeight(), 640.0);  // the liar's 1e15 bought nothing
        QCOMPARE(sumOf(c, 2), (std::vector<float>{4, 6}));
    }

    // Under local_epochs no plan bounds a worker's claim, so each may claim up to 1e15 samples; a
    // party server's push carries its workers' sum and may claim 1e15 per worker behind it: one
    // liar's 1e15 plus an honest claim must not get the party's push refused (its round would wait).
    void aPartysPushMayClaimTheMostOfEachWorkerBehindIt() {
        RoundCollector c("global/server0", {"party1/server0", "party2/server0"}, AggregatorRegistry::create("fedavg"));
        c.setShares({{"party1/server0", 2.0}});
        Envelope party1 = push("party1/server0", 1, {1, 2});
        party1.message.fields.insert(QStringLiteral("weight"), 1e15 + 320);
        Envelope party2 = push("party2/server0", 1, {3, 4});
        party2.message.fields.insert(QStringLiteral("weight"), 1e15 + 1);  // one worker behind it
        QVERIFY(!c.add(party1, 1, 2));
        QVERIFY(!c.add(party2, 1, 2));
        QCOMPARE(c.rejected(), quint64(1));
        QCOMPARE(c.openWeight(), 1e15 + 320);
    }

    // alie and ipm: the server that receives the liars' pushes replaces each by the attack's vector
    // from the round's honest updates (the papers' omniscient, colluding attacker), before the rule.
    void colludingLiarsAreSimulatedAtTheServer() {
        QVERIFY(std::abs(alieZ(50, 12) - 0.5828415072712162) < 1e-9);  // Baruch et al.: n 50, f 12: s 14, z = Φ⁻¹(0.72)
        const float a[] = {1, 3}, b[] = {3, 5};
        float out[2];
        colludingUpdate({"alie", 1.5, 0}, {a, b}, 2, 3, 1, out);
        QCOMPARE(out[0], 0.5f);  // mean 2 − 1.5 × σ 1
        QCOMPARE(out[1], 2.5f);
        colludingUpdate({"ipm", 0.5, 0}, {a, b}, 2, 3, 1, out);
        QCOMPARE(out[0], -1.0f);
        QCOMPARE(out[1], -2.0f);
        colludingUpdate({"alie", 0, 0}, {a, b}, 2, 3, 1, out);  // z 0: the paper's z_max for n 3 and 1 liar
        QCOMPARE(out[0], float(2 - alieZ(3, 1)));

        TopologyLoad load = TopologyReader::readFile(HIPS_SOURCE_DIR "/tests/data/topologies/small.json");
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
        Topology t = *load.topology;
        t.parties[1].workers[0].adversary = AdversarySpec{"ipm", 2, 0};  // party1's two workers lie
        t.parties[1].workers[0].count = 2;
        t.parties[1].workers << WorkerGroup{};
        t.parties[1].workers.last().host = t.parties[1].workers[0].host;  // and one more, honest
        t.parties[1].workers.last().count = 1;
        QCOMPARE(t.node("party1/worker2")->adversary.kind, QString());
        RoundCollector c("party1/server0", {"party1/worker0", "party1/worker1", "party1/worker2"},
                         withCollusion(AggregatorRegistry::create("fedavg"), t));
        QVERIFY(!c.add(push("party1/worker0", 1, {1, 1}), 1, 2));
        QVERIFY(!c.add(push("party1/worker1", 1, {1, 1}), 1, 2));
        QVERIFY(c.add(push("party1/worker2", 1, {3, 5}), 1, 2));
        QCOMPARE(sumOf(c, 2), (std::vector<float>{3 - 6 - 6, 5 - 10 - 10}));  // each liar sent −2 × the honest mean
        // Without a colluding attack in the topology the rule is the rule itself.
        const auto plain = withCollusion(AggregatorRegistry::create("fedavg"), *load.topology);
        QVERIFY(plain->foldsOnArrival());
        // At the global tier, behind a rule that takes a centre: two parties of three workers
        // each send 3u, and the step is the six workers' 6u, as without the attack declared
        // (the centre was scaled by the contributions the simulation held: none after finish()).
        RoundCollector global("central/global_server0", {"party1/server0", "party2/server0"},
                              withCollusion(AggregatorRegistry::create("median"), t));
        global.setShares({{"party1/server0", 3.0}, {"party2/server0", 3.0}});
        QVERIFY(!global.add(push("party1/server0", 1, {3, 6}), 1, 2));
        QVERIFY(global.add(push("party2/server0", 1, {3, 6}), 1, 2));
        QCOMPARE(sumOf(global, 2), (std::vector<float>{6, 12}));
    }

    // The colluders' lie is the same bits whatever order the pushes came in: it sums the honest
    // values and takes the first liar's settings in the senders' order (in arrival order, two
    // runs with one seed differed, and outright where the liars' settings differ).
    void colludersLieTheSameWhateverTheArrival() {
        TopologyLoad load = TopologyReader::readFile(HIPS_SOURCE_DIR "/tests/data/topologies/small.json");
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
        Topology t = *load.topology;
        QList<WorkerGroup>& groups = t.parties[1].workers;
        groups[0].count = 1;
        groups[0].adversary = AdversarySpec{"ipm", 2, 0};  // party1/worker0
        groups << groups[0] << groups[0] << groups[0];
        groups[1].adversary = AdversarySpec{"ipm", 4, 0};  // party1/worker1
        groups[2].adversary = groups[3].adversary = std::nullopt;  // party1/worker2, worker3: honest
        QCOMPARE(t.node("party1/worker1")->adversary.strength, 4.0);
        QCOMPARE(t.node("party1/worker3")->adversary.kind, QString());
        auto round = [&](const QStringList& arrival) {
            RoundCollector c("party1/server0", {"party1/worker0", "party1/worker1", "party1/worker2", "party1/worker3"},
                             withCollusion(AggregatorRegistry::create("median"), t));
            const QHash<QString, std::vector<float>> values{
                {"party1/worker0", {0, 0}}, {"party1/worker1", {0, 0}}, {"party1/worker2", {0.1f, 3}}, {"party1/worker3", {0.7f, 1}}};
            for (const QString& from : arrival) c.add(push(from, 1, values.value(from)), 1, 2);
            return sumOf(c, 2);
        };
        const std::vector<float> inOrder = round({"party1/worker0", "party1/worker1", "party1/worker2", "party1/worker3"});
        QCOMPARE(round({"party1/worker3", "party1/worker1", "party1/worker2", "party1/worker0"}), inOrder);
        QCOMPARE(round({"party1/worker1", "party1/worker0", "party1/worker3", "party1/worker2"}), inOrder);
    }
};

QTEST_GUILESS_MAIN(AggregationTest)
#include "tst_aggregation.moc"
