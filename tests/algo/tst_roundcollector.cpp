// A server's round: the pushes it takes and refuses, how they fold into the model slice by slice
// (in the contributors' order, whatever the arrival), and the slices that stream the model out.
#include "AggregatorRegistry.h"
#include "PushSlices.h"
#include "RoundCollector.h"
#include "ShardedLinks.h"

#include <QtTest>
#include <cstring>
#include <limits>
#include <cmath>

using namespace hips;
using namespace hips::test;

class RoundCollectorTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void collectorRejectsBadPushes() {
        RoundCollector c("p/server0", {"p/worker0", "p/worker1"}, AggregatorRegistry::create("fedavg"));
        QVERIFY(!c.add(push("q/worker9", 1, {1, 1}), 1, 2));  // stranger
        QVERIFY(!c.add(push("p/worker0", 2, {1, 1}), 1, 2));  // wrong round
        QVERIFY(!c.add(push("p/worker0", 1, {1, 1, 1}), 1, 2));  // wrong size
        QVERIFY(!c.add(push("p/worker0", 1, {1, 1}, 0, 3), 1, 2));  // a slice of an update of another size
        QVERIFY(!c.add(push("p/worker0", 1, {1}, 1, 2), 1, 2));  // not on a slice boundary
        Envelope noFrame = push("p/worker0", 1, {1, 1});
        noFrame.message.frames.clear();
        QVERIFY(!c.add(noFrame, 1, 2));
        QCOMPARE(c.rejected(), quint64(6));
        // Poison: NaN is refused (and counted), and the slice counts as delivered, so the round
        // does not wait for it; a second push of it is refused.
        QVERIFY(!c.add(push("p/worker0", 1, {1, std::numeric_limits<float>::quiet_NaN()}), 1, 2));
        QCOMPARE(c.rejectedNonFinite(), quint64(1));
        QVERIFY(!c.add(push("p/worker0", 1, {1, 2}), 1, 2));  // twice in a round
        QCOMPARE(c.rejected(), quint64(8));
        QVERIFY(c.add(push("p/worker1", 1, {10, 20}), 1, 2));  // completes the round, without worker0
        // worker1's stands for both, as for a lost worker (the refused one counted as zeros: a
        // round with a broken worker took a step 1/N short)
        QCOMPARE(sumOf(c, 2), (std::vector<float>{20, 40}));
        QVERIFY(!c.add(push("p/worker1", 2, {1, 1}), 2, 2));  // the next round starts afresh
        QVERIFY(c.add(push("p/worker0", 2, {std::numeric_limits<float>::infinity(), 1}), 2, 2));  // refused, and the last
        QCOMPARE(c.rejectedNonFinite(), quint64(2));
        QCOMPARE(sumOf(c, 2), (std::vector<float>{2, 2}));
        QCOMPARE(c.roundWeight(), 2.0);  // (and for its samples: the weight is both pushes')
        QVERIFY(!c.closedEmpty());
    }

    // Every push of a round refused as not finite (a ×100 attack past the rule's bound overflows):
    // the robust rule's round closes with nothing, leaves the model as it was and says so; the
    // next round aggregates as usual. (It once threw, and the party server exited.)
    void aRoundOfRefusedPushesLeavesTheModel() {
        RoundCollector c("p/server0", {"p/worker0", "p/worker1"}, AggregatorRegistry::create("median"));
        const float inf = std::numeric_limits<float>::infinity();
        QVERIFY(!c.add(push("p/worker0", 1, {inf, 1}), 1, 2));
        QVERIFY(c.add(push("p/worker1", 1, {1, -inf}), 1, 2));  // the round closes, on nothing
        QCOMPARE(c.rejectedNonFinite(), quint64(2));
        QCOMPARE(sumOf(c, 2), (std::vector<float>{0, 0}));
        QVERIFY(c.closedEmpty());  // (so no server optimizer steps on it)
        QVERIFY(c.ruleRecord(1).value(QStringLiteral("short_round")).toString().contains("the model is left as it was"));
        QVERIFY(!c.add(push("p/worker0", 2, {1, 2}), 2, 2));
        QVERIFY(c.add(push("p/worker1", 2, {3, 4}), 2, 2));
        QCOMPARE(sumOf(c, 2), (std::vector<float>{4, 6}));  // 2 × the median of two: their mean
        QVERIFY(!c.closedEmpty());
        // Fewer than the rule needs, none refused: a short round too, on which a server optimizer
        // takes no step (closedEmpty; it stepped on its momentum).
        RoundCollector krum("p/server0", {"p/worker0", "p/worker1"}, AggregatorRegistry::create("krum"));
        QVERIFY(!krum.add(push("p/worker0", 1, {1, 2}), 1, 2));
        QVERIFY(krum.add(push("p/worker1", 1, {3, 4}), 1, 2));
        QVERIFY(krum.ruleRecord(1).contains(QStringLiteral("short_round")));
        QVERIFY(krum.closedEmpty());
    }

    // A refused push under a quorum fills its seat (a round of broken workers never waits for
    // ever), and the others' sum stands for all: 2 of 4 with one refused is b's × 4, not × 2.
    void aRefusedPushInAQuorumRoundIsMadeUpFor() {
        for (const bool folds : {false, true}) {
            RoundCollector c("p/server0", {"a", "b", "c", "d"}, AggregatorRegistry::create("fedavg"), 2);
            ModelBufferPool pool;
            if (folds) c.foldOnArrival([&] { return RoundCollector::FoldTarget{pool.acquire(1), nullptr}; });
            QVERIFY(!c.add(push("a", 1, {std::numeric_limits<float>::quiet_NaN()}), 1, 1));
            QVERIFY(c.add(push("b", 1, {1.0f}), 1, 1));
            const FloatBuffer folded = c.takeFolded();
            QCOMPARE(folds, bool(folded));
            QCOMPARE((folded ? *folded : sumOf(c, 1))[0], 4.0f);
        }
    }

    // A collective party's member leaves its slices that hold a value that is no number out of
    // its part of the sum (zeros, flag 0), and the sum's slices stand for every member by the
    // flags summed.
    void aCollectiveMembersSlicesThatAreNoNumbersAreLeftOut() {
        const size_t total = kSliceFloats + 3;
        std::vector<float> values(total, 2.0f);
        values[kSliceFloats + 1] = std::numeric_limits<float>::infinity();
        QCOMPARE(keepFiniteSlices(values.data(), total), (std::vector<float>{1, 0}));
        QCOMPARE(values[kSliceFloats], 0.0f);
        QCOMPARE(values[0], 2.0f);
        const std::vector<float> present{2, 1};
        standForEveryMember(values.data(), total, present.data(), 3);
        QCOMPARE(values[0], 3.0f);  // × 3/2
        QCOMPARE(values[kSliceFloats - 1], 3.0f);
        values.assign(total, 1.0f);
        standForEveryMember(values.data(), total, present.data(), 2);  // none missing in slice 0; 1 of 2 in slice 1
        QCOMPARE(values[0], 1.0f);
        QCOMPARE(values[total - 1], 2.0f);
        // A slice no member reached: zero, or passed on as no number for the global server.
        const std::vector<float> none{0, 2};
        for (const float unreached : {0.0f, std::numeric_limits<float>::quiet_NaN()}) {
            values.assign(total, 0.0f);
            standForEveryMember(values.data(), total, none.data(), 2, unreached);
            QCOMPARE(std::isnan(values[0]), std::isnan(unreached));
            QCOMPARE(std::isnan(values[kSliceFloats - 1]), std::isnan(unreached));
            QCOMPARE(values[kSliceFloats], 0.0f);
        }
    }

    // Where the global tier closes rounds over the parties' sums, a range none of a party's
    // workers reached goes up as no number, and the global server leaves that range of the party
    // out, the other party's sum standing for both; zeros there counted as the party's update and
    // halved that range's step. Not where the global server applies sums as they come, nor under
    // HFA or secure aggregation.
    void aPartysRangeNoWorkerReachedIsLeftOutAboveIt() {
        const size_t total = kSliceFloats + 2;
        const float nan = std::numeric_limits<float>::quiet_NaN();
        ModelBufferPool pool;
        const auto partySum = [&](const QString& party, const std::function<float(size_t)>& fill, bool passOn) {
            RoundCollector c(party + "/server0", {party + "/worker0", party + "/worker1"}, AggregatorRegistry::create("fedavg"));
            if (passOn) c.passOnUnreached();
            c.foldOnArrival([&] { return RoundCollector::FoldTarget{pool.acquire(total), nullptr}; });
            for (const QString w : {"/worker0", "/worker1"})
                for (Envelope& e : pushSlices(party + w, 1, total, fill)) c.add(e, 1, total);
            const FloatBuffer sum = c.takeFolded();
            return pushSlices(party + "/server0", 1, total, [&](size_t i) { return (*sum)[i]; });
        };
        for (const bool passOn : {false, true}) {
            // p1's workers diverged in slice 1 (NaN), p2's push 1 everywhere.
            std::vector<Envelope> p1 = partySum(
                "p1", [&](size_t i) { return i >= kSliceFloats ? nan : 1.0f; }, passOn);
            std::vector<Envelope> p2 = partySum(
                "p2", [](size_t) { return 1.0f; }, passOn);
            std::vector<float> base(total, 10.0f);
            RoundCollector global("global/server0", {"p1/server0", "p2/server0"}, AggregatorRegistry::create("fedavg"));
            global.foldOnArrival([&] { return RoundCollector::FoldTarget{pool.acquire(total), base.data()}; });
            QVERIFY(!global.add(p1[0], 1, total));
            QVERIFY(!global.add(p1[1], 1, total));
            QVERIFY(!global.add(p2[0], 1, total));
            QVERIFY(global.add(p2[1], 1, total));
            const FloatBuffer next = global.takeFolded();
            QCOMPARE((*next)[0], 14.0f);  // both parties' 2 + 2
            QCOMPARE((*next)[total - 1], passOn ? 14.0f : 12.0f);  // p2's 2 standing for both, or p1's zeros counted
            QCOMPARE(global.rejectedNonFinite(), quint64(passOn ? 1 : 0));
        }
        TrainingSettings s;  // (two layers)
        for (const auto& [mode, secure, passes] : std::vector<std::tuple<QString, bool, bool>>{{"fedavg", false, true},
                                                                                               {"esync", false, true},
                                                                                               {"fedavg", true, false},
                                                                                               {"hfa", false, false},
                                                                                               {"mixed_sync", false, false}}) {
            s.mode = mode;
            s.secureAggregation = secure;
            QVERIFY2(partiesPassOnUnreached(s) == passes, qPrintable(mode));
        }
        // A global rule that leaves out a whole update for one refused range: not there either.
        s.mode = QStringLiteral("fedavg");
        s.secureAggregation = false;
        s.aggregation = QStringLiteral("median");
        QVERIFY(!partiesPassOnUnreached(s));
        s.aggregation = QStringLiteral("fedavg");
        s.params.insert(QStringLiteral("quorum"), 0.5);
        QVERIFY(!partiesPassOnUnreached(s));
    }

    // Folded on arrival: the result is base + Σ over the contributions, each slice final (and
    // reported once) when every contributor's push of it is in, in whatever order they come.
    void foldedRoundIsBasePlusSumSliceBySlice() {
        const size_t total = 2 * kSliceFloats + 5;
        std::vector<float> base(total);
        for (size_t i = 0; i < total; ++i) base[i] = float(i % 7);
        RoundCollector c("central/global_server0", {"a", "b"}, AggregatorRegistry::create("fedavg"));
        ModelBufferPool pool;
        c.foldOnArrival([&] { return RoundCollector::FoldTarget{pool.acquire(total), base.data()}; });
        for (int round = 1; round <= 2; ++round) {
            std::vector<Envelope> a = pushSlices("a", round, total, [&](size_t i) { return float(i % 5) * round; });
            std::vector<Envelope> b = pushSlices("b", round, total, [](size_t i) { return -float(i % 3); });
            QVERIFY(!c.add(a[2], round, total));
            QVERIFY(!c.add(b[0], round, total));
            QVERIFY(!c.takeFinalSlice());
            QVERIFY(!c.add(b[2], round, total));
            QCOMPARE(c.takeFinalSlice(), std::optional<size_t>(2));  // a's and b's slice 2 are in
            QVERIFY(!c.takeFinalSlice());
            QVERIFY(!c.add(a[0], round, total));
            QCOMPARE(c.takeFinalSlice(), std::optional<size_t>(0));
            QVERIFY(!c.add(a[1], round, total));
            QVERIFY(c.add(b[1], round, total));
            QCOMPARE(c.takeFinalSlice(), std::optional<size_t>(1));
            const FloatBuffer out = c.takeFolded();
            QVERIFY(out);
            for (size_t i = 0; i < total; ++i) QCOMPARE((*out)[i], base[i] + float(i % 5) * round - float(i % 3));
            QVERIFY(!c.takeFolded());
        }
    }

    // Float addition is not associative: the fold follows the contributors' order (by id), not
    // the arrival order, so every arrival order gives the same bits (a resumed run is the
    // uninterrupted one). Values are chosen so that orders differ: 1e8 + 1 − 1e8 is 0 or 1.
    void foldOrderIsTheContributorsWhateverTheArrival() {
        const QStringList ids{"w0", "w1", "w2", "w3"};
        const std::vector<float> values{1e8f, 1.0f, -1e8f, 1.0f};
        const std::vector<float> base{0.5f};
        const float expected = ((((base[0] + values[0]) + values[1]) + values[2]) + values[3]);
        std::vector<int> arrival{0, 1, 2, 3};
        int orders = 0;
        do {
            RoundCollector c("p/server0", {ids.begin(), ids.end()}, AggregatorRegistry::create("fedavg"));
            ModelBufferPool pool;
            c.foldOnArrival([&] { return RoundCollector::FoldTarget{pool.acquire(1), base.data()}; });
            for (int k = 0; k < 4; ++k) QCOMPARE(c.add(push(ids[arrival[k]], 1, {values[size_t(arrival[k])]}), 1, 1), k == 3);
            const FloatBuffer out = c.takeFolded();
            QVERIFY(out);
            QCOMPARE(std::memcmp(&(*out)[0], &expected, sizeof(float)), 0);
            ++orders;
        } while (std::next_permutation(arrival.begin(), arrival.end()));
        QCOMPARE(orders, 24);
        // A held slice that is refused (NaN) is skipped in its turn; the others still fold in order
        // (and their sum stands for all three).
        RoundCollector c("p/server0", {"a", "b", "c"}, AggregatorRegistry::create("fedavg"));
        ModelBufferPool pool;
        c.foldOnArrival([&] { return RoundCollector::FoldTarget{pool.acquire(1), nullptr}; });
        QVERIFY(!c.add(push("c", 1, {1.0f}), 1, 1));
        QVERIFY(!c.add(push("b", 1, {std::numeric_limits<float>::quiet_NaN()}), 1, 1));
        QCOMPARE(c.rejectedNonFinite(), quint64(1));
        QVERIFY(c.add(push("a", 1, {2.0f}), 1, 1));
        QCOMPARE((*c.takeFolded())[0], 4.5f);
    }

    // A round with a contributor down (fault_policy continue) cannot wait for the fold order, but
    // its bits must not depend on the arrival either: the others are summed in their order.
    // (Folded as they came, 1e8 + 1 − 1e8 was 0 or 1.)
    void aRoundWithAContributorDownSumsInTheSendersOrder() {
        const QStringList present{"a", "b", "d"};
        const std::vector<float> values{1e8f, 1.0f, -1e8f};
        std::vector<int> arrival{0, 1, 2};
        QSet<QByteArray> results;
        do {
            RoundCollector c("p/server0", {"a", "b", "c", "d"}, AggregatorRegistry::create("fedavg"));
            ModelBufferPool pool;
            c.foldOnArrival([&] { return RoundCollector::FoldTarget{pool.acquire(1), nullptr}; });
            c.setAbsent("c", true);
            for (int k = 0; k < 3; ++k) QCOMPARE(c.add(push(present[arrival[k]], 1, {values[size_t(arrival[k])]}), 1, 1), k == 2);
            FloatBuffer out = c.takeFolded();
            if (!out) {
                out = pool.acquire(1);
                c.write(out->data(), nullptr, 0, 1);
            }
            results.insert(QByteArray(reinterpret_cast<const char*>(out->data()), sizeof(float)));
        } while (std::next_permutation(arrival.begin(), arrival.end()));
        QCOMPARE(results.size(), 1);
    }

    // Slices held for their turn go in together once the one before them comes (a round whose first
    // contributor is last folds the rest in one pass): the same bits as one fold after another,
    // over slices longer than the pass's chunks; and when the slice that comes in turn is refused,
    // the held ones seed the range themselves.
    void heldSlicesFoldTogetherToTheSameBits() {
        const size_t total = kSliceFloats + 5;
        const QStringList ids{"w0", "w1", "w2", "w3"};
        auto valueOf = [](int worker, size_t i) {  // magnitudes that make the order show in the bits
            if (worker % 2) return worker == 1 ? float(1 + i % 3) : 0.375f * float(1 + i % 7);
            return (worker == 0 ? 1e8f : -1e8f) + float(i % 5);
        };
        std::vector<float> base(total), expected(total);
        for (size_t i = 0; i < total; ++i) {
            base[i] = 0.25f * float(i % 11);
            expected[i] = base[i];
            for (int w = 0; w < 4; ++w) expected[i] += valueOf(w, i);
        }
        RoundCollector c("p/server0", {ids.begin(), ids.end()}, AggregatorRegistry::create("fedavg"));
        ModelBufferPool pool;
        c.foldOnArrival([&] { return RoundCollector::FoldTarget{pool.acquire(total), base.data()}; });
        std::vector<std::vector<Envelope>> pushes;
        for (int w = 0; w < 4; ++w) pushes.push_back(pushSlices(ids[w], 1, total, [&](size_t i) { return valueOf(w, i); }));
        for (int w = 3; w >= 0; --w)  // w3, w2, w1 held; w0 unlocks them
            for (size_t s = 0; s < 2; ++s) QCOMPARE(c.add(pushes[size_t(w)][s], 1, total), w == 0 && s == 1);
        const FloatBuffer out = c.takeFolded();
        QVERIFY(out);
        QCOMPARE(std::memcmp(out->data(), expected.data(), total * sizeof(float)), 0);

        RoundCollector refused("p/server0", {"a", "b", "c"}, AggregatorRegistry::create("fedavg"));
        refused.foldOnArrival([&] { return RoundCollector::FoldTarget{pool.acquire(1), nullptr}; });
        QVERIFY(!refused.add(push("c", 1, {1.0f}), 1, 1));
        QVERIFY(!refused.add(push("b", 1, {2.0f}), 1, 1));
        QVERIFY(refused.add(push("a", 1, {std::numeric_limits<float>::quiet_NaN()}), 1, 1));
        QCOMPARE(refused.rejectedNonFinite(), quint64(1));
        QCOMPARE((*refused.takeFolded())[0], 4.5f);  // (3 × 3/2: the two stand for the three)
    }

    // A non-finite slice is left out of its range only, the others' sum of it standing for it; a
    // range no contribution reached keeps the base; with no base (a party's sum) it is the sum
    // alone, and zero where none reached it.
    void nonFiniteSliceIsLeftOutOfItsRangeOnly() {
        const size_t total = kSliceFloats + 3;
        const float nan = std::numeric_limits<float>::quiet_NaN();
        for (const bool withBase : {true, false}) {
            std::vector<float> base(total, 100.0f);
            RoundCollector c("p/server0", {"a", "b"}, AggregatorRegistry::create("fedavg"));
            ModelBufferPool pool;
            c.foldOnArrival([&] { return RoundCollector::FoldTarget{pool.acquire(total), withBase ? base.data() : nullptr}; });
            std::vector<Envelope> a = pushSlices("a", 1, total, [&](size_t i) { return i == 7 ? nan : 1.0f; });
            std::vector<Envelope> b = pushSlices("b", 1, total, [&](size_t i) { return i >= kSliceFloats ? nan : 2.0f; });
            QVERIFY(!c.add(a[0], 1, total));  // slice 0 of a: refused, its range not seeded
            QVERIFY(!c.add(b[0], 1, total));
            QVERIFY(!c.add(a[1], 1, total));
            QVERIFY(c.add(b[1], 1, total));  // refused, and the last of the round
            QCOMPARE(c.rejectedNonFinite(), quint64(2));
            QVERIFY(!c.closedEmpty());  // (every slice went out new: the model moves)
            const FloatBuffer out = c.takeFolded();
            const float b0 = withBase ? 100.0f : 0.0f;
            QCOMPARE((*out)[0], b0 + 4.0f);  // b only, standing for both
            QCOMPARE((*out)[kSliceFloats - 1], b0 + 4.0f);
            QCOMPARE((*out)[kSliceFloats], b0 + 2.0f);  // a only
            QCOMPARE((*out)[total - 1], b0 + 2.0f);
        }
        // Every contribution to a range refused: the range is the base (zero without one).
        RoundCollector c("p/server0", {"a"}, AggregatorRegistry::create("fedavg"));
        std::vector<float> base(4, 5.0f);
        ModelBufferPool pool;
        c.foldOnArrival([&] { return RoundCollector::FoldTarget{pool.acquire(4), base.data()}; });
        QVERIFY(c.add(push("a", 1, {nan, 1, 1, 1}), 1, 4));
        QVERIFY(c.closedEmpty());
        QCOMPARE(*c.takeFolded(), (std::vector<float>{5, 5, 5, 5}));
    }

    // A rule that does not fold gets each contributor's whole update, put together from its
    // slices; a contributor with a refused slice is left out entirely (the others standing for it).
    void unfoldedRoundGetsWholeUpdates() {
        const size_t total = kSliceFloats + 2;
        RoundCollector c("p/server0", {"a", "b", "c"}, AggregatorRegistry::create("fedavg"));  // no fold target
        std::vector<Envelope> a = pushSlices("a", 1, total, [](size_t i) { return float(i % 4); });
        std::vector<Envelope> b = pushSlices("b", 1, total, [](size_t) { return 1.0f; });
        std::vector<Envelope> cc =
            pushSlices("c", 1, total, [&](size_t i) { return i == total - 1 ? std::numeric_limits<float>::infinity() : 1000.0f; });
        QVERIFY(!c.add(a[1], 1, total));
        QVERIFY(!c.add(cc[0], 1, total));
        QVERIFY(!c.add(b[0], 1, total));
        QVERIFY(!c.add(a[0], 1, total));
        QVERIFY(!c.add(b[1], 1, total));
        QVERIFY(!c.takeFinalSlice());  // only folding rounds stream
        QVERIFY(c.add(cc[1], 1, total));
        QVERIFY(!c.takeFolded());
        const std::vector<float> sum = sumOf(c, total);
        for (size_t i : {size_t(0), size_t(1), kSliceFloats, total - 1}) QCOMPARE(sum[i], (float(i % 4) + 1.0f) * 1.5f);
    }

    // A slice streamed before the round is complete is not sent again; a puller that had none
    // gets every slice at the end.
    void streamerSendsEachSliceOnce() {
        zmq::context_t ctx(1);
        Channel server = Channel::router(ctx, "srv", "inproc://streamer", CurveConfig{});
        Channel p = Channel::dealer(ctx, "p", "inproc://streamer", "srv", CurveConfig{});
        Channel q = Channel::dealer(ctx, "q", "inproc://streamer", "srv", CurveConfig{});
        for (Channel* c : {&p, &q}) QVERIFY(c->send(Message("pull")));
        for (int i = 0; i < 2; ++i) QVERIFY(server.receive(std::chrono::milliseconds(5000)));  // routes learnt
        const size_t total = 2 * kSliceFloats + 1;
        auto out = std::make_shared<std::vector<float>>(total, 1.0f);
        ModelStreamer streamer;
        streamer.sliceFinal(server, {"p"}, 4, out, 1);
        streamer.sliceFinal(server, {"p"}, 4, out, 1);  // reported twice: sent once
        streamer.finish(server, {"p", "q"}, ModelVersion::fromBuffer(4, out));
        auto offsets = [](Channel& c, int expected) {
            QList<qint64> got;
            while (got.size() < expected + 1)  // one more than expected: nothing further may come
                if (auto e = c.receive(std::chrono::milliseconds(got.size() < expected ? 5000 : 200))) {
                    auto slice = ModelSlice::fromMessage(std::move(e->message), e->peer);
                    got << (slice && slice->version == 4 ? qint64(slice->offset) : -1);
                } else {
                    break;
                }
            return got;
        };
        const qint64 K = kSliceFloats;
        QCOMPARE(offsets(p, 3), (QList<qint64>{K, 0, 2 * K}));
        QCOMPARE(offsets(q, 3), (QList<qint64>{0, K, 2 * K}));
    }

    // A model larger than one slice is cut, sent, and put back together in any order; slices
    // of an older version are ignored; a slice that does not fit its header is rejected.
    void modelSlicesReassemble() {
        const size_t total = 2 * kSliceFloats + 5;
        auto buffer = std::make_shared<std::vector<float>>(total);
        for (size_t i = 0; i < total; ++i) (*buffer)[i] = float(i % 977);
        const ModelVersion model = ModelVersion::fromBuffer(7, buffer);
        std::vector<ModelSlice> slices;
        for (size_t offset = 0; offset < total; offset += kSliceFloats) {
            const size_t n = std::min(kSliceFloats, total - offset);
            Message m = ModelSlice{7, offset, total, {buffer, buffer->data() + offset, n}}.toMessage("model");
            auto parsed = ModelSlice::fromMessage(std::move(m), "test");
            QVERIFY(parsed.has_value());
            slices.push_back(*parsed);
        }
        QCOMPARE(slices.size(), size_t(3));
        ModelAssembler assembler(total);
        QVERIFY(!assembler.add(slices[2]));
        QVERIFY(!assembler.add(slices[2]));  // a duplicate does not count twice
        QVERIFY(!assembler.add(slices[0]));
        const auto whole = assembler.add(slices[1]);
        QVERIFY(whole.has_value());
        QCOMPARE(whole->version, 7);
        QCOMPARE(whole->size, total);
        QVERIFY(std::equal(buffer->begin(), buffer->end(), whole->data));
        QVERIFY(!assembler.add(ModelSlice{6, 0, total, slices[0].floats}));  // stale
        ModelAssembler other(total + 1);
        QVERIFY(!other.add(slices[0]));  // a model of another size

        Message tooLong = ModelSlice{8, total - 3, total, slices[0].floats}.toMessage("model");
        QVERIFY(!ModelSlice::fromMessage(std::move(tooLong), "test"));
        Message offBoundary = ModelSlice{8, 5, total, {buffer, buffer->data(), 10}}.toMessage("model");
        QVERIFY(!ModelSlice::fromMessage(std::move(offBoundary), "test"));
        Message noFrame("model", {{"version", 1}, {"offset", 0}, {"total", 4}});
        QVERIFY(!ModelSlice::fromMessage(std::move(noFrame), "test"));
    }
};

QTEST_GUILESS_MAIN(RoundCollectorTest)
#include "tst_roundcollector.moc"
