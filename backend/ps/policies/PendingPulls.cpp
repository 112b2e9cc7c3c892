#include "PendingPulls.h"

namespace hips {

QStringList PendingPulls::take(qint64 available) {
    QStringList ready;
    for (auto it = m_pending.begin(); it != m_pending.end();) {
        if (it.value() <= available) {
            ready.append(it.key());
            it = m_pending.erase(it);
        } else {
            ++it;
        }
    }
    return ready;
}

QStringList PendingPulls::waiting(qint64 available) const {
    QStringList peers;
    for (auto it = m_pending.cbegin(); it != m_pending.cend(); ++it)
        if (it.value() <= available) peers.append(it.key());
    return peers;
}

}  // namespace hips
