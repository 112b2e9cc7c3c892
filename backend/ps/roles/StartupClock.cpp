#include "StartupClock.h"

#include "RoleScope.h"

#include <QFile>
#include <ctime>
#include <unistd.h>

namespace hips {

double secondsSinceProcessStart() {
    QFile stat(QStringLiteral("/proc/self/stat"));
    if (!stat.open(QIODevice::ReadOnly)) return 0;
    const QByteArray text = stat.readAll();
    // Field 22 (starttime, clock ticks since boot) counts from after the command name, which
    // may hold spaces: start after its closing parenthesis (field 2 ends there).
    const QList<QByteArray> fields = text.mid(text.lastIndexOf(')') + 2).split(' ');
    bool ok = false;
    const double startTicks = fields.value(22 - 3).toDouble(&ok);
    timespec now{};
    if (!ok || clock_gettime(CLOCK_BOOTTIME, &now) != 0) return 0;
    const double seconds = double(now.tv_sec) + double(now.tv_nsec) / 1e9 - startTicks / double(sysconf(_SC_CLK_TCK));
    return seconds > 0 ? seconds : 0;
}

double secondsSinceRoleStart() {
    if (const RoleScope* scope = threadRoleScope())
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - scope->started).count();
    return secondsSinceProcessStart();
}

StartupClock::StartupClock()
    : m_last(std::chrono::steady_clock::now()), m_sinceProcessStart(secondsSinceRoleStart()), m_constructed(m_last) {
    m_fields.insert(QStringLiteral("process_s"), m_sinceProcessStart);  // exec, libraries, Qt, until here
}

void StartupClock::mark(const QString& name) {
    const auto now = std::chrono::steady_clock::now();
    m_fields.insert(name, std::chrono::duration<double>(now - m_last).count());
    m_fields.insert(QStringLiteral("total_s"), m_sinceProcessStart + std::chrono::duration<double>(now - m_constructed).count());
    m_last = now;
}

}  // namespace hips
