#include "PrivateFiles.h"

#include <QDir>
#include <QFileInfo>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace hips {

QString systemErrorText(int errnum) {
    QString text = QString::fromLocal8Bit(std::strerror(errnum));
    if (text.size() > 1 && text[0].isUpper() && text[1].isLower()) text[0] = text[0].toLower();
    return text;
}

QString makePrivateDirectory(const QString& path, unsigned mode) {
    const QString absolute = QDir::cleanPath(QFileInfo(path).absoluteFilePath());
    QStringList missing;  // outermost last
    for (QString p = absolute; !QFileInfo::exists(p); p = QFileInfo(p).path()) {
        missing << p;
        if (p == QFileInfo(p).path()) break;
    }
    for (auto it = missing.crbegin(); it != missing.crend(); ++it) {
        const QByteArray native = QFile::encodeName(*it);
        if (::mkdir(native.constData(), mode) == 0) {
            if (::chmod(native.constData(), mode) != 0)  // mkdir's mode is masked by the umask
                return QStringLiteral("cannot set the permissions of %1: %2").arg(*it, systemErrorText(errno));
        } else if (errno != EEXIST) {  // EEXIST: made at the same moment by another process
            return QStringLiteral("cannot create the directory %1: %2").arg(*it, systemErrorText(errno));
        }
    }
    if (!QFileInfo(absolute).isDir()) return QStringLiteral("%1 exists but is not a directory").arg(absolute);
    return {};
}

QString checkOwnDirectory(const QString& path, bool followLink) {
    struct stat st {};
    const QByteArray native = QFile::encodeName(path);
    if ((followLink ? ::stat(native.constData(), &st) : ::lstat(native.constData(), &st)) != 0) return {};  // (not there yet: made private)
    if (S_ISLNK(st.st_mode))
        return QStringLiteral("%1 is a symbolic link; a run's directories are its own: remove it, or pass another --out").arg(path);
    if (!S_ISDIR(st.st_mode)) return QStringLiteral("%1 exists but is not a directory").arg(path);
    if (st.st_uid != ::geteuid() || (st.st_mode & 022) != 0)
        return QStringLiteral(
                   "%1 belongs to another user or others may write in it (owner %2, mode %3): a run's "
                   "directory must be yours alone; pass another --out")
            .arg(path)
            .arg(st.st_uid)
            .arg(QString::number(st.st_mode & 07777, 8));
    return {};
}

QString checkOwnDirectoriesBelow(const QString& path, const QString& root) {
    const QString top = QDir::cleanPath(root);
    for (QString dir = QDir::cleanPath(path); dir.startsWith(top + QLatin1Char('/')); dir = QFileInfo(dir).path())
        if (const QString e = checkOwnDirectory(dir); !e.isEmpty()) return e;
    return {};
}

QString checkFoldersAboveAreSafe(const QString& path) {
    // The folders as they really are: the nearest one that exists, with links resolved.
    QString above = QFileInfo(QFileInfo(path).absoluteFilePath()).path();
    if (QFileInfo::exists(path)) above = QFileInfo(QFileInfo(path).canonicalFilePath()).path();
    while (!QFileInfo::exists(above) && above != QFileInfo(above).path()) above = QFileInfo(above).path();
    for (QString dir = QFileInfo(above).canonicalFilePath(); !dir.isEmpty(); dir = QFileInfo(dir).path()) {
        struct stat st {};
        if (::stat(QFile::encodeName(dir).constData(), &st) != 0)
            return QStringLiteral("cannot check %1: %2").arg(dir, systemErrorText(errno));
        const bool othersMayRename = (st.st_mode & 022) != 0 && (st.st_mode & S_ISVTX) == 0;
        if ((st.st_uid != 0 && st.st_uid != ::geteuid()) || othersMayRename)
            return QStringLiteral(
                       "%1 belongs to another user or others may rename what it holds (owner %2, mode "
                       "%3): a run directory in it could be swapped for theirs; choose a folder of yours "
                       "for --out")
                .arg(dir)
                .arg(st.st_uid)
                .arg(QString::number(st.st_mode & 07777, 8));
        if (dir == QFileInfo(dir).path()) break;
    }
    return {};
}

QString createPrivateFile(const QString& path, unsigned mode) {
    const QByteArray native = QFile::encodeName(path);
    const int fd = ::open(native.constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd < 0) {
        if (errno == EEXIST) return {};
        return QStringLiteral("cannot create %1: %2").arg(path, systemErrorText(errno));
    }
    QString error;
    if (::fchmod(fd, mode) != 0)  // open's mode is masked by the umask
        error = QStringLiteral("cannot set the permissions of %1: %2").arg(path, systemErrorText(errno));
    ::close(fd);
    return error;
}

QString writeFileAtomically(const QString& path, const QByteArray& bytes, unsigned mode) {
    QByteArray temporary = QFile::encodeName(path) + ".tmp-XXXXXX";
    const int fd = ::mkstemp(temporary.data());  // created 0600 whatever the umask
    if (fd < 0) return QStringLiteral("cannot write %1: %2").arg(path, systemErrorText(errno));
    auto fail = [&](int errnum) {
        ::close(fd);
        ::unlink(temporary.constData());
        return QStringLiteral("cannot write %1: %2").arg(path, systemErrorText(errnum));
    };
    if (::fchmod(fd, mode) != 0) return fail(errno);
    for (qint64 done = 0; done < bytes.size();) {
        const ssize_t n = ::write(fd, bytes.constData() + done, size_t(bytes.size() - done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return fail(n < 0 ? errno : EIO);
        done += n;
    }
    if (::fsync(fd) != 0) return fail(errno);  // a full disk may show only here (delayed allocation)
    if (::close(fd) != 0) {
        const int errnum = errno;
        ::unlink(temporary.constData());
        return QStringLiteral("cannot write %1: %2").arg(path, systemErrorText(errnum));
    }
    if (::rename(temporary.constData(), QFile::encodeName(path).constData()) != 0) {
        const int errnum = errno;
        ::unlink(temporary.constData());
        return QStringLiteral("cannot write %1: %2").arg(path, systemErrorText(errnum));
    }
    // The rename is durable once the directory is synced; a failure here loses nothing written.
    const int dir = ::open(QFile::encodeName(QFileInfo(path).absolutePath()).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
        ::fsync(dir);
        ::close(dir);
    }
    return {};
}

QString writeUserFile(const QString& path, const QByteArray& bytes) {
    unsigned mode = 0644;
    if (struct stat existing; ::stat(QFile::encodeName(path).constData(), &existing) == 0) {
        if (!S_ISREG(existing.st_mode))
            return QStringLiteral(
                       "cannot write %1: it is not a regular file (a folder, a device or a pipe); "
                       "choose a file name")
                .arg(path);
        mode = existing.st_mode & 07777;
    }
    return writeFileAtomically(path, bytes, mode);
}

}  // namespace hips
