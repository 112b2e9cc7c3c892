#include "MetricRecords.h"

#include <QJsonArray>
#include <algorithm>
#include <cmath>

namespace hips::metric {

namespace {

bool isKind(const QJsonObject& record, QLatin1String kind) {
    return record.value(kKind).toString() == kind;
}

// A byte count as a record holds it (a JSON number): negative or not a number reads as 0.
quint64 bytesOf(const QJsonValue& v) {
    const double d = v.toDouble();
    return std::isfinite(d) && d > 0 ? quint64(d) : 0;
}

}  // namespace

std::optional<TrainRecord> TrainRecord::from(const QJsonObject& r) {
    if (!isKind(r, kTrain)) return std::nullopt;
    TrainRecord t;
    t.node = r.value(kNode).toString();
    t.round = r.value(kRound).toInt(-1);
    t.loss = r.value(kLoss).toDouble(qQNaN());
    t.samples = r.value(kSamples).toInteger();
    t.computeSeconds = r.value(kComputeSeconds).toDouble();
    t.commSeconds = r.value(kCommSeconds).toDouble();
    t.waitSeconds = std::clamp(r.value(kWaitSeconds).toDouble(), 0.0, std::max(0.0, t.commSeconds));
    if (r.contains(kLocalSteps)) t.localSteps = r.value(kLocalSteps).toDouble();
    return t;
}

std::optional<ScoreRecord> ScoreRecord::from(const QJsonObject& r) {
    const bool party = isKind(r, kPartyEval);
    if (!party && !isKind(r, kEval)) return std::nullopt;
    ScoreRecord s;
    s.node = r.value(kNode).toString();
    s.kind = party ? kPartyEval : kEval;
    s.round = r.value(kRound).toInt(-1);
    s.rmse = r.contains(kTestRmse);
    s.score = r.value(s.rmse ? kTestRmse : kTestAccuracy).toDouble(qQNaN());  // (null: the model diverged, not 0)
    if (r.contains(kTestLoss)) s.loss = r.value(kTestLoss).toDouble(qQNaN());
    return s;
}

std::optional<AsyncPushRecord> AsyncPushRecord::from(const QJsonObject& r) {
    if (!isKind(r, kAsyncPush)) return std::nullopt;
    AsyncPushRecord a;
    a.origin = r.value(kOrigin).toString(a.origin);
    a.staleness = r.value(kStaleness).toDouble();
    return a;
}

std::optional<UsageRecord> UsageRecord::from(const QJsonObject& r) {
    if (!isKind(r, kUsage) || !r.value(kCpuPercent).isDouble()) return std::nullopt;
    UsageRecord u;
    u.node = r.value(kNode).toString();
    u.round = r.value(kRound).toInt(-1);
    u.cpuPercent = std::max(0.0, r.value(kCpuPercent).toDouble());
    if (const double rss = r.value(kRssBytes).toDouble(-1); rss > 0) u.rssBytes = qint64(rss);
    return u;
}

quint64 TrafficRecord::sent(bool across) const {
    quint64 n = 0;
    for (const LinkTraffic& l : links) n += l.across == across ? l.sent : 0;
    return n;
}

std::optional<TrafficRecord> TrafficRecord::from(const QJsonObject& r) {
    if (!isKind(r, kTraffic)) return std::nullopt;
    TrafficRecord t;
    t.node = r.value(kNode).toString();
    t.round = r.value(kRound).toInt(-1);
    for (const QJsonValue& v : r.value(kLinks).toArray()) {
        const QJsonObject link = v.toObject();
        t.links.append({link.value(kPeer).toString(), link.value(kTier).toString() == kTierAcross, bytesOf(link.value(kSent)),
                        bytesOf(link.value(kReceived))});
    }
    return t;
}

}  // namespace hips::metric
