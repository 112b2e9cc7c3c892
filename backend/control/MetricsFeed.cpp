#include "MetricsFeed.h"

#include "Vocabulary.h"

#include <QSet>
#include <QJsonDocument>
#include <utility>

namespace hips {

namespace {
QString field(const QJsonObject& o, const char* key) {
    return o.value(QLatin1String(key)).toString();
}
}  // namespace

std::optional<MetricsFeed::Taken> MetricsFeed::take(const QByteArray& json, double clockCorrection) {
    Taken t{QJsonDocument::fromJson(json).object(), json, {}, {}};
    if (!firstOfItsRound(t.record)) return std::nullopt;
    const QString kind = field(t.record, "kind"), node = field(t.record, "node");
    bool rewritten = false;
    if (const QJsonValue time = t.record.value(metric::kTime); clockCorrection != 0 && time.isDouble()) {
        t.record.insert(metric::kTime, time.toDouble() + clockCorrection);
        rewritten = true;
    }
    if (kind == metric::kTraffic) {
        // A new process whose predecessor's end this controller never heard of (it attached
        // after): what the predecessor counted is carried on, as processEnded would have. (Carrying
        // the same last record twice changes nothing.)
        if (const auto last = m_lastTraffic.constFind(node); last != m_lastTraffic.cend() && isAnotherProcess(*last, t.record))
            carry(*last);
        if (const auto carried = m_carried.constFind(node); carried != m_carried.cend()) {
            t.record.insert(metric::kLinks, withCarry(t.record.value(metric::kLinks).toArray(), *carried));
            QJsonArray before;
            for (const QJsonObject& link : *carried) before.append(link);
            t.record.insert(metric::kCarried, before);
            rewritten = true;
        }
        m_lastTraffic.insert(node, t.record);
    }
    if (kind == metric::kMembership) {
        const QString member = field(t.record, "member"), state = field(t.record, "state");
        if (std::exchange(m_membership[member], state) != state) {
            t.member = member;
            t.change = QStringLiteral("%1 declared %2: %3").arg(member, state, field(t.record, "reason"));
        }
    }
    if (rewritten) t.line = QJsonDocument(t.record).toJson(QJsonDocument::Compact);
    return t;
}

void MetricsFeed::resumeFrom(const QJsonObject& record) {
    if (field(record, "kind") == metric::kTraffic) carry(record);
    firstOfItsRound(record);
}

// The processes go on counting, but a node's counts as its earlier processes had them (its
// records say what was carried) are still added to its process's.
void MetricsFeed::attachTo(const QJsonObject& record) {
    const QString kind = field(record, "kind"), node = field(record, "node");
    if (kind == metric::kTraffic) {
        m_lastTraffic.insert(node, record);
        m_carried.remove(node);
        for (const QJsonValue& v : record.value(metric::kCarried).toArray())
            m_carried[node].insert(field(v.toObject(), "peer"), v.toObject());
    }
    if (kind == metric::kMembership) m_membership.insert(field(record, "member"), field(record, "state"));
    firstOfItsRound(record);
}

// A round is evaluated once: a restarted master may be given the model its predecessor had
// evaluated just before it died (the same model, the same figures), which is not kept twice. A
// global server's round is aggregated once: a restarted one reports the round it recovered
// again, in case that record died with its predecessor. Both go forward only (a master evaluates
// newer models, a server aggregates the next round), so a round not after the newest taken is
// one taken already, or a superseded process's late word on it. A round's draw (client
// sampling) is said once: a global server restarted before its checkpoint closes the round again.
bool MetricsFeed::firstOfItsRound(const QJsonObject& record) {
    const QString kind = field(record, "kind");
    if (kind != metric::kEval && kind != metric::kAggregate && kind != metric::kSample) return true;
    const QString key = kind == metric::kAggregate ? kind + QLatin1Char(' ') + field(record, "node") : kind;
    const int round = record.value(metric::kRound).toInt(-1);
    const auto newest = m_newestRound.constFind(key);
    if (newest != m_newestRound.cend() && round <= *newest) return false;
    m_newestRound.insert(key, round);
    return true;
}

bool MetricsFeed::isAnotherProcess(const QJsonObject& last, const QJsonObject& next) {
    const QString before = last.value(metric::kProcessInstance).toString(), now = next.value(metric::kProcessInstance).toString();
    return !before.isEmpty() && !now.isEmpty() && before != now;
}

void MetricsFeed::carry(const QJsonObject& traffic) {
    QHash<QString, QJsonObject>& carried = m_carried[field(traffic, "node")];
    for (const QJsonValue& v : traffic.value(QStringLiteral("links")).toArray()) carried.insert(field(v.toObject(), "peer"), v.toObject());
}

// The links of a new process's record with its predecessors' counts added; a link it has not used
// yet (a restarted party server before its workers push again) keeps what they had counted.
QJsonArray MetricsFeed::withCarry(const QJsonArray& links, const QHash<QString, QJsonObject>& carried) {
    QJsonArray out;
    QSet<QString> seen;
    for (const QJsonValue& v : links) {
        QJsonObject link = v.toObject();
        const QString peer = field(link, "peer");
        seen.insert(peer);
        const QJsonObject before = carried.value(peer);
        for (const QLatin1String key : {metric::kSent, metric::kReceived})
            link.insert(key, link.value(key).toDouble() + before.value(key).toDouble());
        out.append(link);
    }
    for (auto it = carried.begin(); it != carried.end(); ++it)
        if (!seen.contains(it.key())) out.append(*it);
    return out;
}

}  // namespace hips
