#pragma once
// The agent's events, numbered, kept until the controller acknowledges them: what a controller
// that died or was stopped gets again when one attaches (hips attach). Bounded: beyond
// kMaxKept events the oldest log lines and the traffic records a later one of the same node
// supersedes (their counters are cumulative) give way to small "skipped" markers, so that the
// numbering has no gap; a process's start or exit and every other metric record are never
// dropped.
#include <QCborMap>
#include <QHash>
#include <QMap>
#include <QSet>

namespace hips {

class EventJournal {
public:
    static constexpr int kMaxKept = 200000;  // ~60 MB of metric and log lines
    explicit EventJournal(int maxKept = kMaxKept) : m_maxKept(maxKept) {}

    // Numbers the event (its "seq" field), keeps it, and returns it as kept.
    const QCborMap& append(QCborMap event);
    void acknowledge(qint64 upTo);  // the controller has stored every event up to `upTo`
    const QMap<qint64, QCborMap>& pending() const { return m_events; }
    qint64 skipped() const { return m_skipped; }
    qint64 nextSeq() const { return m_nextSeq; }  // events that gave way to markers so far
    void clear();  // a standby agent's next controller starts a fresh numbering

private:
    void makeRoom();
    int m_maxKept;
    int m_limit = m_maxKept;  // grows past m_maxKept while nothing can give way
    qint64 m_nextSeq = 1;
    int m_full = 0;  // kept events that are not markers
    qint64 m_skipped = 0;
    QMap<qint64, QCborMap> m_events;
    QHash<QString, qint64> m_lastTraffic;  // node → seq of its process's newest traffic record
    QSet<qint64> m_superseded;  // traffic records a newer one of the same process carries
};

}  // namespace hips
