// Differential privacy: the accountant against the closed form, published values and a numeric
// integral of the definition; clipping and the secure Gaussian noise measured; the party's
// private sum; and what a run's settings settle to (auto noise, rounds within target_epsilon).
#include "ClientSampling.h"
#include "PrivacyAccountant.h"
#include "PrivacyBudget.h"
#include "PrivacyMechanism.h"
#include "TopologyReader.h"
#include "TopologyWriter.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <limits>

using namespace hips;

namespace {

// RDP of order α of the subsampled Gaussian from its definition: log E_{z~N(0,σ²)}[(μ(z)/μ0(z))^α] / (α−1),
// μ = (1−q)·N(0,σ²) + q·N(1,σ²), by the trapezoid rule (the accountant's series computed otherwise).
double rdpByIntegration(double q, double sigma, double alpha) {
    const int n = 400000;
    const double low = -40 * sigma, high = 40 * sigma + 1, h = (high - low) / n;
    double total = 0;
    for (int k = 0; k <= n; ++k) {
        const double z = low + k * h;
        const double m0 = std::exp(-z * z / (2 * sigma * sigma)), m1 = std::exp(-(z - 1) * (z - 1) / (2 * sigma * sigma));
        if (m0 <= 0) continue;
        total += (k == 0 || k == n ? 0.5 : 1.0) * m0 * std::pow(((1 - q) * m0 + q * m1) / m0, alpha);
    }
    return std::log(total * h / (sigma * std::sqrt(2 * M_PI))) / (alpha - 1);
}

}  // namespace

class PrivacyTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Every round a full-participation Gaussian: RDP(α) = T·α/(2σ²), ε = min over the grid.
    void fullParticipationMatchesTheClosedForm() {
        QCOMPARE(privacy::orders().size(), 152);
        QCOMPARE(privacy::orders().first(), 1.1);
        QCOMPARE(privacy::orders()[99], 11.0);
        QCOMPARE(privacy::orders().last(), 63.0);
        for (const auto& [sigma, rounds, delta] : {std::tuple{1.0, 20, 1e-5}, {0.7, 100, 1e-6}, {4.0, 3, 1e-3}}) {
            double closed = std::numeric_limits<double>::infinity();
            for (double a : privacy::orders()) closed = std::min(closed, rounds * a / (2 * sigma * sigma) + std::log(1 / delta) / (a - 1));
            QVERIFY(std::abs(privacy::epsilon(1, sigma, rounds, delta) - closed) < 1e-6);
        }
    }

    // TensorFlow Privacy's rdp_accountant_test (compute_rdp and get_privacy_spent with Mironov's
    // conversion): the published figures, to the places the test gives them.
    void subsampledGaussianMatchesPublishedValues() {
        QVERIFY(std::abs(10 * privacy::rdpOfGaussian(0.1, 2, 5) - 0.07737) < 1e-5);  // compute_rdp(0.1, 2, 10, 5)
        const QList<std::pair<double, double>> sequence{
            {1.5, 0.00065}, {2.5, 0.001085}, {5, 0.00218075}, {50, 0.023846}, {100, 167.416307}};
        for (const auto& [alpha, published] : sequence)  // compute_rdp(0.01, 2.5, 50, orders)
            QVERIFY2(std::abs(50 * privacy::rdpOfGaussian(0.01, 2.5, alpha) - published) <= 1e-5 * std::max(1.0, published),
                     qPrintable(QString::number(alpha)));
        QList<double> twoTo32;
        for (int a = 2; a <= 32; ++a) twoTo32 << a;
        QVERIFY(std::abs(privacy::epsilon(0.01, 4, 10000, 1e-5, twoTo32) - 1.258575) < 1e-5);
    }

    // The series for fractional and integer orders against the definition integrated numerically.
    void subsampledGaussianMatchesItsDefinition() {
        for (const auto& [q, sigma, alpha] : {std::tuple{0.1, 2.0, 5.0}, {0.05, 1.1, 3.7}, {0.2, 3.0, 12.5}, {0.01, 0.9, 2.3}}) {
            const double series = privacy::rdpOfGaussian(q, sigma, alpha), integral = rdpByIntegration(q, sigma, alpha);
            QVERIFY2(std::abs(series - integral) <= 1e-6 * std::max(1e-3, integral),
                     qPrintable(QString("%1 vs %2").arg(series).arg(integral)));
        }
    }

    void budgetSearchesAgreeWithTheAccountant() {
        const qint64 within = privacy::usesWithin(1, 3.0, 1e-5, 3);
        QVERIFY(within > 1);
        QVERIFY(privacy::epsilon(1, 3.0, within, 1e-5) <= 3 && privacy::epsilon(1, 3.0, within + 1, 1e-5) > 3);
        QCOMPARE(privacy::usesWithin(1, 1.2, 1e-5, 3), 0);  // one round of σ 1.2 spends 4.35
        const double sigma = privacy::noiseFor(1, 50, 1e-5, 8);
        QVERIFY(privacy::epsilon(1, sigma, 50, 1e-5) <= 8 && privacy::epsilon(1, sigma - 2e-3, 50, 1e-5) > 8);
    }

    // Property: no clipped update is longer than the clip norm; a shorter one is left as it was.
    void clippingBoundsEveryNorm() {
        QRandomGenerator random(7);
        for (int trial = 0; trial < 500; ++trial) {
            std::vector<float> v(1 + random.bounded(2000));
            const double scale = std::pow(10.0, random.bounded(8.0) - 4);
            for (float& x : v) x = float((random.generateDouble() * 2 - 1) * scale);
            const std::vector<float> before = v;
            const double clip = 0.01 + random.bounded(5.0);
            const double norm = privacy::clipToNorm(v.data(), v.size(), clip);
            double after = 0;
            for (float x : v) after += double(x) * x;
            QVERIFY(std::sqrt(after) <= clip * (1 + 1e-6));
            if (norm <= clip) QVERIFY(v == before);
        }
        // One value that is no number, or infinite: nothing of it is bounded, so all of it is NaN
        // for its server to refuse (a NaN norm scaled nothing, and the finite slices went on unclipped).
        for (const float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
            std::vector<float> v(300000, 1000.0f);
            v[7] = bad;
            QVERIFY(!std::isfinite(privacy::clipToNorm(v.data(), v.size(), 1.0)));
            QVERIFY(std::all_of(v.begin(), v.end(), [](float x) { return std::isnan(x); }));
        }
    }

    // The noise's measured standard deviation within 2 % of the configured one over 10⁶ draws,
    // centred, and never the same twice (a secure source, no seed).
    void noiseHasTheConfiguredDeviation() {
        std::vector<float> v(1000000, 0.0f), w(16, 0.0f), u(16, 0.0f);
        privacy::addGaussianNoise(v.data(), v.size(), 0.75);
        double sum = 0, squares = 0;
        for (float x : v) sum += x, squares += double(x) * x;
        const double mean = sum / v.size(), sd = std::sqrt(squares / v.size() - mean * mean);
        QVERIFY2(std::abs(sd / 0.75 - 1) < 0.02, qPrintable(QString::number(sd)));
        QVERIFY(std::abs(mean) < 0.01);
        privacy::addGaussianNoise(w.data(), w.size(), 1);
        privacy::addGaussianNoise(u.data(), u.size(), 1);
        QVERIFY(w != u);
    }

    // The party's private sum: each contribution clipped, summed, noised once; never written bare.
    void privateSumClipsSumsAndNoises() {
        privacy::PrivateSumRule rule(1.0, 1e-9);
        rule.begin(2);
        const std::vector<float> long_{3, 4}, short_{0.3f, 0.4f};  // norms 5 and 0.5
        rule.add({"a", 1, long_.data(), 2, nullptr});
        rule.add({"b", 1, short_.data(), 2, nullptr});
        std::vector<float> out(2);
        QVERIFY_THROWS_EXCEPTION(std::logic_error, rule.write(out.data(), nullptr, 0, 2));
        rule.finish();
        const std::vector<float> base{1, 1};
        rule.write(out.data(), base.data(), 0, 2);
        QVERIFY(std::abs(out[0] - (1 + 0.6f + 0.3f)) < 1e-5 && std::abs(out[1] - (1 + 0.8f + 0.4f)) < 1e-5);
        privacy::PrivateSumRule noisy(1.0, 2.0);
        noisy.begin(200000);
        std::vector<float> zeros(200000, 0.0f);
        noisy.add({"a", 1, zeros.data(), zeros.size(), nullptr});
        noisy.finish();
        std::vector<float> sum(200000);
        noisy.write(sum.data(), nullptr, 0, sum.size());
        double squares = 0;
        for (float x : sum) squares += double(x) * x;
        QVERIFY(std::abs(std::sqrt(squares / sum.size()) / 2.0 - 1) < 0.02);  // σ · clip_norm
    }

    // What a run settles to: "auto" noise from the target and the rounds; rounds cut to the
    // budget; a target one round already exceeds refused; a settled run settles to itself.
    void runsSettleTheirPrivacy() {
        Topology run;
        TrainingSettings& s = run.training;
        s.rounds = 30;
        s.privacy = PrivacySettings{};
        s.privacy->autoNoise = true;
        s.privacy->targetEpsilon = 4;
        PrivacyPlan plan = settlePrivacy(&run);
        QVERIFY2(plan.error.isEmpty(), qPrintable(plan.error));
        QVERIFY(!s.privacy->autoNoise && s.privacy->noiseMultiplier > 0);
        QVERIFY(privacyEpsilon(*s.privacy, 30) <= 4);
        QCOMPARE(s.rounds, 30);
        QVERIFY(!settlePrivacy(&run).cut);

        s.privacy->noiseMultiplier = 2.0;  // too little noise for 30 rounds within ε 4: 2 rounds fit
        plan = settlePrivacy(&run);
        QVERIFY(plan.cut && s.rounds < 30 && s.rounds > 0);
        QVERIFY(privacyEpsilon(*s.privacy, s.rounds) <= 4 && privacyEpsilon(*s.privacy, s.rounds + 1) > 4);
        QVERIFY(plan.note.contains("privacy budget reached"));
        const QJsonObject guarantee = privacyGuarantee(*s.privacy, s.rounds, true);
        QCOMPARE(guarantee.value("budget_reached").toBool(), true);
        QCOMPARE(guarantee.value("where").toString(), QString("party"));

        s.privacy->noiseMultiplier = 0.05;  // one round spends more than the target
        QVERIFY(settlePrivacy(&run).error.contains("one round"));
    }

    // secure_aggregation and its threshold: read, written back, checked against the run (the
    // threshold at most the parties − 1, none without secure aggregation, no rule that needs a
    // party's own update), and stated in the guarantee with the threshold it defaults to.
    // Client sampling: a worker's data is used only in the rounds it is drawn for, so ε composes
    // over the most draws of any worker (counted here from the draw itself), below every round's.
    void samplingSpendsOnlyTheRoundsAWorkerIsDrawnFor() {
        QFile f(HIPS_SOURCE_DIR "/resources/topologies/default.json");
        QVERIFY(f.open(QIODevice::ReadOnly));
        QJsonObject t = QJsonDocument::fromJson(f.readAll()).object(), training = t["training"].toObject();
        training["clients_per_round"] = 1;
        training["privacy"] = QJsonObject{{"where", "worker"}, {"clip_norm", 1.0}, {"noise_multiplier", 1.0}};
        t["training"] = training;
        const TopologyLoad load = TopologyReader::readJson(QJsonDocument(t).toJson());
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
        const Topology& run = *load.topology;
        QHash<QString, int> draws;
        for (int round = 1; round <= 20; ++round)
            for (const QString& w : sampledWorkers(run, round)) ++draws[w];
        int most = 0;
        for (int d : draws) most = std::max(most, d);
        QVERIFY(most >= 5 && most < 20);  // 20 draws of 1 among 4 workers
        QCOMPARE(mostDraws(run, 20), most);
        const PrivacySettings& p = *run.training.privacy;
        QCOMPARE(privacyEpsilon(run, 20), privacy::epsilon(1, p.noiseMultiplier, most, p.delta));
        QVERIFY(privacyEpsilon(run, 20) < privacyEpsilon(p, 20));
        const QJsonObject guarantee = privacyGuarantee(run, 20, false);
        QCOMPARE(guarantee["most_draws"].toInt(), most);
        QCOMPARE(guarantee["epsilon"].toDouble(), privacyEpsilon(run, 20));

        // "auto" noise and target_epsilon's cut spend the budget over the same draws.
        Topology autoRun = run;
        autoRun.training.rounds = 20;
        autoRun.training.privacy->autoNoise = true;
        autoRun.training.privacy->targetEpsilon = 8;
        QVERIFY(settlePrivacy(&autoRun).error.isEmpty());
        const double sigma = autoRun.training.privacy->noiseMultiplier;
        QCOMPARE(sigma, privacy::noiseFor(1, most, p.delta, 8));
        QVERIFY(sigma < privacy::noiseFor(1, 20, p.delta, 8));
        QVERIFY(privacyEpsilon(autoRun, 20) <= 8);
        QCOMPARE(autoRun.training.rounds, 20);  // nothing cut
        Topology cutRun = run;
        cutRun.training.rounds = 20;
        cutRun.training.privacy->targetEpsilon = privacy::epsilon(1, p.noiseMultiplier, 3, p.delta) * 1.0001;
        QVERIFY(settlePrivacy(&cutRun).cut);
        QCOMPARE(mostDraws(cutRun, cutRun.training.rounds), 3);
        QVERIFY(mostDraws(run, cutRun.training.rounds + 1) > 3);

        // The GUI's tally, round by round, says what mostDraws says, and after a round asked
        // again from the start (a replay), too; with resumes' rounds trained again on top.
        Topology rerun = run;
        rerun.training.privacy->rerunRounds = {{3, 6}};
        for (const Topology& t : {run, rerun}) {
            DrawTally tally(t);
            for (int pass = 0; pass < 2; ++pass)
                for (int round = 1; round <= 20; ++round) {
                    QCOMPARE(tally.mostBy(round), mostDraws(t, round));
                    QCOMPARE(tally.epsilonBy(round), privacyEpsilon(t, round));
                }
            QCOMPARE(tally.mostBy(7), mostDraws(t, 7));
        }
    }

    void secureAggregationIsReadCheckedAndStated() {
        QFile f(HIPS_SOURCE_DIR "/resources/topologies/default.json");
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject base = QJsonDocument::fromJson(f.readAll()).object();
        const auto load = [&](const QJsonObject& extra) {
            QJsonObject t = base, training = t["training"].toObject();
            for (auto it = extra.begin(); it != extra.end(); ++it) training[it.key()] = it.value();
            t["training"] = training;
            return TopologyReader::readJson(QJsonDocument(t).toJson());
        };
        const TopologyLoad on = load({{"secure_aggregation", true}});
        QVERIFY2(on.ok(), qPrintable(on.errorText()));
        QVERIFY(on.topology->training.secureAggregation);
        QCOMPARE(on.topology->training.secureThreshold(2), 1);  // a majority of 2
        QCOMPARE(on.topology->training.secureThreshold(5), 3);
        const QJsonObject written = QJsonDocument::fromJson(TopologyWriter::toJson(*on.topology)).object()["training"].toObject();
        QCOMPARE(written["secure_aggregation"].toBool(), true);
        QVERIFY(!written.contains("secure_aggregation_threshold"));
        const QJsonObject guarantee = privacyGuarantee(*on.topology, 20, false);
        QCOMPARE(guarantee["secure_aggregation"].toBool(), true);
        QCOMPARE(guarantee["secure_aggregation_threshold"].toInt(), 1);
        QVERIFY(!guarantee.contains("epsilon"));
        QVERIFY(privacyGuarantee(*load({}).topology, 20, false).isEmpty());

        const TopologyLoad tooHigh = load({{"secure_aggregation", true}, {"secure_aggregation_threshold", 2}});
        QVERIFY(!tooHigh.ok() && tooHigh.errorText().contains("threshold is at most 1, not 2"));
        const TopologyLoad alone = load({{"secure_aggregation_threshold", 1}});
        QVERIFY(!alone.ok() && alone.errorText().contains("add \"secure_aggregation\": true"));
        const TopologyLoad krum = load({{"secure_aggregation", true}, {"aggregation", "krum"}});
        QVERIFY2(!krum.ok() && krum.errorText().contains("aggregation krum needs each party's own update"), qPrintable(krum.errorText()));
    }

    // Rounds a resume trained again count once more: 20 rounds after a resume that trained 11-19
    // again use each worker's data 29 times. Written to the run's topology and read back.
    void roundsTrainedAgainCountAgain() {
        QFile f(HIPS_SOURCE_DIR "/resources/topologies/default.json");
        QVERIFY(f.open(QIODevice::ReadOnly));
        QJsonObject t = QJsonDocument::fromJson(f.readAll()).object(), training = t["training"].toObject();
        training["privacy"] = QJsonObject{{"where", "party"}, {"noise_multiplier", 1.0}, {"rerun_rounds", QJsonArray{QJsonArray{11, 19}}}};
        t["training"] = training;
        TopologyLoad load = TopologyReader::readJson(QJsonDocument(t).toJson());
        QVERIFY2(load.ok(), qPrintable(load.errorText()));
        Topology& run = *load.topology;
        QCOMPARE(mostDraws(run, 20), 29);
        QCOMPARE(privacyEpsilon(run, 20), privacy::epsilon(1, 1.0, 29, 1e-5));
        QCOMPARE(privacyGuarantee(run, 20, false)["most_draws"].toInt(), 29);
        QCOMPARE(roundsWithinDraws(run, 20, 25), 16);
        noteRerunRounds(&run, 4, 7);  // a second resume, from round 4, of a run whose records reached 7: 5 to 8
        noteRerunRounds(&run, 8, 8);  // none recorded past its checkpoint: the round in flight, 9
        noteRerunRounds(&run, 20, 20);  // (a run that had trained its last round: none)
        noteRerunRounds(&run, 12, 10);  // records lagging the checkpoint: the round after it, 13
        noteRerunRounds(&run, 14, 10, true);  // its roles outlived its controller: up to the next checkpoint's round, 15 to 19
        QCOMPARE(mostDraws(run, 20), 40);
        const TopologyLoad again = TopologyReader::readJson(TopologyWriter::toJson(run));
        QVERIFY2(again.ok(), qPrintable(again.errorText()));
        const QList<std::pair<int, int>> expected{{11, 19}, {5, 8}, {9, 9}, {13, 13}, {15, 19}};
        QCOMPARE(again.topology->training.privacy->rerunRounds, expected);

        training["privacy"] = QJsonObject{{"where", "party"}, {"noise_multiplier", 1.0}, {"rerun_rounds", QJsonArray{QJsonArray{5, 3}}}};
        t["training"] = training;
        load = TopologyReader::readJson(QJsonDocument(t).toJson());
        QVERIFY(!load.ok());
        QVERIFY2(load.errorText().contains("rerun_rounds lists [first, last] pairs"), qPrintable(load.errorText()));
    }

    // A round counts once more for each restart of the role restarted most in it; a controller that
    // attached knows the earlier uses, not whose, and counts a role restarted again once more.
    void restartsUseARoundAsOftenAsTheMostRestartedRole() {
        RestartUses uses;
        QVERIFY(uses.countRestart(3, "party1/worker0"));
        QVERIFY(!uses.countRestart(3, "party1/worker1"));  // (worker0's second copy counts for it)
        QVERIFY(uses.countRestart(3, "party1/worker0"));  // its third copy of round 3
        QVERIFY(uses.countRestart(4, "party1/worker1"));  // (another round)

        RestartUses attached;  // its first controller counted one use of round 3
        attached.takeUpEarlier(3);
        QVERIFY(attached.countRestart(3, "party1/worker0"));  // (it may be the role restarted before)
        QVERIFY(!attached.countRestart(3, "party1/worker1"));
        QVERIFY(attached.countRestart(3, "party1/worker0"));
        QVERIFY(attached.countRestart(5, "party1/worker0"));
    }
};

QTEST_MAIN(PrivacyTest)
#include "tst_privacy.moc"
