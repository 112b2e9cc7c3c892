#pragma once
// hips-studio's window: Design (the topology designer), Run (processes and log), Charts (live)
// and History tabs around one topology file, one run history and one run at a time.
#include "RunStore.h"

#include <QMainWindow>
#include <memory>

class QTabWidget;
class QMenu;

namespace hips {

class Designer;
class RunPanel;
class RunCharts;
class HistoryPanel;
class RunStatus;
class RunNotifier;
struct TrainingSettings;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    enum Tab { DesignTab, RunTab, ChartsTab, HistoryTab };

    // `historyPath` empty: the user's default history.
    explicit MainWindow(const QString& historyPath = {}, QWidget* parent = nullptr);
    ~MainWindow() override;

    // Shows the error itself when it cannot, or hands it to `error` (a window being drawn for a
    // screenshot has no one to close a message box).
    bool openTopology(const QString& path, QString* error = nullptr);
    void openDefaultTopology();
    // The run in the charts, with the runs `compared` over it; false (and why, in the status bar) when it cannot be read.
    bool showStoredRun(qint64 run, const QList<qint64>& compared = {});
    bool openStoredTopology(qint64 run);
    bool reattachRun(qint64 run);  // History's Reattach: the run, taken up from its agents, on the Run tab
    bool resumeRun(qint64 run);  // History's Resume: the run, going on from its checkpoint, on the Run tab
    void addLocalReference(const TrainingSettings& settings, qint64 exceptRun = 0);
    QList<std::pair<QString, QString>> shortcutList() const;  // (action, keys), read from the menus
    void showGuide();
    void showShortcuts();  // a past run's curves in the Charts tab
    void setTab(Tab tab);
    Tab tab() const;
    // What a window built in another language takes over: the topology (as edited), its file
    // and whether it has unsaved changes, the tab and the geometry.
    void adoptFrom(const MainWindow& other);
    QString historyError() const { return m_historyError; }

Q_SIGNALS:
    // The user picked another language: the owner builds a new window in it (adoptFrom) and
    // drops this one. Offered only while no run is under way.
    void languageChangeRequested(const QString& locale);

public:
    Designer* designer() const { return m_designer; }
    RunPanel* runPanel() const { return m_run; }
    RunCharts* charts() const { return m_charts; }
    RunNotifier* notifier() const { return m_notifier; }
    RunStatus* runStatus() const { return m_runStatus; }
    HistoryPanel* history() const { return m_history; }
    RunStore* store() const { return m_store.get(); }

protected:
    void closeEvent(QCloseEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;  // undo and redo from a property field

private:
    void showTextDialog(const QString& title, QWidget* content, QSize size);
    void buildActions();
    void retranslate();
    void updateTitle();
    void updateStartable();
    void addRecent(const QString& path);
    void rebuildRecentMenu();
    bool saveTo(const QString& path);
    bool maybeSave();
    void newTopology();
    void openDialog();
    bool save();
    bool saveAs();
    void exportReport();
    void about();
    void setLanguage(const QString& locale);

    QString m_historyError;
    bool m_chartsFollowRun = false;  // the charts show the run under way (not a stored one chosen meanwhile)
    bool m_closeWhenStopped = false;  // "Stop the run and quit" was answered yes: closes once it has stopped
    int m_savedAskedAt = -1;  // the designer's undo index when the user was last asked to save
    QMetaObject::Connection m_closeAtRunEnd;  // while m_closeWhenStopped
    bool m_editedDuringRun = false;  // the designer's topology is no longer the running one
    std::unique_ptr<RunStore> m_store;
    QTabWidget* m_tabs;
    Designer* m_designer;
    RunPanel* m_run;
    RunCharts* m_charts;
    HistoryPanel* m_history;
    qint64 m_chartedRun = 0;  // the stored run the charts show (0: none, or a live one not yet stored)
    RunStatus* m_runStatus;  // the run's figures in the status strip, on every tab
    RunNotifier* m_notifier;  // a run's end told to a user looking elsewhere
    QString m_runName;  // the running topology's name, for that
    QMenu* m_recentMenu = nullptr;
};

}  // namespace hips
