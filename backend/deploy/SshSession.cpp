#include "SshSession.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QRegularExpression>
#include <chrono>
#include <condition_variable>
#include <fcntl.h>
#include <libssh/callbacks.h>
#include <libssh/libssh.h>
#include <mutex>
#include <sys/socket.h>
#include <thread>
#include <libssh/sftp.h>

namespace hips {

// libssh asks nothing itself: for a PEM key it left the passphrase to OpenSSL, which asked on the
// terminal, from a deployment thread, past this session's prompt and its cancel.
static int askNothing(const char*, char*, size_t, int, int, void*) {
    return -1;
}

struct SshSession::Impl {
    ssh_session session = nullptr;
    ssh_callbacks_struct callbacks{};  // (the session's while it lives)
    sftp_session sftp = nullptr;  // opened on the first upload, reused by the next ones
    ~Impl() {
        if (sftp) sftp_free(sftp);
        if (!session) return;
        if (ssh_is_connected(session)) ssh_disconnect(session);
        ssh_free(session);
    }
};

SshSession::SshSession() : d(std::make_unique<Impl>()) {}
SshSession::~SshSession() = default;

QString SshSession::fail(const QString& what) const {
    const QString detail = d->session ? QString::fromUtf8(ssh_get_error(d->session)) : QString();
    return QStringLiteral("host '%1' (%2:%3): %4%5")
        .arg(m_target.host, m_target.address)
        .arg(m_target.port)
        .arg(what, detail.isEmpty() ? QString() : QStringLiteral(" [%1]").arg(detail));
}

static const std::atomic<bool>& cancelFlag(const std::atomic<bool>* flag) {
    static const std::atomic<bool> never{false};
    return flag ? *flag : never;
}

// Ends an SFTP transfer that stops moving, or is cancelled, by shutting its socket: libssh's SFTP
// retries a read that timed out for as long as the channel is open (a host that stopped answering
// without a reset, an install_dir on a hung mount), and a cancelled deployment's threads are
// joined on the controller's (the GUI's) thread.
class TransferWatch {
public:
    TransferWatch(ssh_session session, const std::atomic<bool>& cancelled, int stallSeconds)
        : m_thread([this, session, &cancelled, stallSeconds] {
              std::unique_lock lock(m_mutex);
              while (!m_done) {
                  m_wake.wait_for(lock, std::chrono::milliseconds(100));
                  const bool stalled = std::chrono::steady_clock::now() - m_moved > std::chrono::seconds(stallSeconds);
                  if (!m_done && (cancelled || stalled)) {
                      m_why = cancelled ? QStringLiteral("cancelled") : QStringLiteral("no byte moved for %1 s").arg(stallSeconds);
                      ::shutdown(ssh_get_fd(session), SHUT_RDWR);
                      return;
                  }
              }
          }) {}
    ~TransferWatch() {
        {
            std::lock_guard lock(m_mutex);
            m_done = true;
        }
        m_wake.notify_one();
        m_thread.join();
    }
    void moved() {
        std::lock_guard lock(m_mutex);
        m_moved = std::chrono::steady_clock::now();
    }
    // Why it ended the transfer; empty when it did not.
    QString why() {
        std::lock_guard lock(m_mutex);
        return m_why;
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_done = false;
    std::chrono::steady_clock::time_point m_moved = std::chrono::steady_clock::now();
    QString m_why;
    std::thread m_thread;  // (last: it starts once the rest is there)
};

static QString knownHostsPath(const SshTarget& t) {
    return t.knownHosts.isEmpty() ? QDir::homePath() + QStringLiteral("/.ssh/known_hosts") : t.knownHosts;
}

QString SshSession::connect(const SshTarget& target, const HostKeyPrompt& hostKeyPrompt) {
    m_target = target;
    d->session = ssh_new();
    if (!d->session) return fail(QStringLiteral("cannot create an SSH session (out of memory?)"));
    ssh_callbacks_init(&d->callbacks);
    d->callbacks.auth_function = askNothing;
    ssh_set_callbacks(d->session, &d->callbacks);
    const QByteArray address = target.address.toUtf8(), user = target.user.toUtf8();
    const QByteArray known = knownHostsPath(target).toUtf8();
    const unsigned int port = unsigned(target.port);
    const long timeout = target.timeoutSeconds;
    ssh_options_set(d->session, SSH_OPTIONS_HOST, address.constData());
    ssh_options_set(d->session, SSH_OPTIONS_PORT, &port);
    ssh_options_set(d->session, SSH_OPTIONS_TIMEOUT, &timeout);
    ssh_options_set(d->session, SSH_OPTIONS_KNOWNHOSTS, known.constData());
    if (!user.isEmpty()) ssh_options_set(d->session, SSH_OPTIONS_USER, user.constData());
    // Do not read ~/.ssh/config: the topology is the one place a host is described.
    const int no = 0;
    ssh_options_set(d->session, SSH_OPTIONS_PROCESS_CONFIG, &no);

    if (ssh_connect(d->session) != SSH_OK) {
        const QString error = QString::fromUtf8(ssh_get_error(d->session));
        if (error.contains(QLatin1String("refused"), Qt::CaseInsensitive))
            return fail(QStringLiteral("connection refused: no SSH server listens on port %1; start sshd there or fix "
                                       "ssh_port in the topology")
                            .arg(target.port));
        if (error.contains(QLatin1String("timeout"), Qt::CaseInsensitive) ||
            error.contains(QLatin1String("timed out"), Qt::CaseInsensitive))
            return fail(QStringLiteral("no answer within %1 s: the host is unreachable; check its address, that it "
                                       "is up, and any firewall in between")
                            .arg(target.timeoutSeconds));
        return fail(QStringLiteral("cannot connect; check the address and that the host is up"));
    }

    ssh_key key = nullptr;
    if (ssh_get_server_publickey(d->session, &key) != SSH_OK) return fail(QStringLiteral("the server sent no host key"));
    unsigned char* hash = nullptr;
    size_t hashLength = 0;
    ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash, &hashLength);
    char* printable = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, hashLength);
    const QString fingerprint = QString::fromLatin1(printable);
    ssh_string_free_char(printable);
    ssh_clean_pubkey_hash(&hash);
    ssh_key_free(key);

    // As known_hosts names it: with a port other than 22, "[address]:port".
    const QString recordedAs = target.port == 22 ? target.address : QStringLiteral("[%1]:%2").arg(target.address).arg(target.port);
    switch (ssh_session_is_known_server(d->session)) {
        case SSH_KNOWN_HOSTS_OK: return {};
        case SSH_KNOWN_HOSTS_CHANGED:
        case SSH_KNOWN_HOSTS_OTHER:
            return fail(QStringLiteral("the host key changed (now %1) since it was recorded in %2. Either the host was "
                                       "reinstalled or someone is in between; check with its administrator, then "
                                       "remove the old line (ssh-keygen -R '%3' -f %2)")
                            .arg(fingerprint, knownHostsPath(target), recordedAs));
        case SSH_KNOWN_HOSTS_NOT_FOUND:
        case SSH_KNOWN_HOSTS_UNKNOWN:
            if (!hostKeyPrompt ||
                !hostKeyPrompt(QStringLiteral("%1 (%2)").arg(target.host, recordedAs), fingerprint, cancelFlag(m_cancelled)))
                return fail(QStringLiteral("unknown host key %1; accept it (hips: --accept-new-host-keys) after "
                                           "checking it with the host's administrator")
                                .arg(fingerprint));
            QDir().mkpath(QFileInfo(knownHostsPath(target)).absolutePath());
            if (ssh_session_update_known_hosts(d->session) != SSH_OK)
                return fail(QStringLiteral("cannot record the host key in %1").arg(knownHostsPath(target)));
            return {};
        case SSH_KNOWN_HOSTS_ERROR: break;
    }
    return fail(QStringLiteral("cannot check the host key against %1").arg(knownHostsPath(target)));
}

QString SshSession::authenticate(const SecretPrompt& secretPrompt) {
    if (ssh_userauth_none(d->session, nullptr) == SSH_AUTH_SUCCESS) return {};
    if (!m_target.identityFile.isEmpty()) {
        const QString path = QDir::fromNativeSeparators(m_target.identityFile).replace(QRegularExpression("^~"), QDir::homePath());
        if (!QFileInfo(path).isReadable())
            return fail(QStringLiteral("the identity file %1 does not exist or cannot be read; fix identity_file").arg(path));
        ssh_key key = nullptr;
        int rc = ssh_pki_import_privkey_file(path.toUtf8().constData(), nullptr, askNothing, nullptr, &key);
        if (rc != SSH_OK && secretPrompt) {  // probably encrypted: ask once, keep nothing
            QByteArray passphrase = secretPrompt(QStringLiteral("Passphrase for %1: ").arg(path), cancelFlag(m_cancelled)).toUtf8();
            if (!passphrase.isEmpty())
                rc = ssh_pki_import_privkey_file(path.toUtf8().constData(), passphrase.constData(), askNothing, nullptr, &key);
            passphrase.fill('\0');
        }
        if (rc != SSH_OK) return fail(QStringLiteral("cannot read the private key %1 (wrong passphrase, or not a key)").arg(path));
        rc = ssh_userauth_publickey(d->session, nullptr, key);
        ssh_key_free(key);
        if (rc == SSH_AUTH_SUCCESS) return {};
        // (Not every failure is a refusal: the connection may have dropped, or the server wants
        // a second factor after the key.)
        if (rc == SSH_AUTH_PARTIAL)
            return fail(QStringLiteral("the server took the key %1 for user '%2' but asks for more (a second factor, or a "
                                       "password as well); HiPS Studio deploys with a key alone: let that user log in with the key only")
                            .arg(path, m_target.user));
        if (rc == SSH_AUTH_ERROR)
            return fail(QStringLiteral("the connection failed while the key %1 was being tried: %2; check the host and try again")
                            .arg(path, QString::fromUtf8(ssh_get_error(d->session))));
        return fail(QStringLiteral("the server refused the key %1 for user '%2'; add its public key to that user's "
                                   "~/.ssh/authorized_keys, or fix user/identity_file")
                        .arg(path, m_target.user));
    }
    if (ssh_userauth_agent(d->session, nullptr) == SSH_AUTH_SUCCESS) return {};
    if (ssh_userauth_publickey_auto(d->session, nullptr, nullptr) == SSH_AUTH_SUCCESS) return {};
    if (secretPrompt) {
        QByteArray password =
            secretPrompt(QStringLiteral("Password for %1@%2: ").arg(m_target.user, m_target.address), cancelFlag(m_cancelled)).toUtf8();
        const int rc = password.isEmpty() ? SSH_AUTH_DENIED : ssh_userauth_password(d->session, nullptr, password.constData());
        password.fill('\0');
        if (rc == SSH_AUTH_SUCCESS) return {};
    }
    return fail(
        QStringLiteral("authentication failed: no key of the ssh-agent or ~/.ssh was accepted; set identity_file "
                       "for this host in the topology"));
}

QString SshSession::run(const QString& command, CommandResult* result, int timeoutSeconds) {
    finishUploads();
    // A cancelled deployment starts nothing more; one started is waited for (an agent or a Slurm
    // job given up on mid-command would run on where nothing could reach it).
    if (cancelFlag(m_cancelled)) return fail(QStringLiteral("'%1' was not run: the deployment was cancelled").arg(command));
    ssh_channel channel = ssh_channel_new(d->session);
    if (!channel || ssh_channel_open_session(channel) != SSH_OK) {
        if (channel) ssh_channel_free(channel);
        return fail(QStringLiteral("cannot open a session channel"));
    }
    if (ssh_channel_request_exec(channel, command.toUtf8().constData()) != SSH_OK) {
        ssh_channel_free(channel);
        return fail(QStringLiteral("cannot run '%1'").arg(command));
    }
    *result = CommandResult{};
    char buffer[16384];
    // Both streams in turn until the end of the output: a read of one stream may return (with
    // nothing) when the other has data, so a command that writes only to stderr must not look
    // like one that never finishes.
    QElapsedTimer clock;
    clock.start();
    bool timedOut = false, failed = false;
    for (bool got = true; !failed;) {
        if (!got && ssh_channel_is_eof(channel)) break;
        if (clock.elapsed() > qint64(timeoutSeconds) * 1000) {
            timedOut = true;
            break;
        }
        got = false;
        for (int stream : {0, 1}) {
            const int n = ssh_channel_read_timeout(channel, buffer, sizeof buffer, stream, 50);
            if (n > 0) (stream ? result->err : result->out).append(buffer, n), got = true;
            if (n == SSH_ERROR) failed = true;
        }
    }
    ssh_channel_send_eof(channel);
    result->exitStatus = timedOut || failed ? -1 : int(ssh_channel_get_exit_status(channel));
    ssh_channel_close(channel);
    ssh_channel_free(channel);
    if (timedOut) return fail(QStringLiteral("'%1' did not finish within %2 s").arg(command).arg(timeoutSeconds));
    if (failed) return fail(QStringLiteral("the connection broke while '%1' ran").arg(command));
    return {};
}

void SshSession::finishUploads() {
    if (d->sftp) sftp_free(d->sftp);
    d->sftp = nullptr;
}

QString SshSession::openSftp() {
    if (d->sftp) return {};
    d->sftp = sftp_new(d->session);
    if (!d->sftp || sftp_init(d->sftp) != SSH_OK) {
        if (d->sftp) sftp_free(d->sftp);
        d->sftp = nullptr;
        return fail(QStringLiteral("the SFTP subsystem is not available; enable 'Subsystem sftp' in its sshd_config"));
    }
    return {};
}

QString SshSession::download(const QString& remotePath, qint64 maxBytes, QByteArray* data, bool* missing) {
    *missing = false;
    data->clear();
    // (Watched from the start: libssh's SFTP set-up and open wait for their answers as its reads
    // do, for as long as the channel is open.)
    TransferWatch watch(d->session, cancelFlag(m_cancelled), 3 * m_target.timeoutSeconds);
    QString e = openSftp();
    sftp_file file = e.isEmpty() ? sftp_open(d->sftp, remotePath.toUtf8().constData(), O_RDONLY, 0) : nullptr;
    if (const QString why = watch.why(); !why.isEmpty())
        return fail(QStringLiteral("reading %1 stopped before its first byte: %2").arg(remotePath, why));
    if (!e.isEmpty()) return e;
    if (!file) {
        if (sftp_get_error(d->sftp) == SSH_FX_NO_SUCH_FILE) {
            *missing = true;
            return {};
        }
        return fail(QStringLiteral("cannot read %1").arg(remotePath));
    }
    char buffer[64 * 1024];
    ssize_t n = 0;
    watch.moved();
    while ((n = sftp_read(file, buffer, sizeof buffer)) > 0) {
        watch.moved();
        if (data->size() + n > maxBytes) {
            sftp_close(file);
            return fail(QStringLiteral("%1 is over %2 MB; fetch it by hand").arg(remotePath).arg(maxBytes >> 20));
        }
        data->append(buffer, n);
    }
    if (const QString why = watch.why(); !why.isEmpty())  // (the session is closed: nothing more to close)
        return fail(QStringLiteral("reading %1 stopped after %2 bytes: %3").arg(remotePath).arg(data->size()).arg(why));
    sftp_close(file);
    if (n < 0) return fail(QStringLiteral("reading %1 stopped after %2 bytes").arg(remotePath).arg(data->size()));
    return {};
}

QString SshSession::upload(const QByteArray& data, const QString& remotePath, int mode) {
    TransferWatch watch(d->session, cancelFlag(m_cancelled), 3 * m_target.timeoutSeconds);  // (from the start: download's)
    if (QString e = openSftp(); !e.isEmpty()) {
        const QString why = watch.why();
        return why.isEmpty() ? e : fail(QStringLiteral("writing %1 stopped before its first byte: %2").arg(remotePath, why));
    }
    sftp_session sftp = d->sftp;
    const QByteArray partial = (remotePath + QStringLiteral(".part")).toUtf8();
    QString error;
    sftp_file file = sftp_open(sftp, partial.constData(), O_WRONLY | O_CREAT | O_TRUNC, mode_t(mode));
    if (const QString why = watch.why(); !why.isEmpty())
        return fail(QStringLiteral("writing %1 stopped before its first byte: %2").arg(remotePath, why));
    if (!file) {
        error = fail(QStringLiteral("cannot write %1 (free disk space and permissions?)").arg(remotePath));
    } else {
        qsizetype written = 0;
        watch.moved();
        while (written < data.size()) {
            const ssize_t n = sftp_write(file, data.constData() + written, size_t(std::min<qsizetype>(data.size() - written, 64 * 1024)));
            if (n <= 0) break;
            written += n;
            watch.moved();
        }
        if (const QString why = watch.why(); !why.isEmpty())
            return fail(
                QStringLiteral("writing %1 stopped after %2 of %3 bytes: %4").arg(remotePath).arg(written).arg(data.size()).arg(why));
        // (A file system may say only at the close that the bytes were not stored: a quota, NFS.)
        const bool closed = sftp_close(file) == SSH_NO_ERROR;
        if (written != data.size())
            error =
                fail(QStringLiteral("writing %1 stopped after %2 of %3 bytes (disk full?)").arg(remotePath).arg(written).arg(data.size()));
        else if (!closed) error = fail(QStringLiteral("writing %1 failed as it was closed (disk full, or over a quota?)").arg(remotePath));
        else if (sftp_rename(sftp, partial.constData(), remotePath.toUtf8().constData()) != SSH_OK &&
                 (sftp_unlink(sftp, remotePath.toUtf8().constData()),
                  sftp_rename(sftp, partial.constData(), remotePath.toUtf8().constData()) != SSH_OK))
            error = fail(QStringLiteral("cannot move the upload into place at %1").arg(remotePath));
    }
    return error;
}

}  // namespace hips
