#include "RoleLogFiles.h"

#include "PrivateFiles.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace hips {

AppendFile::AppendFile(QString path) : m_path(std::move(path)) {}

AppendFile::~AppendFile() {
    if (m_fd >= 0) ::close(m_fd);
}

QString AppendFile::open() {
    // O_NOFOLLOW: a link planted in logs/ would have the run append to a file it points at.
    m_fd = ::open(QFile::encodeName(m_path).constData(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, kPrivateFileMode);
    struct stat st {};
    if (m_fd < 0 || ::fstat(m_fd, &st) != 0) return fail(errno);
    if ((st.st_mode & 0777) != kPrivateFileMode && ::fchmod(m_fd, kPrivateFileMode) != 0) return fail(errno);
    m_size = st.st_size;
    return {};
}

QString AppendFile::append(const QByteArray& bytes) {
    if (!m_error.isEmpty()) return m_error;
    if (m_fd < 0) return fail(EBADF);
    for (qint64 done = 0; done < bytes.size();) {
        const ssize_t n = ::write(m_fd, bytes.constData() + done, size_t(bytes.size() - done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            const int errnum = n < 0 ? errno : EIO;
            if (done > 0 && ::ftruncate(m_fd, off_t(m_size)) != 0)
                return fail(errnum, QStringLiteral(" (and its last line could not be taken back)"));
            return fail(errnum);
        }
        done += n;
    }
    m_size += bytes.size();
    return {};
}

std::function<QString()> AppendFile::durability() const {
    if (m_fd < 0) return {};
    const auto fail = [path = m_path](int errnum) {
        return QStringLiteral("cannot make %1 durable: %2").arg(path, systemErrorText(errnum));
    };
    const int fd = ::fcntl(m_fd, F_DUPFD_CLOEXEC, 0);
    if (fd < 0) return [error = fail(errno)] { return error; };
    // Its folder too, once: the file may be new, and its name is what a power cut would lose then.
    const int folder = ::open(QFile::encodeName(QFileInfo(m_path).absolutePath()).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (folder < 0) {
        const QString error = fail(errno);  // (before close() may change errno)
        ::close(fd);
        return [error] { return error; };
    }
    struct Descriptors {
        int file, folder;
        std::atomic<bool> folderSynced{false};
        ~Descriptors() {
            ::close(file);
            ::close(folder);
        }
    };
    const auto own = std::make_shared<Descriptors>();
    own->file = fd;
    own->folder = folder;
    return [own, fail] {
        int r;
        while ((r = ::fdatasync(own->file)) != 0 && errno == EINTR) {
        }
        if (r != 0) return fail(errno);
        if (!own->folderSynced.load() && ::fsync(own->folder) != 0) return fail(errno);
        own->folderSynced = true;
        return QString();
    };
}

QString AppendFile::fail(int errnum, const QString& more) {
    m_error = QStringLiteral("cannot write %1: %2%3").arg(m_path, systemErrorText(errnum), more);
    if (m_fd >= 0) ::close(m_fd);
    m_fd = -1;
    return m_error;
}

void RoleLogFiles::setDirectory(const QString& logsDir) {
    m_dir = logsDir;
    m_files.clear();
}

QString RoleLogFiles::fileName(const QString& node) {
    return QString(node).replace('/', '-') + QStringLiteral(".log");
}

QString RoleLogFiles::append(const QString& node, const QString& line) {
    const QByteArray text = line.toUtf8() + '\n';
    auto& file = m_files[node];
    const QString path = QDir(m_dir).filePath(fileName(node));
    if (file && file->size() > 0 && file->size() + text.size() > kBytes) {
        file.reset();  // (closed before it moves)
        if (::rename(QFile::encodeName(path).constData(), QFile::encodeName(path + QStringLiteral(".1")).constData()) != 0)
            return QStringLiteral("cannot move %1 to %1.1: %2").arg(path, systemErrorText(errno));
    }
    if (!file) {
        file = std::make_shared<AppendFile>(path);
        if (const QString e = file->open(); !e.isEmpty()) return e;
    }
    return file->append(text);
}

}  // namespace hips
