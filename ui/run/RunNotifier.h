#pragma once
// Tells the user that a run ended while they looked elsewhere: a desktop notification through the
// system tray where the desktop has one, with the outcome, and the window's taskbar entry asks
// for attention. Nothing is said to a user who is looking at the window.
#include <QObject>
#include <QString>

class QSystemTrayIcon;
class QWidget;

namespace hips {

struct RunSummary;

class RunNotifier : public QObject {
    Q_OBJECT
public:
    explicit RunNotifier(QWidget* window);
    // `outcome`: RunPanel::outcomeText(summary).
    void runEnded(const QString& runName, const RunSummary& summary, const QString& outcome);
    QString lastTitle() const { return m_lastTitle; }  // what was last told (empty: nothing yet)
    QString lastText() const { return m_lastText; }

private:
    QWidget* m_window;
    QSystemTrayIcon* m_tray = nullptr;  // made on first use, where the desktop has a tray
    QString m_lastTitle, m_lastText;
};

}  // namespace hips
