#include "ChartExport.h"

#include "ExportDialog.h"

#include <QCoreApplication>
#include <QMenu>
#include <QMessageBox>
#include <QRegularExpression>
#include <QToolButton>

namespace hips {

// (The strings keep LiveChart's context, where they were first translated.)
QToolButton* chartExportButton(QWidget* chart, std::function<QString()> title,
                               std::function<QString(const QString& format, const QString& path)> save) {
    auto* button = new QToolButton;
    button->setObjectName(QStringLiteral("export_chart"));
    button->setText(QCoreApplication::translate("LiveChart", "Export"));
    button->setToolTip(QCoreApplication::translate("LiveChart", "Save this chart as a PNG picture, or its points as CSV"));
    button->setPopupMode(QToolButton::InstantPopup);
    auto* menu = new QMenu(button);
    const auto exportAs = [chart, title, save](const QString& format) {
        QString base = title().section(':', 0, 0).toLower();
        base.replace(QRegularExpression(QStringLiteral("[^a-z0-9]+")), QStringLiteral("-"));
        const QString path = askExportPath(chart, QCoreApplication::translate("LiveChart", "Export chart"), base + '.' + format,
                                           format == QLatin1String("png") ? QCoreApplication::translate("LiveChart", "PNG pictures (*.png)")
                                                                          : QCoreApplication::translate("LiveChart", "CSV files (*.csv)"),
                                           format);
        if (path.isEmpty()) return;
        if (const QString error = save(format, path); !error.isEmpty())
            QMessageBox::warning(chart, QCoreApplication::translate("LiveChart", "Export chart"), error);
    };
    menu->addAction(QCoreApplication::translate("LiveChart", "Save as PNG…"), chart, [exportAs] { exportAs(QStringLiteral("png")); });
    menu->addAction(QCoreApplication::translate("LiveChart", "Save points as CSV…"), chart,
                    [exportAs] { exportAs(QStringLiteral("csv")); });
    button->setMenu(menu);
    return button;
}

}  // namespace hips
