#pragma once
// ESync's state service (mode esync): one per run, in the central party, on its own port; runs in
// hips-agent. Every training worker asks it after each local step whether to stop (EsyncState);
// it ends when every worker has said bye, and fails when none has asked anything for reply_timeout_s.
#include "RoleContext.h"

namespace hips {

int runStateService(RoleContext& ctx);

// A worker's link to the state service.
class Channel;
class StateServiceClient {
public:
    explicit StateServiceClient(RoleContext& ctx);
    ~StateServiceClient();
    void beginRound(qint64 round);
    // After the k-th local step of this round, each taking c seconds: stop now?
    bool ready(int k, double c);
    void leave();

private:
    RoleContext& m_ctx;
    QString m_service;
    std::unique_ptr<Channel> m_channel;
};

}  // namespace hips
