// The Byzantine-robust rules on small inputs computed by hand: which contributions Krum, Multi-Krum
// and Bulyan select, the medians and trimmed means per coordinate, the Weiszfeld fixed point, and
// the refusal of too few contributions with the rule's name and bound.
#include "Adversary.h"
#include "AggregatorRegistry.h"
#include "DracoCodes.h"
#include "FedOptimizer.h"
#include "RobustRules.h"
#include "RoundCollector.h"

#include <QCborArray>
#include <QtTest>
#include <cmath>
#include <numeric>
#include <random>

using namespace hips;

namespace {

using Points = QList<std::vector<float>>;

// Runs `rule` over `points` (senders "w0", "w1", …, weights `weights` or 1) and returns its
// result (base null: the aggregate alone).
std::vector<float> aggregate(AggregationRule& rule, const Points& points, const std::vector<double>& weights = {}) {
    const size_t length = points.isEmpty() ? 1 : points.first().size();
    rule.begin(length);
    for (int k = 0; k < points.size(); ++k)
        rule.add(Contribution{QStringLiteral("w%1").arg(k), weights.empty() ? 1.0 : weights[size_t(k)], points[k].data(), length, nullptr});
    rule.finish();
    std::vector<float> out(length);
    rule.write(out.data(), nullptr, 0, length);
    return out;
}

// Each 1-D value as a 2-float point (v, 0): the second coordinate checks the per-coordinate work.
Points line(const std::vector<float>& values) {
    Points out;
    for (float v : values) out << std::vector<float>{v, 0.0f};
    return out;
}

QStringList names(const QCborMap& report, const char* key) {
    QStringList out;
    for (const QCborValue& v : report.value(QLatin1String(key)).toArray()) out << v.toString();
    return out;
}

// What each of the code's workers sends, from every partition's update, as a worker sums it.
Points codedPushes(const DracoCyclicCode& code, const Points& parts) {
    Points pushes;
    for (int i = 0; i < code.workers(); ++i) {
        CodedSum push(parts.first().size());
        for (int k = 0; k < code.window(); ++k) push.add(code.coefficient(k), parts[code.partition(i, k)].data());
        pushes << std::vector<float>(parts.first().size());
        push.write(pushes.last().data());
    }
    return pushes;
}

// The decoding of `pushes`: the sum's error relative to `truth`, or −1 where it failed (`error`).
double decodingError(const DracoCyclicCode& code, const Points& pushes, const std::vector<double>& truth, std::vector<int>* suspects,
                     QString* error) {
    std::vector<const float*> rows;
    for (const auto& p : pushes) rows.push_back(p.data());
    std::vector<float> sum(truth.size());
    if (!code.decode(rows, truth.size(), sum.data(), suspects, error)) return -1;
    double diff = 0, norm = 0;
    for (size_t t = 0; t < truth.size(); ++t) diff += (sum[t] - truth[t]) * (sum[t] - truth[t]), norm += truth[t] * truth[t];
    return std::sqrt(diff / norm);
}

std::unique_ptr<AggregationRule> make(const QString& name, QMap<QString, double> params = {}) {
    const StrategyInfo* info = AggregatorRegistry::find(name);
    return AggregatorRegistry::create(
        name, [info, params](const QString& p) { return params.contains(p) ? params.value(p) : info->param(p)->defaultValue; });
}

}  // namespace

Q_DECLARE_METATYPE(std::vector<float>)

class RobustRulesTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Each attack kind says what it does through its registry entry: the update (with the
    // function), the labels, or at the server that receives the liars.
    void adversaryKindsSayWhatTheyDo() {
        for (const StrategyInfo& kind : AdversaryRegistry::all()) {
            QCOMPARE(isColluding(kind.name), kind.name == "alie" || kind.name == "ipm");
            QCOMPARE(flipsLabels(kind.name), kind.name == "label_flip");
        }
        float update[] = {1, -2};
        corruptUpdate({"reverse", 3, 0}, update, 2, 0);
        QCOMPARE(update[1], 6.0f);
        corruptUpdate({"constant", -100, 0}, update, 2, 0);
        QCOMPARE(update[0], -100.0f);
        corruptUpdate({"label_flip", 3, 0}, update, 2, 0);  // changes the data, not the update
        QCOMPARE(update[1], -100.0f);
    }

    // Every rule stands for the sum: n × its centre. The results, by hand:
    //   median of {1,2,3,100} = 2.5, × 4 = 10; of {10,20,30,−100}: 15, × 4 = 60
    //   trimmed mean (β 0.2, one cut at each end) of {1,2,3,4,100} = 3, × 5 = 15
    void coordinateRules_data() {
        QTest::addColumn<QString>("rule");
        QTest::addColumn<double>("beta");
        QTest::addColumn<Points>("points");
        QTest::addColumn<std::vector<float>>("expected");
        QTest::newRow("median, even n") << "median" << 0.0 << Points{{1, 10}, {2, 20}, {3, 30}, {100, -100}} << std::vector<float>{10, 60};
        QTest::newRow("median, odd n") << "median" << 0.0 << Points{{1, 5}, {2, 5}, {100, 5}} << std::vector<float>{6, 15};
        QTest::newRow("trimmed mean") << "trimmed_mean" << 0.2 << line({1, 2, 3, 4, 100}) << std::vector<float>{15, 0};
        QTest::newRow("trimmed mean, β cuts none") << "trimmed_mean" << 0.1 << line({1, 2, 3, 4}) << std::vector<float>{10, 0};
        QTest::newRow("mean is the sum") << "mean" << 0.0 << line({1, 2, 3, 100}) << std::vector<float>{106, 0};
    }
    void coordinateRules() {
        QFETCH(QString, rule);
        QFETCH(double, beta);
        QFETCH(Points, points);
        QFETCH(std::vector<float>, expected);
        auto r = make(rule, {{QStringLiteral("trim_beta"), beta}});
        QVERIFY(r);
        QCOMPARE(aggregate(*r, points), expected);
    }

    // The mean weighs by samples: w0 (3 samples) at 1, w1 (1 sample) at 5: 2 × (3·1 + 5)/4 = 4.
    void meanWeighsBySamples() {
        auto r = make(QStringLiteral("mean"));
        QCOMPARE(aggregate(*r, line({1, 5}), {3, 1}), (std::vector<float>{4, 0}));
    }

    // Krum, f = 1, points 0 1 2 3 100: each scores its n − f − 2 = 2 nearest squared distances:
    // 0 → 1+4 = 5, 1 → 1+1 = 2, 2 → 1+1 = 2, 3 → 1+4 = 5, 100 → 9409+9604. The tie goes to the
    // first: 1 is chosen, and stands for all five (× 5).
    void krumPicksTheClosest() {
        auto r = make(QStringLiteral("krum"), {{QStringLiteral("byzantine_f"), 1}});
        QCOMPARE(aggregate(*r, line({0, 1, 2, 3, 100})), (std::vector<float>{5, 0}));
        QCOMPARE(names(r->report(), "selected"), QStringList{"w1"});
        QCOMPARE(names(r->report(), "rejected"), (QStringList{"w0", "w2", "w3", "w4"}));
    }

    // Multi-Krum, f = 1, m = n − f = 4: the four best (1, 2, 0, 3), mean 1.5, × 5 = 7.5.
    void multiKrumAveragesTheBest() {
        auto r = make(QStringLiteral("multi_krum"), {{QStringLiteral("byzantine_f"), 1}});
        QCOMPARE(aggregate(*r, line({0, 1, 2, 3, 100})), (std::vector<float>{7.5f, 0}));
        QCOMPARE(names(r->report(), "rejected"), QStringList{"w4"});
        auto two = make(QStringLiteral("multi_krum"), {{QStringLiteral("byzantine_f"), 1}, {QStringLiteral("multi_krum_m"), 2}});
        QCOMPARE(aggregate(*two, line({0, 1, 2, 3, 100})), (std::vector<float>{7.5f, 0}));  // 1 and 2: 1.5 × 5
        QCOMPARE(names(two->report(), "selected"), (QStringList{"w1", "w2"}));
    }

    // Bulyan, f = 1, n = 7, points 0 1 2 3 4 5 1000: Krum one at a time picks 2, 3, 1, 4, 0
    // (θ = n − 2f = 5); per coordinate the β = θ − 2f = 3 values nearest the median 2 are 1 2 3:
    // mean 2, × 7 = 14.
    void bulyanSelectsThenTrimsAroundTheMedian() {
        auto r = make(QStringLiteral("bulyan"), {{QStringLiteral("byzantine_f"), 1}});
        QCOMPARE(aggregate(*r, line({0, 1, 2, 3, 4, 5, 1000})), (std::vector<float>{14, 0}));
        QCOMPARE(names(r->report(), "selected"), (QStringList{"w0", "w1", "w2", "w3", "w4"}));
        QCOMPARE(names(r->report(), "rejected"), (QStringList{"w5", "w6"}));
    }

    // At the geometric median z the unit vectors towards the points cancel:
    // Σ (x_i − z)/‖x_i − z‖ = 0, whatever counts the senders claim (the server cannot check them:
    // a liar's 1e15 samples must not take the median over). On a line it is the median.
    void geometricMedianIsWeiszfeldsFixedPoint() {
        std::mt19937 rng(7);
        std::normal_distribution<float> normal;
        Points points;
        std::vector<double> weights;
        for (int k = 0; k < 9; ++k) {
            points << std::vector<float>{normal(rng), normal(rng), normal(rng)};
            weights.push_back(1 + k % 3);
        }
        points[0] = {50, -40, 30};  // an outlier barely moves it
        auto r = make(QStringLiteral("geometric_median"), {{QStringLiteral("gm_tolerance"), 1e-9}, {QStringLiteral("gm_max_iters"), 5000}});
        const std::vector<float> sum = aggregate(*r, points, weights);
        double z[3], gradient[3] = {0, 0, 0};
        for (int i = 0; i < 3; ++i) z[i] = sum[size_t(i)] / 9.0;
        for (int k = 0; k < 9; ++k) {
            double d = 0;
            for (int i = 0; i < 3; ++i) d += (points[k][size_t(i)] - z[i]) * (points[k][size_t(i)] - z[i]);
            for (int i = 0; i < 3; ++i) gradient[i] += (points[k][size_t(i)] - z[i]) / std::sqrt(d);
        }
        QVERIFY2(std::hypot(gradient[0], gradient[1], gradient[2]) < 1e-3,
                 qPrintable(QStringLiteral("gradient %1 %2 %3").arg(gradient[0]).arg(gradient[1]).arg(gradient[2])));
        QVERIFY(r->report().value(QStringLiteral("iterations")).toInteger() > 1);

        auto onLine =
            make(QStringLiteral("geometric_median"), {{QStringLiteral("gm_tolerance"), 1e-10}, {QStringLiteral("gm_max_iters"), 10000}});
        const std::vector<float> median = aggregate(*onLine, line({0, 1, 2, 3, 100}));
        QVERIFY2(std::abs(median[0] / 5 - 2) < 1e-2, qPrintable(QString::number(median[0] / 5)));
        const std::vector<float> claimed = aggregate(*onLine, line({0, 1, 2, 3, 100}), {1, 1, 1, 1, 1e15});  // the liar's count
        QVERIFY2(std::abs(claimed[0] / 5 - 2) < 1e-2, qPrintable(QString::number(claimed[0] / 5)));
    }

    // Honest, equal contributions: every rule gives the sum, as FedAvg would.
    void everyRuleGivesTheSumOfEqualContributions() {
        for (const QString& name : AggregatorRegistry::names()) {
            if (name == QLatin1String("draco_cyclic")) continue;  // its contributions are coded (below)
            auto r = make(name, {{QStringLiteral("byzantine_f"), 1}});
            const Points same(7, std::vector<float>{0.5f, -2.0f, 3.0f});
            const std::vector<float> out = aggregate(*r, same);
            for (size_t i = 0; i < out.size(); ++i) QVERIFY2(std::abs(out[i] - 7 * same[0][i]) < 1e-4f, qPrintable(name));
        }
    }

    // Bulyan at f = 1, n = 7: the last of its n − 2f Krum picks is made among three candidates,
    // here an honest one and two liars. Each scored by its nearest, the far liar (the first
    // sender) is left out; scored by no neighbour at all, every score was 0 and it was taken.
    void bulyansLastPickIsNotArbitrary() {
        auto r = make(QStringLiteral("bulyan"), {{QStringLiteral("byzantine_f"), 1}});
        const Points pushes{{1000}, {1}, {1.1f}, {0.9f}, {1.05f}, {0.95f}, {-100}};
        aggregate(*r, pushes);
        QCOMPARE(names(r->report(), "rejected"), (QStringList{"w0", "w6"}));
    }

    // Too few contributions for the parameters (a quorum's short round, or every push refused as
    // not finite): the round leaves the model as it was, and the rule's record says why, with its
    // name and bound; the server goes on.
    void tooFewContributionsLeaveTheModelAndSayTheBound_data() {
        QTest::addColumn<QString>("rule");
        QTest::addColumn<int>("n");
        QTest::addColumn<QString>("bound");
        QTest::newRow("krum") << "krum" << 4 << "n > 2f + 2";
        QTest::newRow("multi_krum") << "multi_krum" << 4 << "n > 2f + 2";
        QTest::newRow("bulyan") << "bulyan" << 6 << "n >= 4f + 3";
        QTest::newRow("median, nothing came") << "median" << 0 << "one";
    }
    void tooFewContributionsLeaveTheModelAndSayTheBound() {
        QFETCH(QString, rule);
        QFETCH(int, n);
        QFETCH(QString, bound);
        auto r = make(rule, {{QStringLiteral("byzantine_f"), 1}});
        if (n > 0) QCOMPARE(r->minimumContributions(), n + 1);
        QCOMPARE(aggregate(*r, Points(n, std::vector<float>{1})), std::vector<float>{0});
        const QString why = r->report().value(QStringLiteral("short_round")).toString();
        QVERIFY2(why.startsWith(rule) && why.contains(bound) && why.contains("the model is left as it was"), qPrintable(why));
        QCOMPARE(names(r->report(), "rejected").size(), n);
        if (n >= 2) {  // named in the senders' order, whatever the arrival (as a whole round's are)
            const float one = 1;
            r->begin(1);
            for (int k = n - 1; k >= 0; --k) r->add(Contribution{QStringLiteral("w%1").arg(k), 1.0, &one, 1, nullptr});
            r->finish();
            QCOMPARE(names(r->report(), "rejected").first(), QString("w0"));
        }
        aggregate(*r, Points(n + 1, std::vector<float>{1}));  // a whole round after it: as usual
        QVERIFY(!r->report().contains(QStringLiteral("short_round")));
    }

    // Repetition: each group's exact majority stands for its r members, whatever its minority sends.
    void repetitionTakesEachGroupsMajority() {
        auto r = make(QStringLiteral("draco_repetition"), {{QStringLiteral("draco_r"), 3}});
        const Points pushes{{1, 2}, {1, 2}, {-100, -200}, {5, 5}, {7, 7}, {5, 5}};  // w2 and w4 lie
        QCOMPARE(aggregate(*r, pushes), (std::vector<float>{3 * 1 + 3 * 5, 3 * 2 + 3 * 5}));
        QCOMPARE(names(r->report(), "rejected"), (QStringList{"w2", "w4"}));
        const Points split{{1}, {2}, {3}};  // no majority: the group adds nothing, and says so
        auto undecided = make(QStringLiteral("draco_repetition"), {{QStringLiteral("draco_r"), 3}});
        QCOMPARE(aggregate(*undecided, split), std::vector<float>{0});
        QCOMPARE(undecided->report().value(QStringLiteral("undecided_groups")).toInteger(), 1);
        QCOMPARE(exactMajority({pushes[0].data(), pushes[1].data(), pushes[2].data()}, 2), 0);
    }

    // A push refused for NaN is a row of the code in error, not a row less: the others keep their
    // groups, so one group's NaN and the other's liar are both outvoted. (A row less: w3 joined
    // the first group, and the liar and w5 were left without a majority.)
    void aRefusedPushStaysARowOfDracosCode() {
        const QStringList workers{"p/w0", "p/w1", "p/w2", "p/w3", "p/w4", "p/w5"};
        RoundCollector c("p/server0", QSet<QString>(workers.begin(), workers.end()),
                         make(QStringLiteral("draco_repetition"), {{QStringLiteral("draco_r"), 3}}));
        for (int k = 0; k < workers.size(); ++k) {
            std::vector<float> update = k < 3 ? std::vector<float>{1, 2} : std::vector<float>{3, 5};
            if (k == 1) update[0] = std::nanf("");
            if (k == 4) update = {-100, -100};
            Message m(
                QStringLiteral("push"),
                {{QStringLiteral("round"), 1}, {QStringLiteral("offset"), 0}, {QStringLiteral("total"), 2}, {QStringLiteral("base"), 0}});
            m.frames.emplace_back(update.data(), update.size() * sizeof(float));
            Envelope push{workers[k], std::move(m), {}};
            c.add(push, 1, 2);
        }
        std::vector<float> sum(2);
        c.write(sum.data(), nullptr, 0, 2);
        QCOMPARE(sum, (std::vector<float>{3 * 1 + 3 * 3, 3 * 2 + 3 * 5}));
        QCOMPARE(c.rejected(), quint64(1));  // the NaN push, said in the server's log
    }

    // Groups follow the workers' order, not the ids' spelling: worker10 comes after worker9.
    void sendersAreInTheirNaturalOrder() {
        QVERIFY(naturalLess("party1/worker9", "party1/worker10"));
        QVERIFY(!naturalLess("party1/worker10", "party1/worker9"));
        QVERIFY(naturalLess("party1/worker10", "party2/worker0"));
    }

    // Cyclic: with s rows of random positions replaced (reverse ×100 or noise), the decoded sum is
    // the adversary-free one within 1e-4 (relative), and the liars are named.
    void cyclicDecodesTheAdversaryFreeSum_data() {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("s");
        QTest::newRow("(7, 2)") << 7 << 2;
        QTest::newRow("(15, 3)") << 15 << 3;
        QTest::newRow("(8, 2), even n") << 8 << 2;
        QTest::newRow("(45, 10)") << 45 << 10;
    }
    void cyclicDecodesTheAdversaryFreeSum() {
        QFETCH(int, n);
        QFETCH(int, s);
        const DracoCyclicCode code(n, s);
        const size_t length = 1000;
        std::mt19937 rng(uint32_t(n * 100 + s));
        std::normal_distribution<float> normal(0, 1);
        for (int trial = 0; trial < 10; ++trial) {
            Points g(n, std::vector<float>(length));  // each partition's update
            std::vector<double> truth(length, 0.0);
            for (auto& v : g)
                for (size_t t = 0; t < length; ++t) v[t] = normal(rng);
            for (const auto& v : g)
                for (size_t t = 0; t < length; ++t) truth[t] += v[t];
            Points pushes = codedPushes(code, g);
            std::vector<int> liars(static_cast<size_t>(n));
            std::iota(liars.begin(), liars.end(), 0);
            std::shuffle(liars.begin(), liars.end(), rng);
            liars.resize(size_t(trial % (s + 1)));  // 0 … s of them
            std::sort(liars.begin(), liars.end());
            for (int i : liars)
                for (size_t t = 0; t < length; ++t) pushes[i][t] = trial % 2 ? -100 * pushes[i][t] : 50 * normal(rng);
            std::vector<int> suspects;
            QString error;
            const double relative = decodingError(code, pushes, truth, &suspects, &error);
            QVERIFY2(relative >= 0, qPrintable(error));
            QCOMPARE(suspects, liars);
            QVERIFY2(relative <= 1e-4, qPrintable(QStringLiteral("relative error %1").arg(relative)));
        }
    }

    // An honest round near convergence: the parts' updates nearly cancel (their sum is 1e-4 of
    // them). The pushes, as a worker sums them (CodedSum), are a codeword within the decoder's
    // tolerance: no row is suspect and the sum is decoded. Summed in float, their rounding
    // (relative to the parts) made every such round "no codeword" and added nothing.
    void cyclicDecodesAnHonestRoundWhosePartsNearlyCancel_data() {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("s");
        QTest::newRow("(3, 1)") << 3 << 1;
        QTest::newRow("(5, 2)") << 5 << 2;
        QTest::newRow("(8, 2), even n") << 8 << 2;
    }
    void cyclicDecodesAnHonestRoundWhosePartsNearlyCancel() {
        QFETCH(int, n);
        QFETCH(int, s);
        const DracoCyclicCode code(n, s);
        const size_t length = 5000;
        std::mt19937 rng{uint32_t(n)};
        std::normal_distribution<float> normal(0, 1);
        for (int trial = 0; trial < 20; ++trial) {
            Points g(n, std::vector<float>(length));
            std::vector<double> truth(length, 0.0);
            for (size_t t = 0; t < length; ++t) {
                double others = 0;
                for (int j = 0; j + 1 < n; ++j) others += g[j][t] = normal(rng);
                g[n - 1][t] = float(-others + 1e-4 * double(normal(rng)));
                for (int j = 0; j < n; ++j) truth[t] += g[j][t];
            }
            std::vector<int> suspects;
            QString error;
            const double relative = decodingError(code, codedPushes(code, g), truth, &suspects, &error);
            QVERIFY2(relative >= 0, qPrintable(error));
            QCOMPARE(suspects, std::vector<int>{});
            QVERIFY2(relative <= 1e-3, qPrintable(QStringLiteral("relative error %1").arg(relative)));
        }
    }

    // An honest round under a projection nearly orthogonal to every partition's update (any
    // projection is drawn now and then): the projected pushes are all but zero, and their norm,
    // which the syndromes were measured against, was the pushes' last-bit rounding; the round was
    // "no codeword" and added nothing (an honest round of a killed run's, 1 in ~130). Against the
    // size the projected rows have whatever the projection, it is a codeword and decodes.
    void cyclicDecodesAnHonestRoundUnderAnUnluckyProjection() {
        const int n = 5, s = 1;  // (irrational coefficients: the pushes differ in their last bits)
        const DracoCyclicCode code(n, s);
        const size_t length = 4000;
        std::mt19937 rng(11);
        std::normal_distribution<float> normal(0, 1);
        Points g(n, std::vector<float>(length));
        std::vector<double> truth(length, 0.0);
        for (auto& part : g)
            for (size_t t = 0; t < length; ++t) truth[t] += part[t] = normal(rng);
        // A random projection less its components along the parts (Gram–Schmidt, in double).
        std::vector<std::vector<double>> basis;
        for (const auto& part : g) {
            std::vector<double> b(part.begin(), part.end());
            for (const auto& e : basis) {
                double dot = 0;
                for (size_t t = 0; t < length; ++t) dot += b[t] * e[t];
                for (size_t t = 0; t < length; ++t) b[t] -= dot * e[t];
            }
            const double norm = std::sqrt(std::inner_product(b.begin(), b.end(), b.begin(), 0.0));
            for (double& v : b) v /= norm;
            basis.push_back(std::move(b));
        }
        std::vector<double> p(length);
        for (double& v : p) v = normal(rng);
        for (const auto& e : basis) {
            const double dot = std::inner_product(p.begin(), p.end(), e.begin(), 0.0);
            for (size_t t = 0; t < length; ++t) p[t] -= dot * e[t];
        }
        const std::vector<float> projection(p.begin(), p.end());
        const Points pushes = codedPushes(code, g);
        std::vector<const float*> rows;
        for (const auto& push : pushes) rows.push_back(push.data());
        std::vector<float> sum(length);
        std::vector<int> suspects;
        QString error;
        QVERIFY2(code.decodeOn(projection, rows, length, sum.data(), &suspects, &error), qPrintable(error));
        QCOMPARE(suspects, std::vector<int>{});
        double diff = 0, norm = 0;
        for (size_t t = 0; t < length; ++t) diff += (sum[t] - truth[t]) * (sum[t] - truth[t]), norm += truth[t] * truth[t];
        QVERIFY2(std::sqrt(diff / norm) < 1e-5, qPrintable(QString::number(std::sqrt(diff / norm))));
        // A liar is still found under it: its error is not orthogonal to the projection.
        std::vector<float> lie = pushes[2];
        for (size_t t = 0; t < length; ++t) lie[t] += 0.5f * normal(rng);
        rows[2] = lie.data();
        QVERIFY2(code.decodeOn(projection, rows, length, sum.data(), &suspects, &error), qPrintable(error));
        QCOMPARE(suspects, std::vector<int>{2});
    }

    // Where the code's coefficients are integers ((3, 1): g = 1 + x + x²), they are exactly those:
    // the workers' pushes, the same sum of the same parts, are then the same bits (with a
    // coefficient 1 + 2^-52 they differed wherever the sum was a tie to round).
    void cyclicIntegerCoefficientsGiveIdenticalPushes() {
        const DracoCyclicCode code(3, 1);
        for (int k = 0; k < code.window(); ++k) QCOMPARE(code.coefficient(k), 1.0);
        std::mt19937 rng(3);
        std::normal_distribution<float> normal(0, 1);
        Points g(3, std::vector<float>(20000));
        for (auto& part : g)
            for (float& v : part) v = normal(rng);
        const Points pushes = codedPushes(code, g);
        QCOMPARE(pushes[1], pushes[0]);
        QCOMPARE(pushes[2], pushes[0]);
    }

    // A liar who knows the projection the syndromes are computed on (this code is public) sends an
    // error orthogonal to it. With a fixed projection that error went unseen and into the sum.
    void cyclicFindsAnErrorMadeForAFixedProjection() {
        const int n = 7, s = 2;
        const DracoCyclicCode code(n, s);
        const size_t length = 1000;
        std::mt19937 rng(7);
        std::normal_distribution<float> normal(0, 1);
        std::vector<std::vector<float>> g{size_t(n), std::vector<float>(length)}, pushes{size_t(n), std::vector<float>(length, 0.0f)};
        for (auto& v : g)
            for (float& x : v) x = normal(rng);
        for (int i = 0; i < n; ++i)
            for (int k = 0; k < code.window(); ++k)
                for (size_t t = 0; t < length; ++t) pushes[size_t(i)][t] += float(code.coefficient(k)) * g[size_t(code.partition(i, k))][t];
        std::mt19937 fixed(0x5eed);  // the projection the code used to draw for every decoding
        std::uniform_real_distribution<float> u(-1.0f, 1.0f);
        std::vector<double> p(length), e(length);
        double ep = 0, pp = 0;
        for (size_t t = 0; t < length; ++t) p[t] = u(fixed), e[t] = 50.0 * normal(rng), ep += e[t] * p[t], pp += p[t] * p[t];
        for (size_t t = 0; t < length; ++t) pushes[3][t] += float(e[t] - ep / pp * p[t]);
        std::vector<const float*> rows;
        for (const auto& push : pushes) rows.push_back(push.data());
        std::vector<float> sum(length);
        std::vector<int> suspects;
        QString error;
        QVERIFY2(code.decode(rows, length, sum.data(), &suspects, &error), qPrintable(error));
        QCOMPARE(suspects, std::vector<int>{3});
    }

    // More liars than the code tolerates: the round adds nothing and says why; no exception.
    void cyclicRuleSurvivesTooManyLiars() {
        auto r = make(QStringLiteral("draco_cyclic"), {{QStringLiteral("draco_s"), 1}});
        Points pushes;
        std::mt19937 rng(5);
        std::normal_distribution<float> normal(0, 1);
        for (int i = 0; i < 5; ++i) pushes << std::vector<float>{normal(rng), normal(rng), normal(rng), normal(rng)};  // no codeword
        const std::vector<float> out = aggregate(*r, pushes);
        QCOMPARE(out, std::vector<float>(4, 0.0f));
        const QString undecodable = r->report().value(QStringLiteral("undecodable")).toString();
        QVERIFY2(undecodable.contains("no codeword"), qPrintable(undecodable));
        // How far from one: random rows are nowhere near (their syndromes are of their size).
        const QRegularExpression ratio("their syndromes are ([0-9.e+-]+) of their projection's size; a codeword's are below 1e-05");
        QVERIFY2(ratio.match(undecodable).hasMatch() && ratio.match(undecodable).captured(1).toDouble() > 0.01, qPrintable(undecodable));
        QCOMPARE(names(r->report(), "rejected").size(), 5);
    }

    // How far apart the code holds neighbouring rows in error, against an independent computation
    // (Python, complex Gaussian elimination by hand): it falls fast as n grows against s, an odd n
    // (one frequency fewer) below the even ones beside it. Below kLeastSeparation a topology is
    // refused (BrokenRegistries.h: 100 workers with s = 4).
    void cyclicSeparationOfNeighbouringRows() {
        const auto near = [](double a, double b) { return std::abs(a - b) <= 0.02 * b; };
        QVERIFY(near(DracoCyclicCode(5, 2).separation(), 0.5));  // (2s + 1 rows: the whole DFT, orthogonal up to L)
        QVERIFY(near(DracoCyclicCode(15, 3).separation(), 3.26e-3));
        QVERIFY(near(DracoCyclicCode(20, 4).separation(), 9.08e-4));
        QVERIFY(near(DracoCyclicCode(42, 4).separation(), 3.6e-6));
        QVERIFY(near(DracoCyclicCode(43, 4).separation(), 7.96e-7));
        QVERIFY(DracoCyclicCode(42, 4).separation() >= DracoCyclicCode::kLeastSeparation);
        QVERIFY(DracoCyclicCode(43, 4).separation() < DracoCyclicCode::kLeastSeparation);
        QVERIFY(DracoCyclicCode(200, 3).separation() < 1e-7);
        // The most workers below which every size keeps the bound: 43 is the first under it for
        // s = 4 (44 alone is above it again: an even n has one frequency more).
        QCOMPARE(DracoCyclicCode::mostWorkers(4), 42);
        QVERIFY(DracoCyclicCode(44, 4).separation() >= DracoCyclicCode::kLeastSeparation);
        QCOMPARE(DracoCyclicCode::mostWorkers(2), 334);
        QCOMPARE(DracoCyclicCode::mostWorkers(1), DracoCyclicCode::kMostWorkers);
    }

    void cyclicCodeRefusesTooFewWorkers() {
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, DracoCyclicCode(4, 2));  // even n needs 2s + 2
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, DracoCyclicCode(5, 3));  // odd n needs 2s + 1
        QCOMPARE(DracoCyclicCode(5, 2).window(), 5);  // 2s + 1 partitions per worker
        QCOMPARE(DracoCyclicCode(6, 2).window(), 6);  // 2s + 2 where n is even
    }

    // Server optimizers by hand, from w = 0 with Δ = (1, −2), η 0.01, β1 0.9, β2 0.99, τ 0.001:
    // adam: m = 0.1Δ, v = 0.01Δ², step η·m/(√v + τ) = (0.01·0.1/0.101, −0.01·0.2/0.201);
    // adagrad: v = Δ², step η·Δ/(|Δ| + τ); momentum: m = Δ then 0.9Δ + Δ′; sgd: η·Δ.
    void serverOptimizersStepAsThePaperSays() {
        const float w[2] = {0, 0}, delta[2] = {1, -2};
        float out[2];
        auto close = [](float a, double b) { return std::abs(a - b) < 1e-6; };
        FedOptimizer adam(FedOptimizer::Kind::Adam, 0.01f, 0.9f, 0.99f, 0.001f);
        adam.step(out, w, delta, 2);
        QVERIFY(close(out[0], 0.01 * 0.1 / 0.101) && close(out[1], -0.01 * 0.2 / 0.201));
        FedOptimizer yogi(FedOptimizer::Kind::Yogi, 0.01f, 0.9f, 0.99f, 0.001f);
        yogi.step(out, w, delta, 2);  // from v = 0, Yogi's first v is Adam's
        QVERIFY(close(out[0], 0.01 * 0.1 / 0.101));
        const float small[2] = {0.05f, 0.05f};
        float adamNext[2], yogiNext[2];
        adam.step(adamNext, w, small, 2);  // v shrinks by β2 for Adam, by (1 − β2)·Δ² for Yogi
        yogi.step(yogiNext, w, small, 2);
        QVERIFY(close(adamNext[0], 0.01 * (0.09 + 0.005) / (std::sqrt(0.99 * 0.01 + 0.01 * 0.0025) + 0.001)));
        QVERIFY(close(yogiNext[0], 0.01 * (0.09 + 0.005) / (std::sqrt(0.01 - 0.01 * 0.0025) + 0.001)));
        FedOptimizer adagrad(FedOptimizer::Kind::Adagrad, 0.01f, 0, 0, 0.001f);
        adagrad.step(out, w, delta, 2);
        QVERIFY(close(out[0], 0.01 / 1.001) && close(out[1], -0.02 / 2.001));
        FedOptimizer momentum(FedOptimizer::Kind::Momentum, 0.5f, 0.9f, 0, 0);
        momentum.step(out, w, delta, 2);
        QVERIFY(close(out[0], 0.5) && close(out[1], -1.0));
        momentum.step(out, w, delta, 2);
        QVERIFY(close(out[0], 0.5 * 1.9));
        FedOptimizer sgd(FedOptimizer::Kind::Sgd, 1.0f, 0, 0, 0);
        sgd.step(out, w, delta, 2);
        QVERIFY(close(out[0], 1) && close(out[1], -2));
        // Beyond the weights (BatchNorm's running statistics) the aggregate is taken as it is:
        // momentum on a variance would push it below zero.
        for (const FedOptimizer::Kind kind : {FedOptimizer::Kind::Momentum, FedOptimizer::Kind::Adam, FedOptimizer::Kind::Sgd}) {
            FedOptimizer weightsOnly(kind, 0.5f, 0.9f, 0.99f, 0.001f);
            weightsOnly.stepOnlyFirst(1);
            weightsOnly.step(out, w, delta, 2);
            weightsOnly.step(out, w, delta, 2);
            QVERIFY2(close(out[1], -2) && !close(out[0], 1), qPrintable(QString("%1 %2").arg(out[0]).arg(out[1])));
        }
        // The state a checkpoint keeps gives the same next step.
        FedOptimizer restored(FedOptimizer::Kind::Adam, 0.01f, 0.9f, 0.99f, 0.001f);
        restored.setState(adam.state());
        float a[2], b[2];
        adam.step(a, w, delta, 2);
        restored.step(b, w, delta, 2);
        QCOMPARE(a[0], b[0]);
        QCOMPARE(a[1], b[1]);
        QCOMPARE(adam.state().size(), size_t(4));
    }

    // The pairwise distances over blocks equal the direct sums (several blocks, an odd tail).
    void pairwiseDistancesMatchTheDirectSum() {
        std::mt19937 rng(3);
        std::uniform_real_distribution<float> u(-1, 1);
        const size_t length = 4096 * 2 + 37;
        std::vector<std::vector<float>> v(4, std::vector<float>(length));
        for (auto& x : v)
            for (float& f : x) f = u(rng);
        const std::vector<double> d = pairwiseSquaredDistances({v[0].data(), v[1].data(), v[2].data(), v[3].data()}, length);
        for (size_t a = 0; a < 4; ++a)
            for (size_t b = 0; b < 4; ++b) {
                double direct = 0;
                for (size_t i = 0; i < length; ++i) direct += double(v[a][i] - v[b][i]) * double(v[a][i] - v[b][i]);
                QVERIFY(std::abs(d[a * 4 + b] - direct) <= 1e-4 * std::max(1.0, direct));
            }
    }
};

QTEST_GUILESS_MAIN(RobustRulesTest)
#include "tst_robust.moc"
