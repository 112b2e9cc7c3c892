#include "RoleRestarts.h"

#include "FaultPolicy.h"
#include "GlobalPolicies.h"
#include "RoleError.h"

#include <chrono>

namespace hips {

bool restartable(RoleKind kind, const TrainingSettings& training) {
    switch (kind) {
        case RoleKind::Worker:
        case RoleKind::Server:
        case RoleKind::Scheduler:
        case RoleKind::GlobalScheduler:
        case RoleKind::MasterWorker:
        case RoleKind::StateService: return true;  // (a new one learns the workers from their next steps)
        case RoleKind::GlobalServer: return recoversGlobalServer(training);
    }
    return false;
}

qint64 RoleRestarts::steadyNowMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void RoleRestarts::remember(const RoleLaunch& launch, int maxRestarts) {
    m_entries.insert(launch.node, Entry{launch, maxRestarts, 0, false, m_nowMs()});
}

std::optional<int> RoleRestarts::planRestart(const QString& node, const RoleExitInfo& info, int* attempt, int* maxRestarts) {
    const auto it = m_entries.find(node);
    if (it != m_entries.end()) it->attempts = restartsInARow(it->attempts, m_nowMs() - it->startedMs);
    // (A superseded process: another process of its node runs elsewhere, placed later.)
    if (it == m_entries.end() || (info.exitCode == 0 && !info.crashed) || (info.exitCode == kRoleSuperseded && !info.crashed) ||
        it->attempts >= it->maxRestarts)
        return std::nullopt;
    it->pending = true;
    *attempt = ++it->attempts;
    *maxRestarts = it->maxRestarts;
    return restartDelayMs(it->attempts);
}

std::optional<RoleLaunch> RoleRestarts::takeDue(const QString& node) {
    const auto it = m_entries.find(node);
    if (it == m_entries.end() || !it->pending) return std::nullopt;
    it->pending = false;
    it->startedMs = m_nowMs();
    return it->launch;
}

void RoleRestarts::fileRewritten(const QString& path, const QByteArray& sha256) {
    for (Entry& e : m_entries) {
        if (e.launch.topologyPath == path) e.launch.topologySha256 = sha256;
        if (e.launch.peerKeysPath == path) e.launch.peerKeysSha256 = sha256;
    }
}

QStringList RoleRestarts::cancelAll() {
    QStringList cancelled;
    for (auto it = m_entries.begin(); it != m_entries.end(); ++it)
        if (std::exchange(it->pending, false)) cancelled << it.key();
    for (Entry& e : m_entries) e.maxRestarts = 0;  // and none after this
    return cancelled;
}

bool RoleRestarts::cancel(const QString& node) {
    const auto it = m_entries.find(node);
    if (it == m_entries.end()) return false;
    it->maxRestarts = 0;
    return std::exchange(it->pending, false);
}

int RoleRestarts::pendingCount() const {
    int n = 0;
    for (const Entry& e : m_entries) n += e.pending ? 1 : 0;
    return n;
}

}  // namespace hips
