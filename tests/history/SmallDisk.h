#pragma once
// A small tmpfs mounted for one test (the tests run as root), to fill a disk or make it read-only.
#include <QDir>
#include <QFile>
#include <QString>
#include <cerrno>
#include <cstring>
#include <sys/mount.h>

class SmallDisk {
public:
    explicit SmallDisk(const QString& path, const char* options = "size=2m,mode=0755") : m_path(path) {
        QDir().mkpath(path);
        m_mounted = ::mount("tmpfs", QFile::encodeName(path).constData(), "tmpfs", 0, options) == 0;
        if (!m_mounted) m_why = QStringLiteral("cannot mount a tmpfs at %1: %2").arg(path, QString::fromLocal8Bit(std::strerror(errno)));
    }
    ~SmallDisk() {
        if (m_mounted) ::umount2(QFile::encodeName(m_path).constData(), MNT_DETACH);
    }
    SmallDisk(const SmallDisk&) = delete;
    SmallDisk& operator=(const SmallDisk&) = delete;

    bool mounted() const { return m_mounted; }
    const QString& why() const { return m_why; }  // why it is not mounted
    QString filePath(const QString& name) const { return m_path + '/' + name; }
    bool makeReadOnly() { return ::mount(nullptr, QFile::encodeName(m_path).constData(), nullptr, MS_REMOUNT | MS_RDONLY, nullptr) == 0; }

private:
    QString m_path;
    bool m_mounted = false;
    QString m_why;
};
