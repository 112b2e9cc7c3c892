// The Help menu's windows: the user guide, the keyboard shortcuts and About (MainWindow's; apart
// from the window's own workings).
#include "MainWindow.h"

#include "UserGuide.h"
#include "Versions.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QMenuBar>
#include <QMessageBox>
#include <QTableWidget>
#include <QVBoxLayout>
#include <functional>

namespace hips {

// The README and the docs/ pages, inside the app (UserGuide).
void MainWindow::showGuide() {
    showTextDialog(tr("HiPS Studio — user guide"), new UserGuide, QSize(900, 700));
}

// Every menu action's shortcut, read from the menus themselves (so the list is never out of
// date), and the canvas's mouse gestures.
QList<std::pair<QString, QString>> MainWindow::shortcutList() const {
    QList<std::pair<QString, QString>> rows;
    std::function<void(const QList<QAction*>&)> walk = [&](const QList<QAction*>& actions) {
        for (QAction* a : actions) {
            if (a->menu()) walk(a->menu()->actions());
            else if (!a->shortcut().isEmpty())
                rows.append({QString(a->text()).remove('&'), a->shortcut().toString(QKeySequence::NativeText)});
        }
    };
    walk(menuBar()->actions());
    rows.append({tr("Zoom the canvas"), tr("Ctrl+wheel")});
    rows.append({tr("Pan the canvas"), tr("Middle button, or Space+drag")});
    rows.append({tr("Zoom a chart / zoom out"), tr("Drag / right-click")});
    rows.append({tr("Edit a run's name, tags or notes"), tr("Double-click or F2 in History")});
    return rows;
}

void MainWindow::showShortcuts() {
    auto* table = new QTableWidget(0, 2);
    table->setObjectName(QStringLiteral("shortcuts"));
    table->setHorizontalHeaderLabels({tr("Action"), tr("Shortcut")});
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    for (const auto& [what, keys] : shortcutList()) {
        const int row = table->rowCount();
        table->insertRow(row);
        table->setItem(row, 0, new QTableWidgetItem(what));
        table->setItem(row, 1, new QTableWidgetItem(keys));
    }
    table->resizeColumnsToContents();
    table->horizontalHeader()->setStretchLastSection(true);
    showTextDialog(tr("Keyboard shortcuts"), table, QSize(520, 560));
}

void MainWindow::showTextDialog(const QString& title, QWidget* content, QSize size) {
    auto* dialog = new QDialog(this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(title);
    auto* layout = new QVBoxLayout(dialog);
    layout->addWidget(content);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
    layout->addWidget(buttons);
    dialog->resize(size);
    dialog->show();
}

void MainWindow::about() {
    QMessageBox::about(this, tr("About HiPS Studio"),
                       tr("<h3>HiPS Studio %1</h3><p>Train one model across parties with a two-layer parameter "
                          "server; only aggregates cross party boundaries.</p>"
                          "<table><tr><td>Qt</td><td>%2</td></tr><tr><td>LibTorch</td><td>%3</td></tr>"
                          "<tr><td>ZeroMQ</td><td>%4</td></tr><tr><td>libssh</td><td>%5</td></tr>"
                          "<tr><td>SQLite</td><td>%6</td></tr></table>")
                           .arg(QStringLiteral(HIPS_VERSION), versions::qt(), versions::libtorch(), versions::zeromq(), versions::libssh(),
                                versions::sqlite()));
}

}  // namespace hips
