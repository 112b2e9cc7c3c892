#include "PendingPulls.h"

namespace hips {

void PendingPulls::serve(qint64 available, const std::function<void(const QString&)>& send) {
    QList<Pull> waiting;
    for (const Pull& p : m_pending) {
        if (p.version <= available) send(p.peer);
        else waiting.append(p);
    }
    m_pending.swap(waiting);
}

}  // namespace hips
