#pragma once
// The save dialog of every export (reports, charts): it opens where the last export went (the
// user's documents folder the first time, not wherever the studio was started from), proposes a
// name, and gives a name typed without an extension the default one.
#include <QString>

class QWidget;

namespace hips {

// A save dialog opened in `folder`: the path the user chose, or empty when cancelled. `fileName` is
// proposed, `filter` lists the formats ("Reports (*.pdf *.html)"), `defaultSuffix` ("pdf") ends a
// bare name.
QString askSavePath(QWidget* parent, const QString& title, const QString& folder, const QString& fileName, const QString& filter,
                    const QString& defaultSuffix);

// The same, opened where the last export went (StudioSettings::exportFolder), which it remembers.
QString askExportPath(QWidget* parent, const QString& title, const QString& fileName, const QString& filter, const QString& defaultSuffix);

// The folder a topology dialog opens in: the open document's, else the last one opened's, else
// the documents folder.
QString topologyFolder(const QString& documentPath);

// `name` as a file name without its extension: runs of anything but ASCII letters, digits, - and _
// become one "-" ("fedavg 2×4" → "fedavg-2-4"); empty when nothing is left.
QString fileStem(const QString& name);

// A run's report file name: "run3-default.pdf".
QString reportFileName(qint64 run, const QString& runName);

}  // namespace hips
