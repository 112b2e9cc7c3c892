#pragma once
// hips simulate's master worker: its evaluation of a round's model runs on a thread of its own
// while the next round trains (off the rounds' path, as deployed); its record and files once it
// is done. Deployed, that evaluation is one more thread on the master's host: on a host shared
// with workers it takes their cores while it runs, which `load` tells the clock.
#include "LocalTrainer.h"
#include "ModelBuffers.h"
#include "Topology.h"

#include <QCborMap>
#include <future>
#include <memory>
#include <optional>

namespace hips::sim {

class MasterEvaluation {
public:
    MasterEvaluation(const TrainingSettings& settings, QString outDir, double clockOrigin);

    ModelEvaluator& evaluator() { return *m_evaluator; }
    // The master's startup record: its test set's names of its labels and feature columns (empty
    // where it names none).
    QCborMap startupRecord() const;
    // Starts evaluating `model`, the model of `round` that left the global server at `at` (the
    // one before finished first).
    void start(qint64 round, double at, const ModelVersion& model);
    // The evaluation under way, once done: its eval record, the round's end it is stamped at,
    // and its files (net.meta, net.params; model.pt after the last round).
    struct Done {
        QCborMap record;
        double at = 0;
    };
    std::optional<Done> finish();
    // The share of a round `roundSeconds` long that the master spends evaluating, at most 1: the
    // last evaluation's CPU time, stretched by the `contention` of its host's cores, over it; 0
    // while no evaluation is under way.
    double load(double roundSeconds, double contention) const;

private:
    const TrainingSettings& m_settings;
    QString m_outDir;
    double m_clockOrigin = 0;
    std::unique_ptr<ModelEvaluator> m_evaluator;
    struct Measured {
        EvalStats stats;
        double cpuSeconds = 0;
    };
    struct Evaluation {
        qint64 round = 0;
        double at = 0;
        std::future<Measured> measured;
    };
    std::optional<Evaluation> m_evaluation;  // under way
    double m_cpuSeconds = 0;  // the last finished evaluation's
};

}  // namespace hips::sim
