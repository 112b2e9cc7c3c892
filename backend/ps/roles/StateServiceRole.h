#pragma once
// ESync's state service (mode esync): one per run, in the central party, on its own port; runs in
// hips-agent. Every training worker asks it after each local step whether to stop (EsyncState);
// it ends when every worker has said bye, and fails when none has asked anything for reply_timeout_s.
#include "RoleContext.h"

#include <functional>
#include <memory>
#include <vector>

namespace hips {

int runStateService(RoleContext& ctx);

// A worker's link to the state service (and to its standby host's, where it has one).
class Channel;
class StateServiceClient {
public:
    explicit StateServiceClient(RoleContext& ctx);
    ~StateServiceClient();
    void beginRound(qint64 round);
    // After the k-th local step of this round, each taking c seconds: stop now?
    bool ready(int k, double c);
    void leave();
    void setWhileWaiting(std::function<void()> f) { m_whileWaiting = std::move(f); }

private:
    RoleContext& m_ctx;
    QString m_service;
    std::vector<std::unique_ptr<Channel>> m_channels;  // its host's, then its standby host's
    size_t m_current = 0;  // the one asked
    qint64 m_round = 0;
    qint64 m_asked = 0;  // questions asked (each answer names the one it answers)
    std::function<void()> m_whileWaiting;
};

}  // namespace hips
