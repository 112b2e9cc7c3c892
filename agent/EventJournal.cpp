#include "EventJournal.h"

#include "ControlProtocol.h"
#include "Vocabulary.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>

namespace hips {

namespace {

const QString kKind = QStringLiteral("kind");
const QString kSkipped = QStringLiteral("skipped");

bool isMarker(const QCborMap& e) {
    return e.value(kKind).toString() == kSkipped;
}

// A node's traffic record: its counters count from the process's start, so a later one of the
// same node carries everything an older one did.
QString trafficNode(const QCborMap& e) {
    if (e.value(kKind).toString() != control::event::kMetric) return {};
    const QString json = e.value(QStringLiteral("json")).toString();
    if (!json.contains(QLatin1String("\"traffic\""))) return {};
    const QJsonObject record = QJsonDocument::fromJson(json.toUtf8()).object();
    return record.value(QStringLiteral("kind")).toString() == metric::kTraffic ? record.value(QStringLiteral("node")).toString()
                                                                               : QString();
}

}  // namespace

const QCborMap& EventJournal::append(QCborMap event) {
    const qint64 seq = m_nextSeq++;
    event.insert(QStringLiteral("seq"), seq);
    // A node's traffic record supersedes its previous one of the same process (a restarted process
    // counts from zero: its predecessor's last record stands).
    if (const QString node = trafficNode(event); !node.isEmpty()) {
        if (const auto previous = m_lastTraffic.find(node); previous != m_lastTraffic.end()) m_superseded.insert(*previous);
        m_lastTraffic.insert(node, seq);
    }
    if (event.value(kKind).toString() == control::event::kExited) m_lastTraffic.remove(event.value(QStringLiteral("node")).toString());
    ++m_full;
    auto it = m_events.insert(seq, std::move(event));
    if (m_full > m_limit) {
        makeRoom();
        m_limit = std::max(m_maxKept, m_full + m_maxKept / 10);  // not scanned again for every event
    }
    return *it;
}

void EventJournal::acknowledge(qint64 upTo) {
    while (!m_events.isEmpty() && m_events.firstKey() <= upTo) {
        if (!isMarker(m_events.first())) --m_full;
        m_superseded.remove(m_events.firstKey());
        m_events.erase(m_events.begin());
    }
    if (m_full <= m_maxKept) m_limit = m_maxKept;
}

// Oldest first: log lines, and traffic records that a newer one of their node supersedes, become
// markers until a tenth of the bound is free; if none is left to give way, the journal grows.
void EventJournal::makeRoom() {
    const int target = m_maxKept - m_maxKept / 10;
    for (auto it = m_events.begin(); it != m_events.end() && m_full > target; ++it) {
        if (isMarker(*it)) continue;
        const QString kind = it->value(kKind).toString();
        if (kind != control::event::kLog && !m_superseded.contains(it.key())) continue;
        m_superseded.remove(it.key());
        *it = QCborMap{{QStringLiteral("seq"), it.key()}, {kKind, kSkipped}, {QStringLiteral("node"), it->value(QStringLiteral("node"))}};
        --m_full;
        ++m_skipped;
    }
}

void EventJournal::clear() {
    m_events.clear();
    m_lastTraffic.clear();
    m_superseded.clear();
    m_full = 0;
    m_limit = m_maxKept;
    m_nextSeq = 1;
}

}  // namespace hips
