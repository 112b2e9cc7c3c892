#pragma once
// The embedded default: when every host is this machine, the controller starts a local
// hips-agent itself (no SSH). It gets its CURVE keys through its environment and admits only
// this controller's key. It outlives a controller that dies (in a session of its own, so the
// terminal's signals are the controller's), keeping the run going for orphan_timeout_s so that
// `hips attach` can take it up; with orphan_timeout_s 0 it dies with the controller
// (PR_SET_PDEATHSIG).
#include "CurveSecurity.h"

#include <QObject>
#include <QProcess>

namespace hips {

class LocalAgentLauncher : public QObject {
    Q_OBJECT
public:
    explicit LocalAgentLauncher(QObject* parent = nullptr);
    ~LocalAgentLauncher() override;

    // Starts the agent with its key pair and the controller's public key; roles write only below `runsRoot`.
    void start(const CurveKeyPair& agentKeys, const QByteArray& controllerPublicKey, const QString& runsRoot, bool outlivesController);
    void terminate();  // SIGTERM; SIGKILL after a grace period
    bool running() const { return m_process.state() != QProcess::NotRunning; }
    static QString agentPath();  // $HIPS_AGENT, or hips-agent beside this executable

Q_SIGNALS:
    void ready(const QString& endpoint);
    void failed(const QString& reason);
    // `how`: "exited with status N" or "was killed by a signal"; `code`: the exit status (-1 when killed).
    void exited(const QString& how, int code);

private:
    QProcess m_process;
    QByteArray m_buffer;
    bool m_ready = false;
};

}  // namespace hips
