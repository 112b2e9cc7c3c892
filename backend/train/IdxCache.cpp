#include "IdxCache.h"

#include "PrivateFiles.h"
#include "TrainError.h"

#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <mutex>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>
#include <zlib.h>

namespace hips {

namespace {

QByteArray gunzip(const QString& path) {
    gzFile f = gzopen(path.toLocal8Bit().constData(), "rb");
    if (!f) throw TrainError("cannot open " + path.toStdString());
    QByteArray out;
    QByteArray chunk(1 << 20, Qt::Uninitialized);
    int n = 0;
    while ((n = gzread(f, chunk.data(), unsigned(chunk.size()))) > 0) out.append(chunk.constData(), n);
    const bool failed = n < 0;
    gzclose(f);
    if (failed) throw TrainError(path.toStdString() + " is not a valid gzip file");
    return out;
}

// Holds an exclusive lock on `path` for its lifetime (released when the process dies, too).
class FileLock {
public:
    explicit FileLock(const QString& path) : m_fd(::open(QFile::encodeName(path).constData(), O_RDWR | O_CREAT | O_CLOEXEC, 0600)) {
        if (m_fd < 0 || ::flock(m_fd, LOCK_EX) != 0)
            throw TrainError("cannot lock " + path.toStdString() + ": " + systemErrorText(errno).toStdString());
    }
    ~FileLock() { ::close(m_fd); }
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;

private:
    int m_fd;
};

// The decoded file's name carries the source's size and its gzip trailer (the CRC-32 and length
// of the decoded data): a changed source gets a new cache entry, never a stale one.
QString cachedPathFor(const QString& gzPath) {
    QFile source(gzPath);
    if (!source.open(QIODevice::ReadOnly) || source.size() < 18 || !source.seek(source.size() - 8))
        throw TrainError(gzPath.toStdString() + " is not a valid gzip file");
    const QByteArray trailer = source.read(8).toHex();
    return QDir(idxCacheDir())
        .filePath(
            QStringLiteral("%1-%2-%3.idx").arg(QFileInfo(gzPath).completeBaseName()).arg(source.size()).arg(QString::fromLatin1(trailer)));
}

}  // namespace

QString idxCacheDir() {
    const QString base = qEnvironmentVariableIsEmpty("XDG_CACHE_HOME") ? QDir::homePath() + QStringLiteral("/.cache")
                                                                       : qEnvironmentVariable("XDG_CACHE_HOME");
    return base + QStringLiteral("/hips-studio/idx");
}

std::shared_ptr<const MappedIdx> MappedIdx::open(const QString& gzPath) {
    if (const QString e = makePrivateDirectory(idxCacheDir()); !e.isEmpty()) throw TrainError(e.toStdString());
    const QString cached = cachedPathFor(gzPath);
    static std::mutex lock;
    static QHash<QString, std::shared_ptr<const MappedIdx>> mapped;
    std::lock_guard<std::mutex> held(lock);
    std::shared_ptr<const MappedIdx>& entry = mapped[cached];
    if (!entry) entry = map(gzPath, cached);
    return entry;
}

std::shared_ptr<const MappedIdx> MappedIdx::map(const QString& gzPath, const QString& cached) {
    if (!QFileInfo::exists(cached)) {
        FileLock lock(cached + QStringLiteral(".lock"));
        if (!QFileInfo::exists(cached))  // another trainer may have decoded it while we waited
            if (const QString e = writeFileAtomically(cached, gunzip(gzPath)); !e.isEmpty()) throw TrainError(e.toStdString());
    }
    auto mapped = std::shared_ptr<MappedIdx>(new MappedIdx);
    mapped->m_file.setFileName(cached);
    if (!mapped->m_file.open(QIODevice::ReadOnly))
        throw TrainError("cannot read " + cached.toStdString() + ": " + mapped->m_file.errorString().toStdString());
    mapped->m_size = mapped->m_file.size();
    mapped->m_data = mapped->m_size > 0 ? mapped->m_file.map(0, mapped->m_size) : nullptr;
    if (!mapped->m_data) throw TrainError("cannot map " + cached.toStdString() + " (empty or unreadable)");
    return mapped;
}

}  // namespace hips
