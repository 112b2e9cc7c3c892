// The folding of the metric stream into per-round rows (RunProgress): a round is a row once it
// trained, was aggregated and (on an evaluation round) evaluated, in order, whatever died or was
// skipped on the way.
#include "RunProgress.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QtTest>
#include <cmath>

using namespace hips;

namespace {

// A metric record as a role reports it (node "n").
QJsonObject rec(const char* kind, int round, QJsonObject extra = {}) {
    extra["kind"] = kind;
    extra["round"] = round;
    extra["node"] = "n";
    return extra;
}

}  // namespace

class RunProgressTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // At the end of a run, rounds that trained but were never evaluated become rows too (without
    // accuracy); a round that did not finish training does not.
    void progressFinishEmitsTrainedRoundsWithoutTheirEvaluation() {
        RunProgress p(1, 10, 1);  // 1 worker, 10 rounds, eval every round
        QCOMPARE(p.ingest(rec("train", 1, {{"loss", 1.0}, {"samples", 8}}), 1.0).size(), 0);
        QCOMPARE(p.ingest(rec("aggregate", 1), 1.1).size(), 0);
        QCOMPARE(p.ingest(rec("eval", 1, {{"test_acc", 0.5}}), 1.2).size(), 1);
        for (int round : {2, 3}) {
            QCOMPARE(p.ingest(rec("train", round, {{"loss", 0.5}, {"samples", 8}}), round).size(), 0);
            QCOMPARE(p.ingest(rec("aggregate", round), round + 0.1).size(), 0);  // waits for its evaluation
        }
        QCOMPARE(p.ingest(rec("train", 4, {{"loss", 0.4}, {"samples", 8}}), 4.0).size(), 0);  // not applied
        const QList<RoundRow> rest = p.finish();
        QCOMPARE(rest.size(), 2);
        QCOMPARE(rest[0].round, 2);
        QCOMPARE(rest[1].round, 3);
        QVERIFY(std::isnan(rest[1].testAccuracy));
        QCOMPARE(rest[1].trainLoss, 0.5);
        QCOMPARE(p.rowCount(), 3);
        QCOMPARE(p.finalScore(), 0.5);  // (round 1's: those after it have none)
        QVERIFY(p.finish().isEmpty());
    }

    // A resume's checkpoint round shown without its score (its evaluation was not among the kept
    // records) is evaluated again by the resumed master: its score counts for the best, as the
    // history's does (summary.json's best was another round's).
    void aShownRoundsLateScoreCountsForTheBest() {
        RunProgress p(1, 10, 1);
        p.ingest(rec("train", 1, {{"loss", 1.0}, {"samples", 8}}), 1.0);
        p.ingest(rec("aggregate", 1), 1.1);
        QCOMPARE(p.ingest(rec("eval", 1, {{"test_acc", 0.7}}), 1.2).size(), 1);
        p.ingest(rec("train", 2, {{"loss", 1.0}, {"samples", 8}}), 2.0);
        p.ingest(rec("aggregate", 2), 2.1);
        QCOMPARE(p.finish().size(), 1);  // (round 2, the checkpoint's, without its evaluation)
        QVERIFY(p.ingest(rec("eval", 2, {{"test_acc", 0.8}}), 3.0).isEmpty());
        QCOMPARE(p.bestAccuracy(), 0.8);
        QVERIFY(p.ingest(rec("eval", 1, {{"test_acc", 0.6}}), 3.1).isEmpty());
        QCOMPARE(p.bestAccuracy(), 0.8);
    }

    // A record of a round past the run's (a stranger's, a damaged history's) is no round of it:
    // an aggregate of round 2·10⁹ closed every round before it, one by one, until memory ran out.
    void aRoundPastTheRunsIsIgnored() {
        RunProgress p(1, 3, 1);
        QVERIFY(p.ingest(rec("aggregate", 2000000000), 1.0).isEmpty());
        QVERIFY(p.ingest(rec("train", 4, {{"loss", 1.0}, {"samples", 8}}), 1.0).isEmpty());
        QVERIFY(p.ingest(rec("train", 1, {{"loss", 1.0}, {"samples", 8}}), 1.0).isEmpty());
        QVERIFY(p.ingest(rec("aggregate", 1), 1.1).isEmpty());  // (round 1 still waits for its evaluation)
        QCOMPARE(p.ingest(rec("eval", 1, {{"test_acc", 0.5}}), 1.2).size(), 1);
        QVERIFY(p.finish().isEmpty());  // (rounds 2 and 3 never came; nothing past them counts)
    }

    // A worker whose loss is not a number (a diverged run: JSON writes it as null) makes the
    // round's loss NaN, shown as nan and left out of the charts, never a perfect 0.
    void progressShowsADivergedLossAsNotANumber() {
        RunProgress p(2, 3, 2);  // 2 workers, 3 rounds, eval every 2: round 1 is complete once trained
        QVERIFY(p.ingest(rec("aggregate", 1), 1.0).isEmpty());
        QVERIFY(p.ingest(rec("train", 1, {{"loss", 1.0}, {"samples", 10}}), 1.5).isEmpty());
        const QList<RoundRow> rows = p.ingest(rec("train", 1, {{"loss", QJsonValue::Null}, {"samples", 10}}), 2.0);
        QCOMPARE(rows.size(), 1);
        QVERIFY2(std::isnan(rows[0].trainLoss), qPrintable(QString::number(rows[0].trainLoss)));
    }

    // A diverged model's evaluation: its test loss (and a regression's RMSE) come as null, shown as
    // not a number, never a perfect 0.
    void progressShowsADivergedEvaluationAsNotANumber() {
        RunProgress p(1, 1, 1);
        QVERIFY(p.ingest(rec("aggregate", 1), 1.0).isEmpty());
        QVERIFY(p.ingest(rec("train", 1, {{"loss", 1.0}, {"samples", 10}}), 1.5).isEmpty());
        const QList<RoundRow> rows = p.ingest(rec("eval", 1, {{"test_loss", QJsonValue::Null}, {"test_rmse", QJsonValue::Null}}), 2.0);
        QCOMPARE(rows.size(), 1);
        QVERIFY2(std::isnan(rows[0].testLoss), qPrintable(QString::number(rows[0].testLoss)));
        QVERIFY2(std::isnan(rows[0].testRmse) && std::isnan(rows[0].testAccuracy), qPrintable(QString::number(rows[0].testRmse)));
        // Replayed from the history, which keeps numbers only: the evaluation has neither score.
        RunProgress replayed(1, 1, 1);
        QVERIFY(replayed.ingest(rec("aggregate", 1), 1.0).isEmpty());
        QVERIFY(replayed.ingest(rec("train", 1, {{"loss", 1.0}, {"samples", 10}}), 1.5).isEmpty());
        const QList<RoundRow> again = replayed.ingest(rec("eval", 1, {{"eval_s", 0.5}}), 2.0);
        QCOMPARE(again.size(), 1);
        QVERIFY2(std::isnan(again[0].testScore()), qPrintable(QString::number(again[0].testScore())));
    }

    void progressEmitsRoundsInOrderWhenComplete() {
        RunProgress p(2, 3, 2);  // 2 workers, 3 rounds, eval every 2 (and the last)
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
        p.ingest(QJsonObject{{"kind", "traffic"}, {"node", "a"}, {"links", QJsonArray{QJsonObject{{"tier", "across"}, {"sent", 500}}}}},
                 4.5);
        rows = p.ingest(rec("eval", 2, {{"test_acc", 0.75}}), 9.0);
        QCOMPARE(rows.size(), 1);
        QCOMPARE(rows[0].testAccuracy, 0.75);
        QCOMPARE(rows[0].elapsed, 4.0);  // the time it finished training, not when eval arrived
        QCOMPARE(p.bytesAcross(), quint64(500));
        QCOMPARE(p.bestAccuracy(), 0.75);
    }

    // A worker that died never reports its round: the round is trained once the next one is
    // aggregated (every report of a round precedes the next round's close).
    void progressDoesNotWaitForAWorkerThatDied() {
        RunProgress p(2, 3, 1);  // 2 workers, 3 rounds, every round evaluated
        p.ingest(rec("aggregate", 1), 1.0);
        p.ingest(rec("train", 1, {{"loss", 1.0}, {"samples", 10}}), 1.0);  // the other worker is gone
        QVERIFY(p.ingest(rec("eval", 1, {{"test_acc", 0.5}}), 1.2).isEmpty());
        const QList<RoundRow> rows = p.ingest(rec("aggregate", 2), 2.0);
        QCOMPARE(rows.size(), 1);
        QCOMPARE(rows[0].round, 1);
        QCOMPARE(rows[0].testAccuracy, 0.5);
        QCOMPARE(rows[0].trainLoss, 1.0);
    }

    // An evaluator that fell behind evaluates only the newest snapshot and names the rounds it
    // skipped: those rows complete without an accuracy, in order, when the newer one arrives.
    void progressCompletesRoundsTheEvaluatorSkipped() {
        RunProgress p(1, 3, 1);  // 1 worker, 3 rounds, every round evaluated
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

QTEST_GUILESS_MAIN(RunProgressTest)
#include "tst_runprogress.moc"
