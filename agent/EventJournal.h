#pragma once
// The agent's events, numbered, kept until the controller acknowledges them: what a controller
// that died or was stopped gets again when one attaches (hips attach). Bounded in count and in
// bytes: beyond either bound the oldest log lines and the traffic records a later one of the same
// node supersedes (their counters are cumulative) give way to "skipped" markers, so that the
// numbering has no gap; a run of them is one marker ({seq, through}), so that a role that prints
// all week with no controller to read it costs nothing more than a marker. A process's start or
// exit and every other metric record are never dropped.
#include <QCborMap>
#include <QHash>
#include <QMap>
#include <QSet>

namespace hips {

class EventJournal {
public:
    static constexpr int kMaxKept = 200000;  // events
    static constexpr qint64 kMaxKeptBytes = qint64(64) << 20;  // of their text (a log line may be 8 KB)
    explicit EventJournal(int maxKept = kMaxKept, qint64 maxKeptBytes = kMaxKeptBytes) : m_maxKept(maxKept), m_maxKeptBytes(maxKeptBytes) {}

    // Numbers the event (its "seq" field), keeps it, and returns it as kept.
    const QCborMap& append(QCborMap event);
    void acknowledge(qint64 upTo);  // the controller has stored every event up to `upTo`
    const QMap<qint64, QCborMap>& pending() const { return m_events; }
    // The first pending entry with an event after `seen` (what the controller received, in
    // order): a marker that holds seen + 1 though it begins before it, or the next entry.
    QMap<qint64, QCborMap>::const_iterator unseenFrom(qint64 seen) const;
    // Entry `it` as it goes to a controller that has everything up to `seen`: a marker it has
    // part of is sent as the rest of it, numbered seen + 1.
    static QCborMap asSentAfter(QMap<qint64, QCborMap>::const_iterator it, qint64 seen);
    qint64 skipped() const { return m_skipped; }
    qint64 nextSeq() const { return m_nextSeq; }  // events that gave way to markers so far
    void clear();  // a standby agent's next controller starts a fresh numbering
    qint64 keptBytes() const { return m_bytes; }  // of the events that are not markers
    // Nothing is kept, nor any bookkeeping of what was (all acknowledged).
    bool isEmpty() const { return m_events.isEmpty() && m_superseded.isEmpty() && m_bytes == 0; }

private:
    void makeRoom();
    // Event `it` gives way to a marker, joined to the marker just before it if there is one.
    QMap<qint64, QCborMap>::iterator skip(QMap<qint64, QCborMap>::iterator it);
    bool overBounds(int events, qint64 bytes) const { return m_full > events || m_bytes > bytes; }
    int m_maxKept;
    qint64 m_maxKeptBytes;
    int m_limit = m_maxKept;  // grows past m_maxKept while nothing can give way
    qint64 m_byteLimit = m_maxKeptBytes;  // (the same)
    qint64 m_nextSeq = 1;
    int m_full = 0;  // kept events that are not markers
    qint64 m_bytes = 0;  // their size
    qint64 m_skipped = 0;
    QMap<qint64, QCborMap> m_events;
    QHash<QString, qint64> m_lastTraffic;  // node → seq of its process's newest traffic record
    QSet<qint64> m_superseded;  // traffic records a newer one of the same process carries
};

}  // namespace hips
