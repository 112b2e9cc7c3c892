#include "DataRoots.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStringList>

namespace hips {

namespace {

// The path as the file system resolves it; a path that does not exist yet keeps its clean form
// under its nearest existing folder's resolved one.
QString resolved(const QString& path) {
    QString head = QDir::cleanPath(path), tail;
    while (!head.isEmpty() && !QFileInfo::exists(head)) {
        const int slash = head.lastIndexOf(QLatin1Char('/'));
        if (slash <= 0) return QDir::cleanPath(path);
        tail = head.mid(slash) + tail;
        head = head.left(slash);
    }
    const QString canonical = QFileInfo(head).canonicalFilePath();
    return canonical.isEmpty() ? QDir::cleanPath(path) : canonical + tail;
}

bool inside(const QString& path, const QString& root) {
    return path == root || path.startsWith(root.endsWith(QLatin1Char('/')) ? root : root + QLatin1Char('/'));
}

}  // namespace

QString defaultDataRootsFile() {
    return QDir(QCoreApplication::applicationDirPath() + QStringLiteral("/..")).absoluteFilePath(QStringLiteral("data-roots"));
}

QString dataRootsProblem(const QString& path, const QString& rootsFile) {
    QFile file(rootsFile);
    if (!file.exists()) return {};
    if (!file.open(QIODevice::ReadOnly))
        return QStringLiteral("this host's list of data folders %1 cannot be read (%2); fix its permissions")
            .arg(rootsFile, file.errorString());
    const QString wanted = resolved(path);
    QStringList roots;
    for (const QByteArray& raw : file.readAll().split('\n')) {
        const QString line = QString::fromUtf8(raw.left(raw.indexOf('#') < 0 ? raw.size() : raw.indexOf('#'))).trimmed();
        if (line.isEmpty()) continue;
        if (!QDir::isAbsolutePath(line)) continue;  // (a relative line names no folder: ignored, never widened)
        roots << line;
        if (inside(wanted, resolved(line))) return {};
    }
    return QStringLiteral(
               "%1 is not in this host's data folders (%2, listed in %3): a host reads only what its operator "
               "lists there; check the topology's path, or add the folder to that file on this host")
        .arg(path, roots.isEmpty() ? QStringLiteral("none") : roots.join(QStringLiteral(", ")), rootsFile);
}

}  // namespace hips
