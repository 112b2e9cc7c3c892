#pragma once
// The save dialog of every export (reports, charts): it opens where the last export went (the
// user's documents folder the first time, not wherever the studio was started from), proposes a
// name, and gives a name typed without an extension the default one.
#include <QString>

class QWidget;

namespace hips {

// The path the user chose, or empty when cancelled. `fileName` is proposed, `filter` lists the
// formats ("Reports (*.pdf *.html)"), `defaultSuffix` ("pdf") ends a bare name.
QString askExportPath(QWidget* parent, const QString& title, const QString& fileName, const QString& filter,
                      const QString& defaultSuffix);

// A run's report file name: "run3-default.pdf" (the run's name reduced to letters, digits, - and _).
QString reportFileName(qint64 run, const QString& runName);

}  // namespace hips
