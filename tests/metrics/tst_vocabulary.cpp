// The one list of names (Vocabulary.h): the history's metric names are made of the roles' own;
// and the records read into types (MetricRecords.h) as the charts and the progress table read them.
#include "MetricRecords.h"
#include "RoleLog.h"
#include "Vocabulary.h"

#include <QJsonArray>
#include <QList>
#include <QString>
#include <QtTest>
#include <cmath>
#include <tuple>

using namespace hips;

class VocabularyTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // The history's metric names are the roles' kinds and fields, joined as the controller joins
    // them (kind + '.' + field): a renamed field cannot leave a reader behind.
    void storedMetricNamesAreKindDotField() {
        const QList<std::tuple<QLatin1String, QLatin1String, QLatin1String>> names{
            {metric::kStoredTrainLoss, metric::kTrain, metric::kLoss},
            {metric::kStoredTrainSamples, metric::kTrain, metric::kSamples},
            {metric::kStoredComputeSeconds, metric::kTrain, metric::kComputeSeconds},
            {metric::kStoredCommSeconds, metric::kTrain, metric::kCommSeconds},
            {metric::kStoredTestAccuracy, metric::kEval, metric::kTestAccuracy},
            {metric::kStoredTestLoss, metric::kEval, metric::kTestLoss},
            {metric::kStoredApplySeconds, metric::kAggregate, metric::kApplySeconds},
            {metric::kStoredRoundSeconds, metric::kAggregate, metric::kRoundSeconds}};
        for (const auto& [stored, kind, field] : names) QCOMPARE(QString(stored), QString(kind) + '.' + field);
    }

    // A worker's round as a role reports it; its wait is within its communication time (a
    // damaged record cannot draw a bar longer than the round), a null loss is a NaN, never a 0.
    void aTrainRecordReadsItsFields() {
        const auto t = metric::TrainRecord::from(QJsonObject{{"kind", "train"},
                                                             {"node", "party1/worker0"},
                                                             {"round", 3},
                                                             {"loss", QJsonValue::Null},
                                                             {"samples", 3200},
                                                             {"compute_s", 0.5},
                                                             {"comm_s", 0.25},
                                                             {"wait_s", 9.0},
                                                             {"local_steps", 12}});
        QVERIFY(t);
        QCOMPARE(t->node, QString("party1/worker0"));
        QCOMPARE(t->round, 3);
        QVERIFY(std::isnan(t->loss));
        QCOMPARE(t->samples, qint64(3200));
        QCOMPARE(t->computeSeconds, 0.5);
        QCOMPARE(t->waitSeconds, 0.25);
        QCOMPARE(t->localSteps.value_or(-1), 12.0);
        QCOMPARE(metric::TrainRecord::from(QJsonObject{{"kind", "train"}, {"comm_s", 1}, {"wait_s", -2}})->waitSeconds, 0.0);
        QVERIFY(!metric::TrainRecord::from(QJsonObject{{"kind", "train"}})->localSteps);
        QVERIFY(!metric::TrainRecord::from(QJsonObject{{"kind", "eval"}, {"round", 3}}));
    }

    // The master's score or a party's: an accuracy, or a regression's RMSE (lower is better).
    void aScoreIsAnAccuracyOrAnRmse() {
        const auto acc = metric::ScoreRecord::from(QJsonObject{{"kind", "eval"}, {"round", 2}, {"test_acc", 0.81}, {"test_loss", 0.5}});
        QVERIFY(acc && !acc->rmse && acc->kind == metric::kEval);
        QCOMPARE(acc->score, 0.81);
        QCOMPARE(acc->loss.value_or(-1), 0.5);
        const auto rmse =
            metric::ScoreRecord::from(QJsonObject{{"kind", "party_eval"}, {"node", "party2/server0"}, {"round", 4}, {"test_rmse", 0.07}});
        QVERIFY(rmse && rmse->rmse && rmse->kind == metric::kPartyEval);
        QCOMPARE(rmse->score, 0.07);
        QVERIFY(!rmse->loss);
        QVERIFY(!metric::ScoreRecord::from(QJsonObject{{"kind", "train"}, {"test_acc", 0.9}}));
        // A diverged model's (null): not a number, never a perfect 0.
        const auto diverged = metric::ScoreRecord::from(
            QJsonObject{{"kind", "party_eval"}, {"round", 5}, {"test_rmse", QJsonValue::Null}, {"test_loss", QJsonValue::Null}});
        QVERIFY(diverged && diverged->rmse && std::isnan(diverged->score) && diverged->loss && std::isnan(*diverged->loss));
    }

    // A node's links by tier; a negative or non-numeric byte count reads as 0, not as a wrap.
    void trafficIsSummedByTier() {
        const QJsonArray links{QJsonObject{{"peer", "party1/worker0"}, {"tier", "inside"}, {"sent", 1000}, {"received", 10}},
                               QJsonObject{{"peer", "central/global_server0"}, {"tier", "across"}, {"sent", 300}, {"received", 5}},
                               QJsonObject{{"peer", "x"}, {"tier", "across"}, {"sent", -7}, {"received", "many"}}};
        const auto t = metric::TrafficRecord::from(QJsonObject{{"kind", "traffic"}, {"node", "party1/server0"}, {"links", links}});
        QVERIFY(t);
        QCOMPARE(t->links.size(), 3);
        QCOMPARE(t->sent(false), quint64(1000));
        QCOMPARE(t->sent(true), quint64(300));
        QCOMPARE(t->links[2].received, quint64(0));
        QVERIFY(!metric::TrafficRecord::from(QJsonObject{{"kind", "aggregate"}, {"links", links}}));
        const auto push = metric::AsyncPushRecord::from(QJsonObject{{"kind", "async_push"}, {"staleness", 2}});
        QVERIFY(push);
        QCOMPARE(push->origin, QString("?"));
        QCOMPARE(push->staleness, 2.0);
    }

    // What a role's log shows of its records: a line each for its start, device and rounds, in
    // words and with the numbers; nothing for the per-link counters and each asynchronous push.
    void recordsReadAsLogLines() {
        QCOMPARE(metric::roleLogLine(
                     {{"kind", "train"}, {"round", 3}, {"loss", 0.41234}, {"samples", 2560}, {"compute_s", 0.5}, {"comm_s", 12.34}}),
                 QString("round 3: training loss 0.4123, 2560 samples, computing 0.50 s, communicating 12.3 s"));
        QCOMPARE(metric::roleLogLine({{"kind", "eval"}, {"round", 4}, {"test_acc", 0.8512}, {"test_loss", 0.4}}),
                 QString("round 4: test accuracy 0.8512, test loss 0.4000"));
        QCOMPARE(metric::roleLogLine({{"kind", "party_eval"}, {"round", 4}, {"test_rmse", 1.5}}),
                 QString("round 4: party test RMSE 1.5000"));
        QCOMPARE(metric::roleLogLine({{"kind", "aggregate"}, {"round", 7}, {"apply_s", 0.01}, {"round_s", 0.7}}),
                 QString("round 7 aggregated in 0.70 s (applied in 0.01 s)"));
        QCOMPARE(metric::roleLogLine({{"kind", "startup"}, {"data_s", 0.4}, {"join_s", 0.1}, {"class_counts", QJsonArray{1, 2}}}),
                 QString("started: data 0.40 s, join 0.10 s"));
        QCOMPARE(metric::roleLogLine({{"kind", "device"}, {"device", "cuda:0"}, {"torch", "LibTorch 2.11 CUDA"}, {"gpu", "H100"}}),
                 QString("training on cuda:0 (LibTorch 2.11 CUDA): H100"));
        QVERIFY(metric::roleLogLine({{"kind", "train"}, {"round", 1}}).contains("training loss nan"));  // a missing loss is no 0
        for (const char* quiet : {"traffic", "async_push", "membership", "no such kind"})
            QCOMPARE(metric::roleLogLine({{"kind", quiet}, {"round", 1}}), QString());
    }
};

QTEST_MAIN(VocabularyTest)
#include "tst_vocabulary.moc"
