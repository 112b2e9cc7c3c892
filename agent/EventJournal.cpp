#include "EventJournal.h"

#include "ControlProtocol.h"
#include "Vocabulary.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>

namespace hips {

namespace {

const QString kKind = QStringLiteral("kind");
const QString kSkipped = control::event::kSkipped;

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

// What an event takes, near enough: its text.
qint64 sizeOf(const QCborMap& e) {
    qint64 bytes = 64;
    for (auto it = e.begin(); it != e.end(); ++it)
        if (it.value().isString()) bytes += it.value().toString().size() * 2;
    return bytes;
}

qint64 lastOf(qint64 seq, const QCborMap& e) {
    return isMarker(e) ? e.value(QStringLiteral("through")).toInteger(seq) : seq;
}

}  // namespace

const QCborMap& EventJournal::append(QCborMap event) {
    const qint64 seq = m_nextSeq++;
    event.insert(QStringLiteral("seq"), seq);
    // A node's traffic record supersedes its previous one of the same process (a restarted process
    // counts from zero: its predecessor's last record stands).
    if (const QString node = trafficNode(event); !node.isEmpty()) {
        // (One acknowledged already is gone, and must not be remembered.)
        if (const auto previous = m_lastTraffic.find(node); previous != m_lastTraffic.end() && m_events.contains(*previous))
            m_superseded.insert(*previous);
        m_lastTraffic.insert(node, seq);
    }
    if (event.value(kKind).toString() == control::event::kExited) m_lastTraffic.remove(event.value(QStringLiteral("node")).toString());
    ++m_full;
    m_bytes += sizeOf(event);
    m_events.insert(seq, std::move(event));
    if (overBounds(m_limit, m_byteLimit)) {
        makeRoom();
        m_limit = std::max(m_maxKept, m_full + m_maxKept / 10);  // not scanned again for every event
        m_byteLimit = std::max(m_maxKeptBytes, m_bytes + m_maxKeptBytes / 10);
    }
    return m_events.last();  // (makeRoom leaves the newest as it is)
}

// A marker may straddle `upTo` (events the controller had were joined to it after it had them,
// unacknowledged): it then stands for the rest of its run, from upTo + 1.
void EventJournal::acknowledge(qint64 upTo) {
    while (!m_events.isEmpty() && m_events.firstKey() <= upTo) {
        if (const QCborMap& first = m_events.first(); isMarker(first) && lastOf(m_events.firstKey(), first) > upTo) {
            QCborMap rest = first;
            rest.insert(QStringLiteral("seq"), upTo + 1);
            m_events.erase(m_events.begin());
            m_events.insert(upTo + 1, rest);
            break;
        }
        if (!isMarker(m_events.first())) --m_full, m_bytes -= sizeOf(m_events.first());
        m_superseded.remove(m_events.firstKey());
        m_events.erase(m_events.begin());
    }
    if (m_full <= m_maxKept) m_limit = m_maxKept;
    if (m_bytes <= m_maxKeptBytes) m_byteLimit = m_maxKeptBytes;
}

// Oldest first: log lines, and traffic records that a newer one of their node supersedes, become
// markers until a tenth of the bounds is free; if none is left to give way, the journal grows.
void EventJournal::makeRoom() {
    const int target = m_maxKept - m_maxKept / 10;
    const qint64 byteTarget = m_maxKeptBytes - m_maxKeptBytes / 10;
    const auto newest = std::prev(m_events.end());
    for (auto it = m_events.begin(); it != newest && overBounds(target, byteTarget);) {
        const QString kind = it->value(kKind).toString();
        if (isMarker(*it) || (kind != control::event::kLog && !m_superseded.contains(it.key()))) ++it;
        else it = skip(it);
    }
}

QMap<qint64, QCborMap>::iterator EventJournal::skip(QMap<qint64, QCborMap>::iterator it) {
    const qint64 seq = it.key();
    m_superseded.remove(seq);
    --m_full;
    m_bytes -= sizeOf(*it);
    ++m_skipped;
    if (it != m_events.begin()) {
        const auto before = std::prev(it);
        if (isMarker(*before) && lastOf(before.key(), *before) == seq - 1) {
            before->insert(QStringLiteral("through"), seq);
            return m_events.erase(it);
        }
    }
    *it = QCborMap{{QStringLiteral("seq"), seq}, {kKind, kSkipped}, {QStringLiteral("through"), seq}};
    return std::next(it);
}

QMap<qint64, QCborMap>::const_iterator EventJournal::unseenFrom(qint64 seen) const {
    auto it = m_events.upperBound(seen);
    if (it != m_events.begin())
        if (const auto before = std::prev(it); isMarker(*before) && lastOf(before.key(), *before) > seen) return before;
    return it;
}

QCborMap EventJournal::asSentAfter(QMap<qint64, QCborMap>::const_iterator it, qint64 seen) {
    QCborMap e = *it;
    if (it.key() <= seen) e.insert(QStringLiteral("seq"), seen + 1);  // (a marker it has part of: the rest)
    return e;
}

void EventJournal::clear() {
    m_events.clear();
    m_lastTraffic.clear();
    m_superseded.clear();
    m_full = 0;
    m_bytes = 0;
    m_limit = m_maxKept;
    m_byteLimit = m_maxKeptBytes;
    m_nextSeq = 1;
}

}  // namespace hips
