// A run's outcome in figures: what summary.json, the history and `hips run`'s last line say.
#include "RunController.h"

#include <cmath>

namespace hips {

void RunSummary::takeFigures(const RunProgress& progress, bool isRegression) {
    const QList<RoundRow>& rows = progress.rows();
    rounds = progress.aggregatedRounds();
    for (auto it = rows.rbegin(); it != rows.rend(); ++it)
        if (!std::isnan(it->testScore())) {
            finalAccuracy = it->testScore();
            break;
        }
    regression = isRegression;
    const double best = regression ? progress.bestRmse() : progress.bestAccuracy();  // a regression's best is its lowest
    evaluated = !std::isnan(best);
    bestAccuracy = evaluated ? best : 0;
    bytesInside = progress.bytesInside();
    bytesAcross = progress.bytesAcross();
    samples = progress.totalSamples();
}

QJsonObject RunSummary::toJson() const {
    QJsonObject o{{"ok", ok}, {"stopped", stopped}, {"reason", reason}, {"run_dir", runDir}, {"rounds", rounds},
                  {"seconds", seconds}, {"bytes_inside", double(bytesInside)}, {"bytes_across", double(bytesAcross)},
                  {"samples", double(samples)}};
    o.insert(regression ? "final_test_rmse" : "final_test_acc", finalAccuracy);
    o.insert(regression ? "best_test_rmse" : "best_test_acc", bestAccuracy);
    return o;
}

}  // namespace hips
