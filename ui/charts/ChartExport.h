#pragma once
// Every chart's Export button: a menu to save the chart as a PNG picture or its points as CSV,
// through the export dialog, with the failure (a full disk, a folder one cannot write) shown.
#include <QString>
#include <functional>

class QToolButton;
class QWidget;

namespace hips {

// `title()` names the file proposed ("Test accuracy: …" → test-accuracy.png); `save(format, path)`
// writes "png" or "csv" and returns what went wrong, or nothing.
QToolButton* chartExportButton(QWidget* chart, std::function<QString()> title,
                               std::function<QString(const QString& format, const QString& path)> save);

}  // namespace hips
