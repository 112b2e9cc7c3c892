#pragma once
// Pull requests waiting for a model version a server does not have yet.
#include <QList>
#include <QString>
#include <QStringList>

namespace hips {

class PendingPulls {
public:
    void add(const QString& peer, qint64 version) { m_pending.append({peer, version}); }
    // Removes and returns the peers whose pull a model of version `available` answers.
    QStringList take(qint64 available);

private:
    struct Pull { QString peer; qint64 version; };
    QList<Pull> m_pending;
};

}  // namespace hips
