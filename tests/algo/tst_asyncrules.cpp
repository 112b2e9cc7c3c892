// The asynchronous and ESync modes' formulas, case by case: ESync's state service rule, what an
// asgd push carries (HiPS's damped share or the whole), and DC-ASGD's delay compensation.
#include "EsyncState.h"
#include "ModeRegistry.h"
#include "VectorMath.h"

#include <QtTest>
#include <cmath>
#include <vector>

using namespace hips;

class AsyncRulesTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // ESync's state service rule, case by case (ALGORITHMS.md): three workers at 0.1, 0.2 and
    // 2.0 s per step (worker 2 the slowest), ε = 0.5 s unless a row says otherwise.
    void esyncRule_data() {
        QTest::addColumn<int>("scenario");
        QTest::addColumn<bool>("expected");
        QTest::newRow("a worker not heard from yet may be the slowest: not ready") << 0 << false;
        QTest::newRow("k == 0 (c seeded before the first round): not ready") << 1 << false;
        QTest::newRow("the slowest not yet in round t: not ready") << 2 << false;
        QTest::newRow("one more step ends well before the slowest's: go on") << 3 << false;
        QTest::newRow("within the ε margin of the slowest's end: ready") << 4 << true;
        QTest::newRow("the same moment with ε = 0: go on") << 5 << false;
        QTest::newRow("the slowest itself: ready after one step") << 6 << true;
        QTest::newRow("the slowest is ready: everyone is") << 7 << true;
        QTest::newRow("a new round clears ready; its slowest not in it yet: not ready") << 8 << false;
        // The default ε (-1): a tenth of the slowest's step, 0.2 s here.
        QTest::newRow("default ε, 0.5 s left: one more 0.1 s step fits, go on") << 9 << false;
        QTest::newRow("default ε, 0.25 s left: 0.1 + 0.2 > 0.25, ready") << 10 << true;
    }

    void esyncRule() {
        QFETCH(int, scenario);
        QFETCH(bool, expected);
        EsyncState s;
        s.init(3, scenario == 5 ? 0.0 : scenario >= 9 ? -1.0 : 0.5);
        const double c[3] = {0.1, 0.2, 2.0};
        bool setupHeld = true;  // what every scenario passes through on its way
        const bool answer = [&] {
            if (scenario == 0) return s.apply(0, 1, c[0], 0, 0.1);
            for (int r = 0; r < 3; ++r) setupHeld &= !s.apply(r, 0, c[r], 0, 0);  // seeding c makes nobody ready
            if (scenario == 1) return s.apply(0, 0, c[0], 0, 5.0);
            s.reset(0, 1, 0);
            s.reset(1, 1, 0);
            if (scenario == 2) return s.apply(0, 1, c[0], 0, 0.1);
            s.reset(2, 1, 0);  // every worker in round 1 from t = 0: the slowest's step ends at 2.0
            if (scenario == 3) return s.apply(0, 1, c[0], 0, 0.2);  // 0.1 + 0.5 < 1.8 left
            if (scenario == 4 || scenario == 5 || scenario == 9) return s.apply(0, 5, c[0], 0, 1.5);  // 0.5 left
            if (scenario == 10) return s.apply(0, 5, c[0], 0, 1.75);
            if (scenario == 6) return s.apply(2, 1, c[2], 0, 2.0);
            setupHeld &= s.apply(2, 1, c[2], 0, 2.0);
            if (scenario == 7) return s.apply(1, 1, c[1], 0, 0.3);
            s.reset(0, 2, 3.0);
            setupHeld &= s.round() == 2 && !s.record(2).ready && s.record(1).k == 0;
            s.reset(1, 2, 3.0);  // (as the service does with the round its ask names)
            return s.apply(1, 1, c[1], 3.0, 3.3);
        }();
        QVERIFY(setupHeld);
        QCOMPARE(answer, expected);
    }

    // fault_policy continue: a dead worker (here the slowest, last heard at t = 1) is waited for
    // only as long as the silence limit (10 s; its own steps are 2 s, three of them less) counted
    // from the round's start, then left out, in later rounds too, until it speaks again. Without a
    // limit it is waited for forever.
    void esyncLeavesOutTheSilent() {
        for (const double limit : {0.0, 10.0}) {
            EsyncState s;
            s.init(3, -1);
            s.setSilenceLimit(limit);
            const double c[3] = {0.1, 0.2, 2.0};
            for (int r = 0; r < 3; ++r) s.apply(r, 0, c[r], 0, 0);
            for (int r = 0; r < 3; ++r) s.reset(r, 1, 1);
            s.reset(0, 2, 3);  // round 2 from t = 3; worker 2 never comes to it
            s.reset(1, 2, 3);
            QVERIFY(!s.apply(0, 1, c[0], 3, 3.1));
            QVERIFY(!s.apply(0, 2, c[0], 3, 12.5));  // 9.5 s into the round
            QCOMPARE(s.apply(0, 3, c[0], 3, 13.5), limit > 0);  // 10.5 s
            s.reset(0, 3, 14);  // round 3: not waited for again
            s.reset(1, 3, 14);
            QCOMPARE(s.apply(0, 1, c[0], 14, 14.1), limit > 0);  // (worker 1's 0.2 s step ends at 14.2)
            s.reset(2, 3, 15);  // back
            QVERIFY(!s.apply(1, 1, c[1], 14, 15.1));  // 2's step ends at 17: 1 goes on
        }
        // The wait for the model between two rounds (here 19 s) is no one's silence.
        EsyncState between;
        between.init(2, -1);
        between.setSilenceLimit(10);
        between.apply(0, 0, 0.1, 0, 0);
        between.apply(1, 0, 2.0, 0, 0);
        between.reset(0, 1, 0);
        between.reset(1, 1, 0);
        between.apply(1, 1, 2.0, 0, 1);
        between.reset(0, 2, 20);
        QVERIFY(!between.apply(0, 1, 0.1, 20, 20.1));  // 1 is slowest and not in round 2 yet
        // Round 1 closed without it (it stalled; the others went on): asking, it stops at once.
        QVERIFY(between.apply(1, 2, 2.0, 0, 20.2));
        // Never heard from: waited for while the round is younger than the limit.
        EsyncState s;
        s.init(2, -1);
        s.setSilenceLimit(10);
        s.apply(0, 0, 0.1, 0, 0);
        s.reset(0, 1, 0);
        QVERIFY(!s.apply(0, 1, 0.1, 0, 5));
        QVERIFY(s.apply(0, 2, 0.1, 0, 10.5));
    }

    // A straggler told to stop at once (its round closed without it), which then takes up the
    // open round, is not "ready" in it: its flag from the closed round made every other worker
    // stop at once (until 2026-12-02), and a round of their steps was lost.
    void esyncAStragglersLateStopDoesNotCarryOver() {
        EsyncState s;
        s.init(2, 0.0);
        s.reset(0, 1, 0);
        s.reset(1, 1, 0);
        s.apply(0, 1, 0.1, 0, 0.1);
        s.apply(1, 1, 2.0, 0, 2.0);  // 1 is the slowest
        s.reset(0, 2, 10);  // round 2 opens without it
        QVERIFY(s.apply(1, 2, 2.0, 0, 10.1));  // late in round 1: it stops at once
        s.reset(1, 2, 10.2);  // ... and takes up round 2, its step 2 s
        QVERIFY(!s.apply(0, 1, 0.1, 10, 10.4));  // 1.8 s of it to go: worker 0 steps on
        QVERIFY(s.apply(0, 2, 0.1, 10, 12.15));  // its next step would end after 1's
    }

    // A worker that claims the slowest step there could be (86400 s, the most the service takes)
    // and never steps keeps the others stepping only up to max_steps (it was for ever).
    void esyncALiarsClaimKeepsNoOneSteppingForEver() {
        EsyncState s;
        s.init(2, -1);
        s.setMostSteps(100);
        s.reset(0, 1, 0);
        s.reset(1, 1, 0);
        s.apply(1, 0, 86400, 0, 0);  // the liar: known, the slowest, never a step
        for (int k = 1; k < 100; ++k) QVERIFY(!s.apply(0, k, 0.01, 0, 0.01 * k));
        QVERIFY(s.apply(0, 100, 0.01, 0, 1.0));
    }

    // What a worker pushes of its update where the global server sums deltas: HiPS's damped 1/N,
    // or with whole_push the whole (asgd and dcasgd only: ASGD as published, w ← w + Δ).
    // A worker may name a round at most one past the furthest another named: one that named round
    // after round alone took the service to the run's last round, and nobody else was ever ready
    // again (the run hung). The first named, and a run's only worker, go as they say.
    void esyncRoundsAreNamedAtMostOneAhead() {
        EsyncState s;
        s.init(3, 0.1);
        QVERIFY(!s.mayName(0, 0, 10));
        QVERIFY(!s.mayName(0, 11, 10));
        QVERIFY(s.mayName(0, 7, 10));  // the first heard: a restarted service takes the run up there
        s.reset(0, 7, 0);
        QVERIFY(!s.mayName(0, 8, 10));  // no one else has named a round: it goes no further alone
        QVERIFY(s.mayName(0, 7, 10));
        QVERIFY(s.mayName(1, 7, 10));
        s.reset(1, 7, 0);
        QVERIFY(s.mayName(0, 8, 10));  // one past worker 1's
        s.reset(0, 8, 1);
        QVERIFY(!s.mayName(0, 9, 10));  // the others are at 7 and 0
        QVERIFY(s.mayName(2, 8, 10) && s.mayName(2, 9, 10) && !s.mayName(2, 10, 10));
        QCOMPARE(s.round(), qint64(8));
        EsyncState alone;
        alone.init(1, 0.1);
        alone.reset(0, 1, 0);
        QVERIFY(alone.mayName(0, 2, 10) && alone.mayName(0, 10, 10));
    }

    void asyncPushesAreDampedOrWhole() {
        QCOMPARE(ModeRegistry::pushShare("asgd", 0, 4), 0.25);
        QCOMPARE(ModeRegistry::pushShare("asgd", 1, 4), 1.0);
        QCOMPARE(ModeRegistry::pushShare("dcasgd", 1, 4), 1.0);
        QCOMPARE(ModeRegistry::pushShare("fedavg", 1, 4), 0.25);  // a synchronous round sums N of them
    }

    // DC-ASGD: g' = g + λ·g⊙g⊙(w_now − w_backup) with g = −Δ/η, so Δ' = Δ − (λ/η)·Δ²·(w_now − w_backup).
    void delayCompensation_data() {
        QTest::addColumn<float>("delta");
        QTest::addColumn<float>("now");
        QTest::addColumn<float>("backup");
        QTest::addColumn<float>("lambda");
        QTest::addColumn<float>("expected");
        // η = 0.5 throughout.
        QTest::newRow("no staleness: unchanged") << 0.2f << 1.0f << 1.0f << 2.0f << 0.2f;
        QTest::newRow("lambda 0: unchanged") << 0.2f << 3.0f << 1.0f << 0.0f << 0.2f;
        // g = −0.4, g' = −0.4 + 2·0.16·2 = 0.24, Δ' = −0.5·0.24 = −0.12
        QTest::newRow("model moved up") << 0.2f << 3.0f << 1.0f << 2.0f << -0.12f;
        // g = 0.4, g' = 0.4 + 2·0.16·(−2) = −0.24, Δ' = 0.12
        QTest::newRow("negative delta, model moved down") << -0.2f << -1.0f << 1.0f << 2.0f << 0.12f;
    }

    void delayCompensation() {
        QFETCH(float, delta);
        QFETCH(float, now);
        QFETCH(float, backup);
        QFETCH(float, lambda);
        QFETCH(float, expected);
        std::vector<float> d(19, delta), n(19, now), b(19, backup);  // an odd length: no lane left out
        compensateDelay(d.data(), n.data(), b.data(), d.size(), lambda, 0.5f);
        for (float v : d) QVERIFY2(std::abs(v - expected) < 1e-6f, qPrintable(QString::number(v)));
        // The same push from one of 4 workers, sent as Δ/4: λ acts on its own gradient, so the
        // result is the same compensation, a quarter of it (λ on Δ/4 itself would act as λ/4).
        std::vector<float> shared(19, delta / 4);
        compensateDelay(shared.data(), n.data(), b.data(), shared.size(), lambda, 0.5f, 0.25f);
        for (float v : shared) QVERIFY2(std::abs(v - expected / 4) < 1e-6f, qPrintable(QString::number(v)));
        // The same gradient over 5 local steps, pushed as their sum: each step compensated, 5 times
        // the one step's result (λ on the sum as one step's gradient would act as 5λ).
        std::vector<float> steps(19, 5 * delta);
        compensateDelay(steps.data(), n.data(), b.data(), steps.size(), lambda, 0.5f, 1.0f, 5.0f);
        for (float v : steps) QVERIFY2(std::abs(v - 5 * expected) < 1e-5f, qPrintable(QString::number(v)));
        // The same gradient through a settled momentum of 0.9: each step moves 10 times as far, and
        // the compensated gradient does too (λ on −delta/η as the gradient would act as 10λ).
        std::vector<float> carried(19, 10 * delta);
        compensateDelay(carried.data(), n.data(), b.data(), carried.size(), lambda, 0.5f, 1.0f, 1.0f, 0.9f);
        for (float v : carried) QVERIFY2(std::abs(v - 10 * expected) < 1e-5f, qPrintable(QString::number(v)));
    }
};

QTEST_GUILESS_MAIN(AsyncRulesTest)
#include "tst_asyncrules.moc"
