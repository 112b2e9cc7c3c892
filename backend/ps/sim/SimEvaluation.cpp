#include "SimEvaluation.h"

#include "MasterWorkerRole.h"
#include "MetricsReporter.h"
#include "SimNetwork.h"
#include "Vocabulary.h"

#include <QCborArray>
#include <QDir>
#include <algorithm>
#include <stdexcept>

namespace hips::sim {

MasterEvaluation::MasterEvaluation(const TrainingSettings& settings, QString outDir, double clockOrigin)
    : m_settings(settings),
      m_outDir(std::move(outDir)),
      m_clockOrigin(clockOrigin),
      m_evaluator(std::make_unique<ModelEvaluator>(settings, QStringLiteral("cpu"))) {}

void MasterEvaluation::start(qint64 round, double at, const ModelVersion& model) {
    if (m_evaluation) throw std::logic_error("an evaluation is under way: finish() it first, and report its record");
    // (the copy of `model` holds its buffer while the evaluation reads it)
    m_evaluation = Evaluation{round, at, std::async(std::launch::async, [this, model] {
                                  const double before = threadCpuSeconds();
                                  Measured m{m_evaluator->evaluate(model.data), 0};
                                  // With one LibTorch thread its CPU time; with more, part of the work is on theirs.
                                  m.cpuSeconds = m_settings.threads <= 1 ? threadCpuSeconds() - before : m.stats.seconds;
                                  return m;
                              })};
}

std::optional<MasterEvaluation::Done> MasterEvaluation::finish() {
    if (!m_evaluation) return std::nullopt;
    const qint64 round = m_evaluation->round;
    const auto [stats, cpuSeconds] = m_evaluation->measured.get();
    m_cpuSeconds = cpuSeconds;
    Done done{scoreFields(stats), m_evaluation->at};
    m_evaluation.reset();
    done.record.insert(metric::kRound, round);
    done.record.insert(QStringLiteral("eval_s"), stats.seconds);
    done.record.insert(QStringLiteral("skipped"), QCborArray());
    done.record.insert(QStringLiteral("skipped_rounds"), 0);
    const bool final = round >= m_settings.rounds;
    if (final && !stats.confusion.empty() && stats.confusion.size() <= 100 * 100) {
        QCborArray confusion;
        for (int64_t c : stats.confusion) confusion.append(qint64(c));
        done.record.insert(metric::kConfusion, confusion);
    }
    writeModelMeta(m_outDir, round, stats, m_settings, m_clockOrigin);
    m_evaluator->saveParameters(QDir(m_outDir).filePath(QStringLiteral("net.params")));
    if (final) m_evaluator->exportModel(QDir(m_outDir).filePath(QStringLiteral("model.pt")));
    return done;
}

double MasterEvaluation::load(double roundSeconds, double contention) const {
    if (!m_evaluation || roundSeconds <= 0) return 0;
    return std::min(1.0, m_cpuSeconds * contention / roundSeconds);
}

QCborMap MasterEvaluation::startupRecord() const {
    QCborMap record;
    insertDataNames(record, m_evaluator->classNames(), m_evaluator->featureNames());
    return record;
}

}  // namespace hips::sim
