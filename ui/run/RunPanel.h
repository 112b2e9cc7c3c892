#pragma once
// One-click run control: Start all / Stop all with the run's state, the process table and the
// log. Each run gets a fresh RunController (the same one `hips run` uses) writing to the run
// history; the panel only shows what the controller says.
#include "RunController.h"

#include <QWidget>
#include <functional>
#include <memory>

class QLabel;
class QCheckBox;
class QPushButton;
class QTableView;
class QLineEdit;
class QSortFilterProxyModel;

namespace hips {

struct ResumeTarget;

class DeploymentTable;
class LogPane;
class ProcessTableModel;

class RunPanel : public QWidget {
    Q_OBJECT
public:
    explicit RunPanel(QWidget* parent = nullptr);
    ~RunPanel() override;

    void setStore(RunStore* store) { m_store = store; }
    void setRunsDirectory(const QString& dir) { m_runsDir = dir; }
    // Start is offered only for a topology that validates; `reason` says why not.
    void setStartable(bool startable, const QString& reason);

    // False (and a message) when it cannot begin. A TorchScript model's file is read first, on a
    // thread of its own (readsModelFile): the run then begins once it was, or a message says why not.
    bool start(const Topology& topology);
    // Takes up history run `run` (its topology: `topology`), still going on its agents after its
    // controller went away, as hips attach does.
    bool attach(qint64 run, const Topology& topology);
    // Goes on with a stopped, failed or interrupted run from its checkpoint, as hips run --resume.
    bool resume(const ResumeTarget& target);
    void stop();
    bool isActive() const;  // reading the model file, deploying, starting, running or stopping
    bool isReadingModel() const { return m_readingModel; }  // a start or a resume waits for its model file
    QString activeRunDirectory() const;  // the directory of the run under way (empty: none)
    RunState state() const { return m_state; }
    static QString stateText(RunState s);  // runStateName, in the interface's language
    // How a run ended, in a line: "finished after 10 rounds in 10.5 s: final test accuracy 0.8632".
    static QString outcomeText(const RunSummary& s);

    QPushButton* startButton() const { return m_start; }
    QPushButton* stopButton() const { return m_stopButton; }
    ProcessTableModel* processes() const { return m_processes; }
    LogPane* log() const { return m_log; }
    DeploymentTable* deployment() const { return m_deployment; }

Q_SIGNALS:
    void runStarted(const Topology& topology);
    void startRefused(const QString& reason);  // an attach or a resume refused after runStarted
    void roundCompleted(const RoundRow& row, double wallMs);
    void metricRecord(const QJsonObject& record, double wallMs, double elapsed);
    void stateChanged(RunState state);
    void readingModelChanged(bool reading);  // isActive() while no run is under way: Start and Stop change
    void runFinished(const RunSummary& summary);
    void message(const QString& text);
    void startRequested();  // the Start button: the window supplies the topology

private:
    RunController* newController(const Topology& topology);  // connected to the panel, its tables reset
    bool startNow(const Topology& topology);
    bool resumeNow(const ResumeTarget& target);
    // Reads `topology`'s model file on a thread of its own, the panel live meanwhile, then runs
    // `then` (the model read: the controller finds it so) or says why it cannot (`refused`).
    void readModelThen(const Topology& topology, const QString& refused, std::function<void()> then);
    void refuseStart(const Topology& topology, const QString& error, const QString& message);
    void setState(RunState s);
    void markNotStarted(const QString& reason);
    void updateButtons();
    void setReadingModel(bool reading);

    RunStore* m_store = nullptr;
    QString m_runsDir;
    std::unique_ptr<RunController> m_controller;
    RunState m_state = RunState::Idle;
    bool m_readingModel = false;  // readModelThen: a start or a resume waits for it
    quint64 m_readsStarted = 0;  // the latest read's number: a read that Stop cancelled is not acted on
    bool m_startable = false;
    QString m_notStartableReason;
    QPushButton* m_start;
    QCheckBox* m_simulate;  // Start all simulates (hips simulate) instead of deploying
    QPushButton* m_stopButton;
    QLabel* m_stateLabel;
    ProcessTableModel* m_processes;
    QTableView* m_table;
    QSortFilterProxyModel* m_shown;  // the processes the filter lets through (a party, a role, "failed")
    QLineEdit* m_filter;
    DeploymentTable* m_deployment;
    LogPane* m_log;
};

}  // namespace hips
