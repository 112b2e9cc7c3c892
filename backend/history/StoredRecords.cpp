#include "StoredRecords.h"

#include "RunStore.h"
#include "Vocabulary.h"

#include <QJsonArray>
#include <QMap>
#include <algorithm>
#include <tuple>

namespace hips {

// The records the charts take besides the rounds, as the history keeps them: each worker's round
// (`train`: local steps, the time split; staleness is not kept), each party's test of its own
// held-out rows (`party_eval`), each process's usage and each worker's start (its shard), and
// each node's traffic (`traffic`, from the traffic rows), in time order.
QList<StoredRecord> storedRecords(const RunStore& store, qint64 run) {
    using metric::kNode, metric::kKind, metric::kRound;
    QMap<std::tuple<int, QString, QString>, StoredRecord> records;  // (round, node, kind) → fields, t
    for (const MetricRecord& m : store.metrics(run)) {
        const QString kind = m.name.section(QLatin1Char('.'), 0, 0);
        if (kind != metric::kTrain && kind != metric::kPartyEval && kind != metric::kUsage && kind != metric::kStartup) continue;
        auto& [record, t] = records[{m.round, m.source, kind}];
        if (record.isEmpty()) record = QJsonObject{{kKind, kind}, {kNode, m.source}, {kRound, m.round}};
        record.insert(m.name.section(QLatin1Char('.'), 1), m.value);
        t = m.t;
    }
    for (const TrafficRecord& row : store.traffic(run)) {
        const QString node = row.link.section(QLatin1Char('>'), 0, 0);
        auto& [record, t] = records[{row.round, node, QString(metric::kTraffic)}];
        if (record.isEmpty()) record = QJsonObject{{kKind, metric::kTraffic}, {kNode, node}, {kRound, row.round}};
        // A node may write two records in one round (a server's last one after it has lingered,
        // with the final model down): its counters only grow, so each link keeps its largest.
        QJsonArray links = record.value(metric::kLinks).toArray();
        const QString peer = row.link.section(QLatin1Char('>'), 1);
        const QJsonObject link{{metric::kPeer, peer}, {metric::kTier, row.tier}, {metric::kSent, double(row.bytes)}};
        const auto same = std::find_if(links.begin(), links.end(), [&](const QJsonValue& l) {
            return l.toObject().value(metric::kPeer).toString() == peer && l.toObject().value(metric::kTier).toString() == row.tier;
        });
        if (same == links.end()) links.append(link);
        else if (QJsonValue(*same).toObject().value(metric::kSent).toDouble() < double(row.bytes)) *same = link;
        record.insert(metric::kLinks, links);
        t = std::max(t, row.t);
    }
    QList<StoredRecord> inOrder = records.values();
    std::stable_sort(inOrder.begin(), inOrder.end(), [](const auto& a, const auto& b) { return a.t < b.t; });
    return inOrder;
}

}  // namespace hips
