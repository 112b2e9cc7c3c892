#include "PendingPulls.h"

namespace hips {

QStringList PendingPulls::take(qint64 available) {
    QStringList ready;
    QList<Pull> waiting;
    for (const Pull& p : m_pending) {
        if (p.version <= available) ready.append(p.peer);
        else waiting.append(p);
    }
    m_pending.swap(waiting);
    return ready;
}

}  // namespace hips
