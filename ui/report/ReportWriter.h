#pragma once
// Writes a run report in the format its file name's extension names:
//   .html  one self-contained file, images inline (data: URIs)
//   .pdf   the same document through QTextDocument and QPdfWriter
//   .csv   the metrics in long format (run_id,t,source,round,name,value)
//   .json  every row and derived figure
// HTML and PDF need a QGuiApplication (charts and diagram are drawn offscreen).
#include "RunReport.h"

namespace hips {

QStringList reportFormats();  // "html", "pdf", "csv", "json"

// Returns an empty string on success, else what went wrong and what to do.
QString writeReport(const RunReport& report, const QString& path);

}  // namespace hips
