#pragma once
// Where a run keeps what its roles print: logs/<party>-<role>.log, one file per node, each kept
// to kBytes (the older part moves to <name>.log.1). The controller writes them in the run
// directory, and the agent of a host the controller reached over SSH writes the same files in its
// own run folder, so a role's output survives on its host whatever happens to the controller.
// Every write is checked; a line that cannot be appended whole is taken back, so a file never ends
// in half a line that later text would be glued to.
#include <QHash>
#include <QString>
#include <functional>
#include <memory>

namespace hips {

// A file opened for appending whole lines (0600, never through a symbolic link). A write that
// fails part-way (a full disk) is cut back to the last whole line, and the file is closed to
// later lines: each later append returns the first error.
class AppendFile {
public:
    explicit AppendFile(QString path);
    ~AppendFile();
    AppendFile(const AppendFile&) = delete;
    AppendFile& operator=(const AppendFile&) = delete;

    QString open();  // an error text naming the file and the cause, empty on success
    QString append(const QByteArray& bytes);
    qint64 size() const { return m_size; }  // the end of the last whole line
    // What makes the lines appended so far durable (fdatasync; an error text naming the file, empty
    // on success). It holds a descriptor of its own, so another thread may call it, even after this
    // file is closed. Empty while the file is not open.
    std::function<QString()> durability() const;

private:
    QString fail(int errnum, const QString& more = {});
    QString m_path;
    int m_fd = -1;
    qint64 m_size = 0;
    QString m_error;
};

class RoleLogFiles {
public:
    explicit RoleLogFiles(QString logsDir = {}) : m_dir(std::move(logsDir)) {}
    void setDirectory(const QString& logsDir);  // (closes the files open in the last one)
    const QString& directory() const { return m_dir; }

    // Appends `line` and a newline to `node`'s file; an error text naming the file, empty on success.
    QString append(const QString& node, const QString& line);

    // A node's file name: "party1/worker0" → "party1-worker0.log".
    static QString fileName(const QString& node);
    // Past this size a log moves to <name>.log.1 (replacing the one there) and a new one starts,
    // so a role that prints without end cannot fill the disk.
    static constexpr qint64 kBytes = 16 << 20;

private:
    QString m_dir;
    QHash<QString, std::shared_ptr<AppendFile>> m_files;
};

}  // namespace hips
