#include "ShardSummary.h"

#include "LocalTrainer.h"
#include "MetricsReporter.h"
#include "Vocabulary.h"

#include <QCborArray>

namespace hips {

QCborMap describeShards(const DataPlan& plan, const std::vector<std::unique_ptr<LocalTrainer>>& trainers, bool regression) {
    qint64 samples = 0;
    std::vector<int64_t> classes;
    QCborMap parts;
    for (size_t k = 0; k < trainers.size() && k < size_t(plan.parts.size()); ++k) {
        const LocalTrainer& trainer = *trainers[k];
        samples += trainer.shardSize();
        const std::vector<int64_t> counts = trainer.classCounts();
        classes.resize(std::max(classes.size(), counts.size()));
        for (size_t c = 0; c < counts.size(); ++c) classes[c] += counts[c];
        // Shard indices count within one source: a host's own data starts again at 0.
        const QString index = QString::number(plan.parts[qsizetype(k)].first);
        parts.insert(plan.owner.isEmpty() ? index : plan.owner + ' ' + index, qint64(trainer.shardSize()));
    }
    QCborMap fields{{metric::kSamples, samples}, {metric::kDataParts, parts}};
    if (!regression) {  // a regression's targets have no classes
        QCborArray counts;
        for (int64_t c : classes) counts.append(qint64(c));
        fields.insert(metric::kClassCounts, counts);
    }
    if (!trainers.empty()) insertDataNames(fields, trainers.front()->classNames(), trainers.front()->featureNames());
    if (!plan.owner.isEmpty() && !trainers.empty()) {  // (LabelSpaceCheck: every host that reads it must read the same)
        fields.insert(metric::kDataSource, plan.owner);
        fields.insert(metric::kSourceDigest, trainers.front()->sourceDigest());
    }
    return fields;
}

}  // namespace hips
