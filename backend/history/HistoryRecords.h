#pragma once
// Rows of the run history as the readers hand them out. Times are unix seconds.
#include <QCoreApplication>
#include <QJsonObject>
#include <QString>

namespace hips {

struct RunRecord {
    qint64 id = 0;
    QString name, status;  // status: running, finished, stopped, failed, interrupted
    double started = 0, ended = 0;  // ended 0 while running
    QJsonObject summary;
    QString tags, notes;  // the user's, edited in History (tags: comma-separated)
};

// Why a run stopped short of its end, as History, `hips history show` and the report say it:
// its controller's reason (a failure's or a stop's), or for a run whose controller died, that;
// empty for a run that finished or still runs.
inline QString runReason(const RunRecord& r) {
    const QString reason = r.summary.value(QStringLiteral("reason")).toString();
    if (!reason.isEmpty()) return reason;
    if (r.status == QLatin1String("interrupted"))
        return QCoreApplication::translate("RunHistory", "its controller ended before the run did (killed, or the machine stopped)");
    return {};
}

// The run's privacy guarantee in words, as `hips run`, `hips history show` and the report state
// it (summary.json's "privacy"); empty for a run without privacy.
inline QString privacyText(const QJsonObject& summary) {
    const QJsonObject p = summary.value(QStringLiteral("privacy")).toObject();
    if (p.isEmpty()) return {};
    const QString secure = p.value(QStringLiteral("secure_aggregation")).toBool()
                               ? QStringLiteral("on (threshold %1: the global server sees only the parties' sum)")
                                     .arg(p.value(QStringLiteral("secure_aggregation_threshold")).toInt())
                               : QStringLiteral("off");
    if (!p.contains(QStringLiteral("epsilon"))) return QStringLiteral("no differential privacy; secure aggregation ") + secure;
    const bool party = p.value(QStringLiteral("where")).toString() == QLatin1String("party");
    QString text = QStringLiteral(
                       "(epsilon %1, delta %2)-DP for each worker's data after %3, %4; noise multiplier %5, clip norm %6; "
                       "secure aggregation %7")
                       .arg(p.value(QStringLiteral("epsilon")).toDouble(), 0, 'f', 3)
                       .arg(p.value(QStringLiteral("delta")).toDouble())
                       .arg(p.contains(QStringLiteral("most_draws"))  // client sampling: the rounds a worker trained in
                                ? QStringLiteral("%1 rounds (at most %2 of them drawn to train)")
                                      .arg(p.value(QStringLiteral("rounds")).toInt())
                                      .arg(p.value(QStringLiteral("most_draws")).toInt())
                                : QStringLiteral("%1 rounds").arg(p.value(QStringLiteral("rounds")).toInt()))
                       .arg(party ? QStringLiteral("noised at its party server (what leaves the party)")
                                  : QStringLiteral("noised by the worker (what leaves it)"))
                       .arg(p.value(QStringLiteral("noise_multiplier")).toDouble(), 0, 'f', 4)
                       .arg(p.value(QStringLiteral("clip_norm")).toDouble())
                       .arg(secure);
    if (p.value(QStringLiteral("budget_reached")).toBool()) text += QStringLiteral("; privacy budget reached");
    return text;
}

// True when the run's id, name, status, reason, tags or notes contain `text` (any case), or
// `text` is empty: the History tab's filter and `hips history list TEXT`.
inline bool runMatches(const RunRecord& r, const QString& text) {
    if (text.isEmpty()) return true;
    const QString reason = runReason(r);
    for (const QString& field : {QString::number(r.id), r.name, r.status, reason, r.tags, r.notes})
        if (field.contains(text, Qt::CaseInsensitive)) return true;
    return false;
}

// Figures of a run computed from its metric and traffic rows, so that an interrupted run has them too.
struct RunFacts {
    int rounds = 0;  // last round the global server applied
    double bestAccuracy = -1;  // -1: never evaluated
    double finalAccuracy = -1;  // accuracy at the last evaluated round
    double bestRmse = -1;  // a regression's lowest test RMSE; -1: not a regression, or never evaluated
    double finalRmse = -1;
    double bytesAcross = 0;  // bytes sent across parties, all nodes
    bool regression() const { return bestRmse >= 0; }
    // The best and final test score as a person reads it: "0.8810", "RMSE 0.4213", or "-".
    QString bestText() const { return scoreText(bestAccuracy, bestRmse); }
    QString finalText() const { return scoreText(finalAccuracy, finalRmse); }
    static QString scoreText(double accuracy, double rmse) {
        if (rmse >= 0) return QStringLiteral("RMSE ") + QString::number(rmse, 'f', 4);
        return accuracy < 0 ? QStringLiteral("-") : QString::number(accuracy, 'f', 4);
    }
};

struct RunListEntry {
    RunRecord run;
    RunFacts facts;
};

// One role process of a run. `ended` 0 while it runs (or never started: pid 0).
struct ProcessRecord {
    QString node, role, party, host;
    QString state;  // pending, running, exited, failed, stopped, interrupted (its controller died)
    int rank = 0;
    qint64 pid = 0;
    double started = 0, ended = 0;
    int exitCode = 0;
    bool crashed = false;
    QString error;
};

struct MetricRecord {
    double t = 0;
    QString source;
    int round = -1;
    QString name;
    double value = 0;
};

// Cumulative bytes sent over one link (sender→peer) at time t.
struct TrafficRecord {
    double t = 0;
    QString link;  // "party1/worker0>party1/server0"
    QString tier;  // inside, across
    qint64 bytes = 0;
    int round = -1;  // the round the sender had finished when it counted; -1 unknown
};

struct EventRecord {
    double t = 0;
    QString level, source, message;  // level: info, warning, error
};

}  // namespace hips
