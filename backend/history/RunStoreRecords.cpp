// A role's metric record, as the controller receives it, into the history's rows.
#include "RunStore.h"

#include "Vocabulary.h"

#include <QJsonArray>
#include <cmath>

namespace hips {

// "trains on cuda:0 (NVIDIA H100 80GB HBM3) with LibTorch 2.11.0 (CUDA 13.0)".
QString describeDeviceRecord(const QJsonObject& r) {
    const QString gpu = r.value(QStringLiteral("gpu")).toString();
    return QStringLiteral("runs on %1%2 with %3")
        .arg(r.value(QStringLiteral("device")).toString(), gpu.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(gpu),
             r.value(QStringLiteral("torch")).toString());
}

// What a worker trains on, as it reported before round 1: counts only, never contents.
static QString describeDataRecord(const QJsonArray& classCounts) {
    qint64 total = 0;
    QStringList counts;
    for (const QJsonValue& c : classCounts) {
        total += c.toInteger();
        counts << QString::number(c.toInteger());
    }
    return QStringLiteral("trains on %1 samples; by class: %2").arg(total).arg(counts.join(QStringLiteral(", ")));
}

// The final model's accuracy on each class, from its confusion matrix (row = true class):
// "class 0: 0.912 (912 of 1000), class 1: …".
static QString describeConfusion(const QJsonArray& matrix) {
    const auto classes = qsizetype(std::lround(std::sqrt(double(matrix.size()))));
    if (classes * classes != matrix.size() || classes == 0) return {};
    QStringList parts;
    for (qsizetype c = 0; c < classes; ++c) {
        qint64 total = 0;
        for (qsizetype p = 0; p < classes; ++p) total += matrix[c * classes + p].toInteger();
        const qint64 right = matrix[c * classes + c].toInteger();
        parts << QStringLiteral("class %1: %2 (%3 of %4)")
                     .arg(c)
                     .arg(total ? double(right) / double(total) : 0.0, 0, 'f', 3)
                     .arg(right)
                     .arg(total);
    }
    return QStringLiteral("per-class accuracy of the final model: ") + parts.join(QStringLiteral(", "));
}

void RunStore::appendRecord(qint64 run, const QJsonObject& r) {
    const QString kind = r.value("kind").toString();
    const QString node = r.value("node").toString();
    const double t = r.value("t").toDouble();
    const int round = r.value("round").toInt(-1);
    if (kind == metric::kTraffic) {
        for (const QJsonValue& v : r.value("links").toArray()) {
            const QJsonObject link = v.toObject();
            // A count of bytes, exact in a double (beyond 2^53, or negative, it is no count: converting it was undefined)
            const double sent = link.value("sent").toDouble(-1);
            if (!(sent >= 0 && sent <= 9007199254740992.0)) continue;
            appendTraffic(run,
                          TrafficRecord{t, node + '>' + link.value("peer").toString(), link.value("tier").toString(), qint64(sent), round});
        }
        return;
    }
    if (kind == metric::kSample) {  // client sampling: who trained in the round, one line of the run's events
        QStringList workers;
        for (const QJsonValue& w : r.value("workers").toArray()) workers << w.toString();
        appendEvent(run, t, QStringLiteral("sample"), node,
                    QStringLiteral("round %1 draws %2").arg(round).arg(workers.join(QStringLiteral(", "))));
        return;
    }
    if (kind == metric::kDevice) {  // which LibTorch and GPU each trainer saw: one line of the run's events
        appendEvent(run, t, QStringLiteral("device"), node, describeDeviceRecord(r));
        return;
    }
    if (kind == metric::kEval && r.value(metric::kConfusion).isArray())
        if (const QString text = describeConfusion(r.value(metric::kConfusion).toArray()); !text.isEmpty())
            appendEvent(run, t, QStringLiteral("classes"), node, text);
    if (kind == metric::kRobust && r.value(QStringLiteral("short_round")).isString())  // the model was left as it was
        appendEvent(run, t, QStringLiteral("warning"), node,
                    QStringLiteral("round %1: %2").arg(round).arg(r.value(QStringLiteral("short_round")).toString()));
    if (kind == metric::kStartup && r.value(metric::kClassCounts).isArray())
        appendEvent(run, t, QStringLiteral("data"), node, describeDataRecord(r.value(metric::kClassCounts).toArray()));
    else if (kind == metric::kStartup && r.contains(metric::kSamples))  // a regression's worker: targets, no classes
        appendEvent(run, t, QStringLiteral("data"), node,
                    QStringLiteral("trains on %1 samples").arg(r.value(metric::kSamples).toInteger()));
    if (kind != metric::kTrain && kind != metric::kAggregate && kind != metric::kEval && kind != metric::kStartup &&
        kind != metric::kRobust && kind != metric::kPartyEval && kind != metric::kUsage)
        return;
    for (auto it = r.begin(); it != r.end(); ++it)
        if (it->isDouble() && it.key() != QLatin1String("t") && it.key() != QLatin1String("round"))
            appendMetric(run, t, node, round, kind + '.' + it.key(), it->toDouble());
}

}  // namespace hips
