// Aggregation math (FedAvg two-layer sums), the server's push checks, and the folding of
// the metric stream into per-round rows.
#include "AggregatorRegistry.h"
#include "RunProgress.h"
#include "ServerCommon.h"

#include <QJsonArray>
#include <QtTest>
#include <limits>
#include <cmath>

using namespace hips;

namespace {

std::vector<float> sumOf(const Aggregator& a, size_t n) {
    std::vector<float> out(n);
    a.write(out.data(), nullptr, 0, n);
    return out;
}

std::vector<float> sumOf(const RoundCollector& c, size_t n) {
    std::vector<float> out(n);
    c.write(out.data(), nullptr, 0, n);
    return out;
}

Envelope push(const QString& peer, qint64 round, std::vector<float> values) {
    Message m(QStringLiteral("push"), {{QStringLiteral("round"), round}});
    m.frames.emplace_back(values.data(), values.size() * sizeof(float));
    return {peer, std::move(m)};
}

}  // namespace

class AggregationTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
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
                agg->add(delta.data(), delta.size());
            }
            QCOMPARE(agg->contributions(), 2);
            partySums.push_back(sumOf(*agg, w.size()));
        }
        auto global = AggregatorRegistry::create("fedavg");
        global->begin(w.size());
        for (const auto& s : partySums) global->add(s.data(), s.size());
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
            agg->add(a->data(), 3, a);
            QCOMPARE(sumOf(*agg, 3)[2], 3.0f);  // one contribution: the sum is the contribution
            float b[3] = {10, 20, 30};
            agg->add(b, 3);
            b[0] = b[1] = b[2] = -99;  // reused by the caller after add: must not matter
            const float c[3] = {100, 200, 300};
            agg->add(c, 3);
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
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, agg->add(v, 3));
    }

    void collectorRejectsBadPushes() {
        RoundCollector c("p/server0", {"p/worker0", "p/worker1"}, AggregatorRegistry::create("fedavg"));
        QVERIFY(!c.add(push("q/worker9", 1, {1, 1}), 1, 2));   // stranger
        QVERIFY(!c.add(push("p/worker0", 2, {1, 1}), 1, 2));   // wrong round
        QVERIFY(!c.add(push("p/worker0", 1, {1, 1, 1}), 1, 2));  // wrong size
        QCOMPARE(c.rejected(), quint64(3));
        // Poison: NaN and ±Inf are refused (and counted), and the sender may still push a real update.
        QVERIFY(!c.add(push("p/worker0", 1, {1, std::numeric_limits<float>::quiet_NaN()}), 1, 2));
        QVERIFY(!c.add(push("p/worker0", 1, {std::numeric_limits<float>::infinity(), 1}), 1, 2));
        QVERIFY(!c.add(push("p/worker0", 1, {1, -std::numeric_limits<float>::infinity()}), 1, 2));
        QCOMPARE(c.rejectedNonFinite(), quint64(3));
        QCOMPARE(c.rejected(), quint64(6));
        QVERIFY(!c.add(push("p/worker0", 1, {1, 2}), 1, 2));
        QVERIFY(!c.add(push("p/worker0", 1, {1, 2}), 1, 2));   // twice in a round
        QCOMPARE(c.rejected(), quint64(7));
        QVERIFY(c.add(push("p/worker1", 1, {10, 20}), 1, 2));  // completes the round
        QCOMPARE(sumOf(c, 2), (std::vector<float>{11, 22}));
        QVERIFY(!c.add(push("p/worker1", 2, {1, 1}), 2, 2));   // the next round starts afresh
        QVERIFY(c.add(push("p/worker0", 2, {2, 2}), 2, 2));
        QCOMPARE(sumOf(c, 2), (std::vector<float>{3, 3}));
    }

    // A model larger than one slice is cut, sent, and put back together in any order; slices
    // of an older version are ignored; a slice that does not fit its header is rejected.
    void modelSlicesReassemble() {
        const size_t total = 2 * kModelSliceFloats + 5;
        auto buffer = std::make_shared<std::vector<float>>(total);
        for (size_t i = 0; i < total; ++i) (*buffer)[i] = float(i % 977);
        const ModelVersion model = ModelVersion::fromBuffer(7, buffer);
        std::vector<ModelSlice> slices;
        for (size_t offset = 0; offset < total; offset += kModelSliceFloats) {
            const size_t n = std::min(kModelSliceFloats, total - offset);
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

    void progressEmitsRoundsInOrderWhenComplete() {
        RunProgress p(2, 3, 2);  // 2 workers, 3 rounds, eval every 2 (and the last)
        auto rec = [](const char* kind, int round, QJsonObject extra = {}) {
            extra["kind"] = kind;
            extra["round"] = round;
            extra["node"] = "n";
            return extra;
        };
        QVERIFY(p.ingest(rec("aggregate", 1), 1.0).isEmpty());
        QVERIFY(p.ingest(rec("train", 1, {{"loss", 1.0}, {"samples", 10}}), 1.5).isEmpty());
        QList<RoundRow> rows = p.ingest(rec("train", 1, {{"loss", 3.0}, {"samples", 30}}), 2.0);
        QCOMPARE(rows.size(), 1);  // round 1 is not an eval round: complete without accuracy
        QCOMPARE(rows[0].trainLoss, 2.0);
        QCOMPARE(rows[0].samplesPerSecond, 20.0);  // 40 samples by t = 2 s
        QVERIFY(std::isnan(rows[0].testAccuracy));
        p.ingest(rec("aggregate", 2), 3.0);
        p.ingest(rec("train", 2, {{"loss", 1.0}, {"samples", 10}}), 3.0);
        QVERIFY(p.ingest(rec("train", 2, {{"loss", 1.0}, {"samples", 10}}), 4.0).isEmpty());  // waits for eval
        p.ingest(QJsonObject{{"kind", "traffic"}, {"node", "a"},
                             {"links", QJsonArray{QJsonObject{{"tier", "across"}, {"sent", 500}}}}}, 4.5);
        rows = p.ingest(rec("eval", 2, {{"test_acc", 0.75}}), 9.0);
        QCOMPARE(rows.size(), 1);
        QCOMPARE(rows[0].testAccuracy, 0.75);
        QCOMPARE(rows[0].elapsed, 4.0);  // the time it finished training, not when eval arrived
        QCOMPARE(p.bytesAcross(), quint64(500));
        QCOMPARE(p.bestAccuracy(), 0.75);
    }

    // An evaluator that fell behind evaluates only the newest snapshot and names the rounds it
    // skipped: those rows complete without an accuracy, in order, when the newer one arrives.
    void progressCompletesRoundsTheEvaluatorSkipped() {
        RunProgress p(1, 3, 1);  // 1 worker, 3 rounds, every round evaluated
        auto rec = [](const char* kind, int round, QJsonObject extra = {}) {
            extra["kind"] = kind;
            extra["round"] = round;
            extra["node"] = "n";
            return extra;
        };
        for (int round = 1; round <= 3; ++round) {
            p.ingest(rec("aggregate", round), round);
            QVERIFY(p.ingest(rec("train", round, {{"loss", 1.0}, {"samples", 10}}), round).isEmpty());
        }
        const QList<RoundRow> rows = p.ingest(rec("eval", 3, {{"test_acc", 0.9}, {"skipped", QJsonArray{1, 2}}}), 5.0);
        QCOMPARE(rows.size(), 3);
        QVERIFY(std::isnan(rows[0].testAccuracy) && std::isnan(rows[1].testAccuracy));
        QCOMPARE(rows[2].testAccuracy, 0.9);
    }
};

QTEST_GUILESS_MAIN(AggregationTest)
#include "tst_aggregation.moc"
