#pragma once
// Text that came from a file (a history, a topology: names, reasons, paths) shown where Qt guesses
// or takes rich text: tooltips and the charts' legends. A name that begins with a tag would be
// drawn as markup (a run named "<font color=white>…" could hide what a box asks about).
#include <QString>

namespace hips {

// For a tooltip: rich text that draws `text` as it is, its line breaks kept.
inline QString literalToolTip(const QString& text) {
    return QStringLiteral("<p style='white-space:pre'>") + text.toHtmlEscaped() + QStringLiteral("</p>");
}

// For a chart's series name (Qt Charts draws legend labels as HTML).
inline QString literalLegend(const QString& name) {
    return name.toHtmlEscaped();
}

}  // namespace hips
