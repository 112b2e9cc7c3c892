#pragma once
// What hips-studio remembers between sessions (QSettings), in one place: the key names live
// here and nowhere else.
#include <QByteArray>
#include <QString>
#include <QStringList>

namespace hips {

class StudioSettings {
public:
    static constexpr int kMaxRecent = 8;

    static QString language();  // "en" unless chosen
    static void setLanguage(const QString& locale);

    static QStringList recentFiles();  // newest first
    static void addRecentFile(const QString& path);

    // Where the last export (a report, a chart) was saved; the documents folder before any.
    static QString exportFolder();
    static QString documentsFolder();  // the user's documents folder, else the home folder
    static void setExportFolder(const QString& folder);

    struct Window {
        QByteArray geometry, state;  // empty: never saved
        int tab = 0;
    };
    static Window window();
    static void setWindow(const Window& window);
};

}  // namespace hips
