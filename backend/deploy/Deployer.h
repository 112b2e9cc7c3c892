#pragma once
// Deploys hips-agent to the hosts of a topology over SSH, all hosts in parallel: connect and
// check the host key, authenticate, probe (OS, architecture, free disk), upload hips-agent and
// hips-trainer unless the same build is there (SHA-256), check that their shared libraries
// resolve (naming the missing ones and the Debian packages that provide them), and start the
// agent detached, in standby for a controller. The version handshake over ZeroMQ is the
// controller's (AgentClient). Progress and results come as signals on the caller's thread.
#include "SshSession.h"
#include "Topology.h"

#include <QObject>
#include <atomic>
#include <thread>
#include <vector>

namespace hips {

struct DeployOptions {
    QString binDir;  // where this machine's hips-agent and hips-trainer are
    QString knownHosts;  // empty: ~/.ssh/known_hosts
    bool acceptNewHostKeys = false;
    HostKeyPrompt hostKeyPrompt;  // asked when acceptNewHostKeys is false; may be empty (refuse)
    SecretPrompt secretPrompt;  // passphrases and passwords; may be empty
    int timeoutSeconds = 10;
    QByteArray controllerPublicKey;  // Z85; each agent admits only this key (CURVE)
    // The user's TorchScript model, uploaded beside the agent as INSTALL_DIR/models/SHA256.pt
    // (unless that file is there already), where the roles look for it first; empty: none.
    QString modelFile;
    QString modelSha256;
};

// Connects `ssh` to `host` and logs in as a deployment does (its known_hosts, prompts and
// timeout). Empty on success, else what went wrong and what to do.
QString connectToHost(SshSession& ssh, const Host& host, const DeployOptions& options, const std::atomic<bool>* cancelled);
// `path` with a leading "~" made the remote user's home (SFTP paths are not expanded by a shell);
// an error when the home cannot be told (an empty or relative $HOME would put the files elsewhere).
QString withRemoteHome(SshSession& ssh, const QString& hostId, QString* path);

// `s` as one word of a POSIX shell's command line, whatever it holds.
QString shellQuote(const QString& s);

// A host's install_dir as its shell reads it: "~/.hips" as "$HOME"/'.hips', anything else quoted.
QString remoteDir(const QString& dir);

struct HostDeployment {
    QString host;
    bool ok = false;
    QString error;  // what went wrong and what to do
    QString agentEndpoint;  // tcp://address:agent_port
    QString system;  // "Linux x86_64"
    bool uploaded = false;  // false when the same build was there already
    QByteArray agentPublicKey;  // Z85: the agent's CURVE key, generated for this deployment
    double seconds = 0;
};

class Deployer : public QObject {
    Q_OBJECT
public:
    explicit Deployer(QObject* parent = nullptr);
    ~Deployer() override;  // waits for the host threads

    // Starts deploying to every host of `topology` that is not local; returns at once.
    // Every remote host of `topology`, or only `onlyHost` (an agent started again).
    void start(const Topology& topology, const DeployOptions& options, const QString& onlyHost = {});
    bool isDone() const { return m_pending == 0; }
    // Each host still deploying gives up at its next step (`finished` follows, sooner).
    void cancel() { m_cancelled = true; }
    const QList<HostDeployment>& results() const { return m_results; }

    // Debian packages that provide the libraries hips-agent and hips-trainer link to.
    static QString packageFor(const QString& library);

Q_SIGNALS:
    void progress(const QString& host, const QString& stage);
    void hostFinished(const HostDeployment& result);
    void finished(const QList<HostDeployment>& results);

private:
    HostDeployment deployHost(const Host& host, const DeployOptions& options);
    QString uploadModel(SshSession& ssh, const Host& host, const QString& installPath, const DeployOptions& options, bool* uploaded);
    std::vector<std::thread> m_threads;
    // Set before the threads are joined: each gives up at its next step, and a prompt waiting
    // for a person answers no, so that joining never waits on a dialog.
    std::atomic<bool> m_cancelled{false};
    QList<HostDeployment> m_results;
    int m_pending = 0;
};

// The hosts of a topology that need SSH: those whose address is not this machine's loopback.
QList<Host> remoteHosts(const Topology& topology);

}  // namespace hips
