#include "ReaderSupport.h"

#include "DataReaders.h"

#include "PrivateFiles.h"

#include <QFile>
#include <QFileInfo>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>
#include <zlib.h>

namespace hips {

namespace {

constexpr qint64 kZlibChunk = qint64(1) << 30;  // zlib counts in 32-bit uInt

// Inflates gzip `in` until it ends or `cap` bytes are out; `status` says which.
QByteArray inflateGzip(const QByteArray& in, const QString& what, qint64 cap, int* status) {
    z_stream z{};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) fail(QStringLiteral("zlib could not start inflating %1").arg(what));
    QByteArray out;
    qint64 produced = 0, consumed = 0;
    *status = Z_OK;
    while (*status == Z_OK && produced < cap) {
        if (produced == out.size()) out.resize(std::min(cap, std::max<qint64>(qint64(1) << 16, 2 * out.size())));
        if (z.avail_in == 0 && consumed < in.size()) {
            const qint64 n = std::min(kZlibChunk, in.size() - consumed);
            z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.constData() + consumed));
            z.avail_in = uInt(n);
            consumed += n;
        }
        z.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
        z.avail_out = uInt(std::min(kZlibChunk, out.size() - produced));
        const uInt room = z.avail_out;
        *status = inflate(&z, Z_NO_FLUSH);
        produced += room - z.avail_out;
    }
    inflateEnd(&z);
    out.resize(produced);
    return out;
}

constexpr qint64 kPartBytes = qint64(32) << 20;  // big files are read in parts of at least this, on threads of their own

[[noreturn]] void damaged(const QString& what, int status) {
    fail(QStringLiteral("%1 is not a whole gzip file (%2); download or unpack it again")
             .arg(what, status == Z_DATA_ERROR ? QStringLiteral("its data is damaged") : QStringLiteral("it is cut short")));
}

}  // namespace

void fail(const QString& message) {
    throw DataError(message.toStdString());
}

QString quoted(const char* begin, const char* end) {
    QString out = QString::fromUtf8(begin, std::min<qsizetype>(end - begin, 40));
    for (QChar& c : out)
        if (c.unicode() < 0x20) c = QLatin1Char('?');
    return end - begin > 40 ? out + QStringLiteral("...") : out;
}

ReadOnlyFile::ReadOnlyFile(const QString& path) : m_path(path) {
    if (!QFileInfo(path).isFile())
        fail(QStringLiteral("%1 does not exist or is not a file; check the source's path and options").arg(path));
    m_fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_CLOEXEC);
    if (m_fd < 0) fail(QStringLiteral("cannot read %1 (%2); check its permissions").arg(path, systemErrorText(errno)));
    struct stat info;
    if (::fstat(m_fd, &info) == 0) m_size = qint64(info.st_size);
}

ReadOnlyFile::~ReadOnlyFile() {
    ::close(m_fd);
}

qint64 ReadOnlyFile::readAt(char* out, qint64 offset, qint64 n) const {
    qint64 done = 0;
    while (done < n) {
        const ssize_t got = ::pread(m_fd, out + done, size_t(n - done), off_t(offset + done));
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) fail(QStringLiteral("cannot read %1 (%2)").arg(m_path, systemErrorText(errno)));
        if (got == 0) break;
        done += got;
    }
    return done;
}

qint64 ReadOnlyFile::lineEndAfter(qint64 offset) const {
    char window[4096];
    for (qint64 at = offset; at < m_size;) {
        const qint64 n = readAt(window, at, qint64(sizeof window));
        if (n <= 0) break;
        if (const void* eol = std::memchr(window, '\n', size_t(n))) return at + (static_cast<const char*>(eol) - window) + 1;
        at += n;
    }
    return m_size;
}

QByteArray readWholeFile(const QString& path) {
    const ReadOnlyFile file(path);
    const qint64 size = file.size();
    // One allocation of the file's size, filled by up to 4 threads a part: the copy from the page
    // cache and the first touch of the new memory cost as much as parsing a big file.
    QByteArray bytes(size, Qt::Uninitialized);
    const int parts = int(std::clamp<qint64>(size / kPartBytes, 1, std::clamp(int(std::thread::hardware_concurrency()), 1, 4)));
    std::vector<qint64> got(static_cast<size_t>(parts), 0);
    std::vector<std::string> errors(static_cast<size_t>(parts));
    const auto readPart = [&](int i) {
        const qint64 begin = size * i / parts, end = size * (i + 1) / parts;
        try {
            got[size_t(i)] = file.readAt(bytes.data() + begin, begin, end - begin);
        } catch (const DataError& e) {
            errors[size_t(i)] = e.what();
        }
    };
    std::vector<std::thread> pool;
    for (int i = 1; i < parts; ++i) pool.emplace_back(readPart, i);
    readPart(0);
    for (std::thread& t : pool) t.join();
    for (int i = 0; i < parts; ++i) {
        if (!errors[size_t(i)].empty()) throw DataError(errors[size_t(i)]);
        if (got[size_t(i)] != size * (i + 1) / parts - size * i / parts)
            fail(QStringLiteral("%1 changed while it was read; read it again once it is written whole").arg(path));
    }
    return bytes;
}

QByteArray gunzip(const QByteArray& bytes, const QString& what, qint64 limit) {
    int status = Z_OK;
    QByteArray out = inflateGzip(bytes, what, limit + 1, &status);  // one byte past the limit tells a longer stream
    if (out.size() > limit)
        fail(QStringLiteral("%1 inflates to more than the %2 bytes its header promises; it is not the file named, or damaged")
                 .arg(what)
                 .arg(limit));
    if (status != Z_STREAM_END) damaged(what, status);
    return out;
}

QByteArray gunzipPrefix(const QByteArray& bytes, const QString& what, qint64 n) {
    int status = Z_OK;
    QByteArray out = inflateGzip(bytes, what, n, &status);
    if (out.size() < n && status != Z_STREAM_END) damaged(what, status);
    return out;
}

}  // namespace hips
