#pragma once
// Pull requests waiting for a model version a server does not have yet.
#include <QList>
#include <QString>
#include <functional>

namespace hips {

class PendingPulls {
public:
    void add(const QString& peer, qint64 version) { m_pending.append({peer, version}); }
    // Answers (and forgets) every pull for a version <= `available`.
    void serve(qint64 available, const std::function<void(const QString& peer)>& send);
    bool empty() const { return m_pending.isEmpty(); }

private:
    struct Pull { QString peer; qint64 version; };
    QList<Pull> m_pending;
};

}  // namespace hips
