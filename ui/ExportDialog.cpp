#include "ExportDialog.h"

#include "StudioSettings.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QRegularExpression>

namespace hips {

QString askExportPath(QWidget* parent, const QString& title, const QString& fileName, const QString& filter,
                      const QString& defaultSuffix) {
    QFileDialog dialog(parent, title, StudioSettings::exportFolder(), filter);
    dialog.setObjectName(QStringLiteral("exportDialog"));
    dialog.setAcceptMode(QFileDialog::AcceptSave);
    dialog.setDefaultSuffix(defaultSuffix);
    dialog.selectFile(fileName);
    if (dialog.exec() != QDialog::Accepted || dialog.selectedFiles().isEmpty()) return {};
    const QString path = dialog.selectedFiles().first();
    StudioSettings::setExportFolder(QFileInfo(path).absolutePath());
    return path;
}

QString reportFileName(qint64 run, const QString& runName) {
    QString name = runName;
    name.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_-]+")), QStringLiteral("-"));
    name = name.left(40);
    while (name.startsWith('-')) name.remove(0, 1);
    while (name.endsWith('-')) name.chop(1);
    return name.isEmpty() ? QStringLiteral("run%1.pdf").arg(run) : QStringLiteral("run%1-%2.pdf").arg(run).arg(name);
}

}  // namespace hips
