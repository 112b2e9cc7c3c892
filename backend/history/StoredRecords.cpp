#include "StoredRecords.h"

#include "RunStore.h"
#include "Vocabulary.h"

#include <QHash>
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
    // Each record's links are gathered apart and put into it once (taken out, searched and put
    // back for each row, a global server's thousands of links took minutes).
    QMap<std::tuple<int, QString, QString>, std::pair<QHash<QString, qsizetype>, QList<QJsonObject>>> linksOf;
    for (const TrafficRecord& row : store.traffic(run)) {
        const QString node = row.link.section(QLatin1Char('>'), 0, 0);
        const std::tuple<int, QString, QString> key{row.round, node, QString(metric::kTraffic)};
        auto& [record, t] = records[key];
        if (record.isEmpty()) record = QJsonObject{{kKind, metric::kTraffic}, {kNode, node}, {kRound, row.round}};
        t = std::max(t, row.t);
        // A node may write two records in one round (a server's last one after it has lingered,
        // with the final model down): its counters only grow, so each link keeps its largest.
        auto& [at, links] = linksOf[key];
        const QString peer = row.link.section(QLatin1Char('>'), 1);
        const QJsonObject link{{metric::kPeer, peer}, {metric::kTier, row.tier}, {metric::kSent, double(row.bytes)}};
        if (const auto same = at.constFind(peer + QLatin1Char('\n') + row.tier); same == at.constEnd()) {
            at.insert(peer + QLatin1Char('\n') + row.tier, links.size());
            links.append(link);
        } else if (links[*same].value(metric::kSent).toDouble() < double(row.bytes)) {
            links[*same] = link;
        }
    }
    for (auto it = linksOf.cbegin(); it != linksOf.cend(); ++it) {
        QJsonArray links;
        for (const QJsonObject& link : it->second) links.append(link);
        records[it.key()].record.insert(metric::kLinks, links);
    }
    QList<StoredRecord> inOrder = records.values();
    std::stable_sort(inOrder.begin(), inOrder.end(), [](const auto& a, const auto& b) { return a.t < b.t; });
    return inOrder;
}

}  // namespace hips
