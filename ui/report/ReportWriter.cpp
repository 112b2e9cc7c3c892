#include "ReportWriter.h"

#include "PrivateFiles.h"
#include "ReportHtml.h"
#include "TopologyDiagram.h"
#include "TopologyReader.h"

#include <QBuffer>
#include <QFileInfo>
#include <QPdfWriter>
#include <QAbstractTextDocumentLayout>
#include <QFontMetricsF>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <cmath>
#include <QUrl>

namespace hips {

namespace {

ReportImages renderImages(const RunReport& report) {
    ReportImages images;
    const TopologyLoad load = TopologyReader::readJson(report.topologyJson);
    if (load.ok()) images.topology = drawTopologyDiagram(*load.topology);
    images.charts = renderReportCharts(report);
    return images;
}

QByteArray png(const QImage& image) {
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    image.save(&buffer, "PNG");
    return bytes;
}

QByteArray htmlReport(const RunReport& report) {
    const ReportImages images = renderImages(report);
    const QString html = reportHtml(
        report, images,
        [](const QString&, const QImage& image) {
            return QStringLiteral("data:image/png;base64,") + QString::fromLatin1(png(image).toBase64());
        },
        ReportStyle{720, true, 720});
    return html.toUtf8();
}

// A section heading at the foot of a page, its section on the next ("Settings" above one of its
// rows), starts the next page instead. Laid out in order: each break moves what follows.
void keepHeadingsWithTheirSections(QTextDocument& doc) {
    const qreal page = doc.pageSize().height();
    const qreal keep = 4 * QFontMetricsF(doc.defaultFont()).lineSpacing();  // the heading and a few lines
    for (QTextBlock block = doc.begin(); block.isValid(); block = block.next()) {
        if (block.blockFormat().headingLevel() == 0) continue;
        const QRectF at = doc.documentLayout()->blockBoundingRect(block);
        if (page - std::fmod(at.top(), page) >= at.height() + keep) continue;
        QTextBlockFormat breakBefore;
        breakBefore.setPageBreakPolicy(QTextFormat::PageBreak_AlwaysBefore);
        QTextCursor(block).mergeBlockFormat(breakBefore);
    }
}

// QTextDocument lays the same HTML out on A4 pages; images are document resources.
QString writePdf(const RunReport& report, const QString& path) {
    const ReportImages images = renderImages(report);
    QTextDocument doc;
    QFont font(QStringLiteral("DejaVu Sans"));
    font.setPointSizeF(9);
    // Any letter spacing turns ligatures off, so that text copied from the PDF (and pdftotext)
    // reads "finished", not "ﬁnished".
    font.setLetterSpacing(QFont::AbsoluteSpacing, 0.05);  // 0.01 rounds to none
    doc.setDefaultFont(font);
    const QString html = reportHtml(
        report, images,
        [&doc](const QString& key, const QImage& image) {
            doc.addResource(QTextDocument::ImageResource, QUrl(key), image);
            return key;
        },
        ReportStyle{620, false, 340, 380});
    doc.setHtml(html);
    // Pages of the A4 text area's proportions (180 × 267 mm): print() then breaks pages where
    // they fall on paper, and the diagram fits under the summary on the first page.
    doc.setPageSize(QSizeF(620, 620.0 * 267 / 180));
    keepHeadingsWithTheirSections(doc);
    QBuffer pdf;  // written whole below: QPdfWriter does not say when the disk is full
    pdf.open(QIODevice::WriteOnly);
    QPdfWriter writer(&pdf);
    writer.setTitle(QObject::tr("Run report: %1").arg(report.run.name));
    writer.setCreator(QStringLiteral("HiPS Studio"));
    writer.setPageSize(QPageSize(QPageSize::A4));
    writer.setPageMargins(QMarginsF(15, 15, 15, 15), QPageLayout::Millimeter);
    doc.print(&writer);
    if (pdf.data().isEmpty()) return QObject::tr("cannot write %1: the PDF came out empty").arg(path);
    return writeUserFile(path, pdf.data());
}

}  // namespace

QStringList reportFormats() {
    return {"html", "pdf", "csv", "json"};
}

QString writeReport(const RunReport& report, const QString& path) {
    const QString format = QFileInfo(path).suffix().toLower();
    if (!reportFormats().contains(format))
        return QObject::tr("cannot tell the report format from '%1': end the file name with .%2")
            .arg(path, reportFormats().join(QStringLiteral(", .")));
    if (const QFileInfo dir(QFileInfo(path).absolutePath()); !dir.isDir() || !dir.isWritable())
        return QObject::tr("cannot write %1: the folder %2 does not exist or is not writable").arg(path, dir.filePath());
    if (format == QLatin1String("csv")) return writeUserFile(path, report.toCsv());
    if (format == QLatin1String("json")) return writeUserFile(path, report.toJson());
    if (format == QLatin1String("html")) return writeUserFile(path, htmlReport(report));
    return writePdf(report, path);
}

}  // namespace hips
