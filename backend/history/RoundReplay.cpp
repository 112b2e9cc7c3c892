#include "RoundReplay.h"

#include "Vocabulary.h"

#include <QHash>
#include <QJsonArray>
#include <QSet>
#include <algorithm>

namespace hips {

namespace {

// The stored rows back as the records roles reported: metric rows of one report share their
// time, source, round and kind ("train.loss", "train.samples" → one "train" record); traffic
// rows of one report share their time and sender.
struct Replayed {
    double t = 0;
    QJsonObject record;
};

QString keyOf(double t, const QString& node, const QString& kind, int round) {
    return QStringLiteral("%1|%2|%3|%4").arg(t, 0, 'g', 17).arg(node, kind).arg(round);
}

QList<Replayed> metricRecords(const QList<MetricRecord>& metrics) {
    QList<Replayed> out;
    QHash<QString, qsizetype> index;
    for (const MetricRecord& m : metrics) {
        const qsizetype dot = m.name.indexOf('.');
        if (dot <= 0) continue;
        const QString kind = m.name.left(dot), key = keyOf(m.t, m.source, kind, m.round);
        auto it = index.find(key);
        if (it == index.end()) {
            it = index.insert(key, out.size());
            out.append({m.t, QJsonObject{{"kind", kind}, {"node", m.source}, {metric::kRound, m.round}}});
        }
        out[*it].record.insert(m.name.mid(dot + 1), m.value);
    }
    return out;
}

// (Each record's links are gathered apart and put into it once: taken out of the record, searched
// and put back for each row, a global server's thousands of links took minutes.)
QList<Replayed> trafficRecords(const QList<TrafficRecord>& traffic) {
    struct Links {
        QHash<QString, qsizetype> at;  // by peer
        QList<QJsonObject> links;
    };
    QList<Replayed> out;
    QList<Links> linksOf;  // out's, by index
    QHash<QString, qsizetype> index;
    for (const TrafficRecord& r : traffic) {
        const QString sender = r.link.section('>', 0, 0), key = keyOf(r.t, sender, QString(), r.round);
        auto it = index.find(key);
        if (it == index.end()) {
            it = index.insert(key, out.size());
            out.append({r.t, QJsonObject{{"kind", QString(metric::kTraffic)}, {"node", sender}, {metric::kRound, r.round}}});
            linksOf.append(Links{});
        }
        // A node may report twice in the same millisecond (a party server's last model and its
        // end): counters are cumulative, so a link seen again keeps its larger count, never both.
        Links& l = linksOf[*it];
        const QString peer = r.link.section('>', 1);
        const QJsonObject link{{"peer", peer}, {"sent", double(r.bytes)}, {"tier", r.tier}};
        if (const auto same = l.at.constFind(peer); same == l.at.constEnd()) {
            l.at.insert(peer, l.links.size());
            l.links.append(link);
        } else if (l.links[*same].value("sent").toDouble() < double(r.bytes)) {
            l.links[*same] = link;
        }
    }
    for (qsizetype i = 0; i < out.size(); ++i) {
        QJsonArray links;
        for (const QJsonObject& link : linksOf[i].links) links.append(link);
        out[i].record["links"] = links;
    }
    return out;
}

}  // namespace

StoredRounds replayRounds(const RunClock& clock, const QList<MetricRecord>& metrics, const QList<TrafficRecord>& traffic,
                          int trainReportsPerRound, int rounds, int evalEvery) {
    if (trainReportsPerRound <= 0) {  // no topology to ask: every node that reported a round of training
        QSet<QString> trainers;
        for (const MetricRecord& m : metrics)
            if (m.name == metric::kStoredTrainSamples) trainers.insert(m.source);
        trainReportsPerRound = int(trainers.size());
    }
    // (traffic first at equal times: a worker's traffic record comes before its train record, and a
    // round's bytes are taken as its last train record comes)
    QList<Replayed> all = trafficRecords(traffic) + metricRecords(metrics);
    std::stable_sort(all.begin(), all.end(), [](const Replayed& a, const Replayed& b) { return a.t < b.t; });
    RunProgress progress(trainReportsPerRound, rounds, std::max(1, evalEvery));
    StoredRounds out;
    auto keep = [&](const QList<RoundRow>& rows) {
        for (const RoundRow& row : rows) {
            out.rows << row;
            out.wallMs << clock.unixTime(row.elapsed) * 1000;
        }
    };
    for (const Replayed& r : all) keep(progress.ingest(r.record, clock.elapsed(r.t)));
    keep(progress.finish());
    return out;
}

}  // namespace hips
