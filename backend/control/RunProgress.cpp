#include "RunProgress.h"

#include <QJsonArray>
#include <cmath>

namespace hips {

QList<RoundRow> RunProgress::ingest(const QJsonObject& r, double elapsed) {
    const QString kind = r.value("kind").toString();
    const int round = r.value("round").toInt(-1);
    if (kind == QLatin1String("traffic")) {
        Sent s;
        for (const QJsonValue& v : r.value("links").toArray()) {
            const QJsonObject link = v.toObject();
            const auto bytes = quint64(link.value("sent").toDouble());
            (link.value("tier").toString() == QLatin1String("across") ? s.across : s.inside) += bytes;
        }
        m_sent[r.value("node").toString()] = s;
    } else if (kind == QLatin1String("train") && round >= m_nextRound) {
        Pending& p = m_pending[round];
        ++p.trainReports;
        p.lossSum += r.value("loss").toDouble();
        p.computeSum += r.value("compute_s").toDouble();
        m_totalSamples += r.value("samples").toInteger();
    } else if (kind == QLatin1String("aggregate") && round >= m_nextRound) {
        m_pending[round].aggregated = true;
    } else if (kind == QLatin1String("eval") && round >= m_nextRound) {
        Pending& p = m_pending[round];
        p.evaluated = true;
        p.accuracy = r.value("test_acc").toDouble();
        p.testLoss = r.value("test_loss").toDouble();
        if (std::isnan(m_best) || p.accuracy > m_best) m_best = p.accuracy;
    }
    return drain(elapsed);
}

QList<RoundRow> RunProgress::drain(double elapsed) {
    QList<RoundRow> done;
    while (m_pending.contains(m_nextRound)) {
        const Pending& p = m_pending[m_nextRound];
        if (!p.aggregated || p.trainReports < m_workers || (isEvalRound(m_nextRound) && !p.evaluated)) break;
        RoundRow row;
        row.round = m_nextRound;
        row.testAccuracy = p.accuracy;
        row.testLoss = p.testLoss;
        row.trainLoss = p.trainReports ? p.lossSum / p.trainReports : 0;
        row.computeSeconds = p.computeSum;
        row.elapsed = elapsed;
        row.samplesPerSecond = elapsed > 0 ? double(m_totalSamples) / elapsed : 0;
        row.bytesInside = bytesInside();
        row.bytesAcross = bytesAcross();
        m_pending.remove(m_nextRound++);
        m_rows.append(row);
        done.append(row);
    }
    return done;
}

quint64 RunProgress::bytesInside() const {
    quint64 n = 0;
    for (const Sent& s : m_sent) n += s.inside;
    return n;
}

quint64 RunProgress::bytesAcross() const {
    quint64 n = 0;
    for (const Sent& s : m_sent) n += s.across;
    return n;
}

}  // namespace hips
