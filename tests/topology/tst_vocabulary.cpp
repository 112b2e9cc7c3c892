// The one list of names (Vocabulary.h): the history's metric names are made of the roles' own.
#include "Vocabulary.h"

#include <QList>
#include <QString>
#include <QtTest>
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
};

QTEST_MAIN(VocabularyTest)
#include "tst_vocabulary.moc"
