#pragma once
// Shared by the readers: throwing DataError, reading files (whole, or a part at a time), and gzip.
#include <QByteArray>
#include <QString>

namespace hips {

[[noreturn]] void fail(const QString& message);
// Bytes of a file as an error message quotes them: at most 40 characters, control characters as '?'.
QString quoted(const char* begin, const char* end);

// A regular file open for reading; reads at an offset, from any thread. Throws DataError naming
// the file (and what to do) when it cannot be opened or read.
class ReadOnlyFile {
public:
    explicit ReadOnlyFile(const QString& path);
    ~ReadOnlyFile();
    ReadOnlyFile(const ReadOnlyFile&) = delete;
    ReadOnlyFile& operator=(const ReadOnlyFile&) = delete;

    const QString& path() const { return m_path; }
    qint64 size() const { return m_size; }  // when opened
    // Up to `n` bytes at `offset`; fewer only at the end of the file.
    qint64 readAt(char* out, qint64 offset, qint64 n) const;
    // Where the line holding `offset` ends: after its '\n', or the file's end.
    qint64 lineEndAfter(qint64 offset) const;

private:
    QString m_path;
    int m_fd = -1;
    qint64 m_size = 0;
};

// The bytes of `path`, read by up to 4 threads a part for big files.
QByteArray readWholeFile(const QString& path);
// A gzip stream inflated whole; refused (DataError naming `what`) when damaged, cut, or larger
// than `limit` bytes. The output grows only as data really inflates, so a small file claiming a
// huge size costs nothing.
QByteArray gunzip(const QByteArray& bytes, const QString& what, qint64 limit);
// Only the first `n` inflated bytes (fewer if the stream is shorter): a header to check before
// trusting it.
QByteArray gunzipPrefix(const QByteArray& bytes, const QString& what, qint64 n);

}  // namespace hips
