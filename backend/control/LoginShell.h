#pragma once
// Where a Slurm party's commands run (sbatch, squeue, scontrol, scancel) and its job's files are
// written: the party's login host over SSH, or this machine. One per job, used from its thread.
#include "Deployer.h"
#include "SshSession.h"

#include <memory>

namespace hips {

class LoginShell {
public:
    virtual ~LoginShell() = default;
    // Runs `command` with /bin/sh; empty unless it could not be run at all (its exit status is
    // in `result`).
    virtual QString run(const QString& command, CommandResult* result, int timeoutSeconds = 60) = 0;
    // Writes `data` to `path` (absolute) with `mode`, replacing what was there.
    virtual QString write(const QByteArray& data, const QString& path, int mode) = 0;
    // What the host calls it, for messages: "this machine" or "login host NAME".
    virtual QString name() const = 0;
    // `dir` with a leading "~" expanded to the login user's home; empty if it cannot be.
    QString absolute(const QString& dir);
};

// This machine's shell.
std::unique_ptr<LoginShell> localLoginShell();
// `host` over SSH, logged into as a deployment does; null with `error` when that fails.
std::unique_ptr<LoginShell> sshLoginShell(const Host& host, const DeployOptions& options, const std::atomic<bool>* cancelled,
                                          QString* error);

}  // namespace hips
