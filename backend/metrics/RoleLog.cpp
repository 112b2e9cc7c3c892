#include "RoleLog.h"

#include "MetricRecords.h"

#include <QStringList>

namespace hips::metric {

namespace {

QString seconds(double s) {
    return QString::number(s, 'f', s < 10 ? 2 : 1) + QStringLiteral(" s");
}

QString scoreLine(const ScoreRecord& s) {
    QString line = QStringLiteral("round %1: %2%3 %4")
                       .arg(s.round)
                       .arg(s.kind == kPartyEval ? QStringLiteral("party ") : QString(),
                            s.rmse ? QStringLiteral("test RMSE") : QStringLiteral("test accuracy"), QString::number(s.score, 'f', 4));
    if (s.loss) line += QStringLiteral(", test loss %1").arg(*s.loss, 0, 'f', 4);
    return line;
}

// "started: data 0.41 s, join 0.10 s": a role's start-up phases, each field ending in _s.
QString startupLine(const QJsonObject& r) {
    QStringList phases;
    for (auto it = r.begin(); it != r.end(); ++it)
        if (it.key().endsWith(QLatin1String("_s")) && it->isDouble()) phases << it.key().chopped(2) + ' ' + seconds(it->toDouble());
    return QStringLiteral("started: ") + phases.join(QStringLiteral(", "));
}

}  // namespace

QString roleLogLine(const QJsonObject& r) {
    if (const auto t = TrainRecord::from(r))
        return QStringLiteral("round %1: training loss %2, %3 samples, computing %4, communicating %5")
            .arg(t->round)
            .arg(t->loss, 0, 'f', 4)
            .arg(t->samples)
            .arg(seconds(t->computeSeconds), seconds(t->commSeconds));
    if (const auto s = ScoreRecord::from(r)) return scoreLine(*s);
    const QString kind = r.value(kKind).toString();
    if (kind == kAggregate)
        return QStringLiteral("round %1 aggregated in %2 (applied in %3)")
            .arg(r.value(kRound).toInt(-1))
            .arg(seconds(r.value(kRoundSeconds).toDouble()), seconds(r.value(kApplySeconds).toDouble()));
    if (kind == kStartup) return startupLine(r);
    if (kind == kDevice) {
        const QString gpu = r.value(QStringLiteral("gpu")).toString();
        return QStringLiteral("training on %1 (%2)%3")
            .arg(r.value(QStringLiteral("device")).toString(), r.value(QStringLiteral("torch")).toString(),
                 gpu.isEmpty() ? QString() : QStringLiteral(": ") + gpu);
    }
    return {};
}

}  // namespace hips::metric
