#include "StudioSettings.h"

#include <QDir>
#include <QSettings>
#include <QStandardPaths>

namespace hips {

namespace key {
constexpr const char* kLanguage = "language";
constexpr const char* kRecent = "recent";
constexpr const char* kExportFolder = "export/folder";
constexpr const char* kGeometry = "window/geometry";
constexpr const char* kState = "window/state";
constexpr const char* kTab = "window/tab";
}  // namespace key

QString StudioSettings::language() {
    return QSettings().value(key::kLanguage, QStringLiteral("en")).toString();
}
void StudioSettings::setLanguage(const QString& locale) {
    QSettings().setValue(key::kLanguage, locale);
}

QStringList StudioSettings::recentFiles() {
    return QSettings().value(key::kRecent).toStringList();
}

void StudioSettings::addRecentFile(const QString& path) {
    QStringList recent = recentFiles();
    recent.removeAll(path);
    recent.prepend(path);
    QSettings().setValue(key::kRecent, recent.mid(0, kMaxRecent));
}

QString StudioSettings::exportFolder() {
    const QString folder = QSettings().value(key::kExportFolder).toString();
    return !folder.isEmpty() && QDir(folder).exists() ? folder : documentsFolder();
}

QString StudioSettings::documentsFolder() {
    const QString documents = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    return QDir(documents).exists() ? documents : QDir::homePath();
}

void StudioSettings::setExportFolder(const QString& folder) {
    QSettings().setValue(key::kExportFolder, folder);
}

StudioSettings::Window StudioSettings::window() {
    QSettings s;
    return {s.value(key::kGeometry).toByteArray(), s.value(key::kState).toByteArray(), s.value(key::kTab, 0).toInt()};
}

void StudioSettings::setWindow(const Window& window) {
    QSettings s;
    s.setValue(key::kGeometry, window.geometry);
    s.setValue(key::kState, window.state);
    s.setValue(key::kTab, window.tab);
}

}  // namespace hips
