#pragma once
// One SSH connection to a host, through libssh: connect, check the host key against a
// known_hosts file, authenticate with a key file or the ssh-agent, run commands, upload files
// over SFTP. Every failure is a sentence naming the host and what to do. Passwords and
// passphrases come only through the prompt callback and are never kept.
#include <QByteArray>
#include <QString>
#include <atomic>
#include <functional>
#include <memory>

namespace hips {

struct SshTarget {
    QString host;  // the topology's host id, for messages
    QString address;
    int port = 22;
    QString user;  // empty: the local user
    QString identityFile;  // empty: the ssh-agent, then the default keys
    QString knownHosts;  // empty: ~/.ssh/known_hosts
    int timeoutSeconds = 10;
};

// How to treat a host key the known_hosts file does not hold: the callback gets the host and
// the key's SHA-256 fingerprint and says whether to trust (and record) it. A key that differs
// from the recorded one is always refused. Prompts run on deployment threads; one that waits
// for a person must give up (answer no) once `cancelled` is set.
using HostKeyPrompt = std::function<bool(const QString& host, const QString& fingerprint, const std::atomic<bool>& cancelled)>;
// Asks for a passphrase (of the key file) or password; an empty answer gives up.
using SecretPrompt = std::function<QString(const QString& question, const std::atomic<bool>& cancelled)>;

struct CommandResult {
    int exitStatus = -1;
    QByteArray out, err;
    bool ok() const { return exitStatus == 0; }
};

class SshSession {
public:
    SshSession();
    ~SshSession();
    SshSession(const SshSession&) = delete;
    SshSession& operator=(const SshSession&) = delete;

    // Each returns an empty string on success, else what went wrong and what to do.
    QString connect(const SshTarget& target, const HostKeyPrompt& hostKeyPrompt);
    QString authenticate(const SecretPrompt& secretPrompt);
    QString run(const QString& command, CommandResult* result, int timeoutSeconds = 60);
    // Writes `data` to `remotePath` (through a temporary name, then renamed) with `mode`.
    QString upload(const QByteArray& data, const QString& remotePath, int mode);
    // Reads `remotePath` whole into `data` (at most maxBytes); *missing is set, with no error, when
    // there is no such file.
    QString download(const QString& remotePath, qint64 maxBytes, QByteArray* data, bool* missing);
    // Closes the SFTP channel the uploads shared; run() must not wait on a channel while it is open.
    void finishUploads();

    const SshTarget& target() const { return m_target; }
    void setCancelFlag(const std::atomic<bool>* cancelled) { m_cancelled = cancelled; }

private:
    QString fail(const QString& what) const;
    QString openSftp();
    struct Impl;
    std::unique_ptr<Impl> d;
    SshTarget m_target;
    const std::atomic<bool>* m_cancelled = nullptr;
};

}  // namespace hips
