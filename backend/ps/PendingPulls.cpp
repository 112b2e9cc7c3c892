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

}  // namespace hips
