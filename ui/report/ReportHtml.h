#pragma once
// The report as HTML in the subset both browsers and QTextDocument render: tables, images,
// headings. Images are referred to by the names `imageSource` returns.
#include "ReportCharts.h"

#include <functional>

namespace hips {

struct ReportImages {
    QImage topology;
    QList<RenderedChart> charts;
};

struct ReportStyle {
    int imageWidth = 720;  // logical pixels
    bool forBrowser = true;  // false: QTextDocument sets the body font itself
    int topologyWidth = 720;  // the diagram (on a PDF page: small enough to stay on the first page)
    int topologyHeight = 0;  // and no taller than this (0: any height), so that a tall one stays too
};

// `imageSource(key, image)` returns the src attribute for an image (a data: URI, or the name
// of a document resource); keys are "topology" and "chart0".."chartN".
QString reportHtml(const RunReport& report, const ReportImages& images,
                   const std::function<QString(const QString& key, const QImage& image)>& imageSource, ReportStyle style);

}  // namespace hips
