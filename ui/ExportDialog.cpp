#include "ExportDialog.h"

#include "StudioSettings.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QRegularExpression>

namespace hips {

QString askSavePath(QWidget* parent, const QString& title, const QString& folder, const QString& fileName, const QString& filter,
                    const QString& defaultSuffix) {
    QFileDialog dialog(parent, title, folder, filter);
    dialog.setObjectName(QStringLiteral("saveDialog"));
    dialog.setAcceptMode(QFileDialog::AcceptSave);
    dialog.setDefaultSuffix(defaultSuffix);
    dialog.selectFile(fileName);
    if (dialog.exec() != QDialog::Accepted || dialog.selectedFiles().isEmpty()) return {};
    return dialog.selectedFiles().first();
}

QString askExportPath(QWidget* parent, const QString& title, const QString& fileName, const QString& filter, const QString& defaultSuffix) {
    const QString path = askSavePath(parent, title, StudioSettings::exportFolder(), fileName, filter, defaultSuffix);
    if (!path.isEmpty()) StudioSettings::setExportFolder(QFileInfo(path).absolutePath());
    return path;
}

QString topologyFolder(const QString& documentPath) {
    for (const QString& path : QStringList{documentPath} + StudioSettings::recentFiles())
        if (!path.isEmpty() && QFileInfo(path).absoluteDir().exists()) return QFileInfo(path).absolutePath();
    return StudioSettings::documentsFolder();
}

QString fileStem(const QString& name) {
    QString stem = name;
    stem.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_-]+")), QStringLiteral("-"));
    stem = stem.left(40);
    while (stem.startsWith('-')) stem.remove(0, 1);
    while (stem.endsWith('-')) stem.chop(1);
    return stem;
}

QString reportFileName(qint64 run, const QString& runName) {
    const QString stem = fileStem(runName);
    return stem.isEmpty() ? QStringLiteral("run%1.pdf").arg(run) : QStringLiteral("run%1-%2.pdf").arg(run).arg(stem);
}

}  // namespace hips
