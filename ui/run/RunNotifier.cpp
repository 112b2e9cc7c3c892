#include "RunNotifier.h"

#include "RunController.h"

#include <QApplication>
#include <QSystemTrayIcon>
#include <QWidget>

namespace hips {

RunNotifier::RunNotifier(QWidget* window) : QObject(window), m_window(window) {}

void RunNotifier::runEnded(const QString& runName, const RunSummary& summary, const QString& outcome) {
    if (m_window->isActiveWindow()) return;  // the Run tab and the status bar say it already
    m_lastTitle = summary.ok        ? tr("Run %1 finished").arg(runName)
                  : summary.stopped ? tr("Run %1 stopped").arg(runName)
                                    : tr("Run %1 failed").arg(runName);
    m_lastText = outcome;
    if (QSystemTrayIcon::isSystemTrayAvailable()) {
        if (!m_tray) {
            m_tray = new QSystemTrayIcon(m_window->windowIcon(), this);
            m_tray->setToolTip(QStringLiteral("HiPS Studio"));
            connect(m_tray, &QSystemTrayIcon::messageClicked, m_window, [this] {
                m_window->showNormal();
                m_window->raise();
                m_window->activateWindow();
            });
        }
        m_tray->show();
        const auto icon = summary.ok        ? QSystemTrayIcon::Information
                          : summary.stopped ? QSystemTrayIcon::Warning
                                            : QSystemTrayIcon::Critical;
        m_tray->showMessage(m_lastTitle, m_lastText, icon, 15000);
    }
    QApplication::alert(m_window);
}

}  // namespace hips
