#pragma once
// Pull requests waiting for a model version a server does not have yet: one per peer (a newer
// pull replaces the older), so a peer that pulls in a loop costs no memory.
#include <QMap>
#include <QString>
#include <QStringList>

namespace hips {

class PendingPulls {
public:
    void add(const QString& peer, qint64 version) { m_pending.insert(peer, version); }
    // Removes and returns the peers whose pull a model of version `available` answers.
    QStringList take(qint64 available);
    // The same peers, left waiting (a model being streamed slice by slice is not complete yet).
    QStringList waiting(qint64 available) const;

private:
    QMap<QString, qint64> m_pending;  // peer → version wanted
};

}  // namespace hips
