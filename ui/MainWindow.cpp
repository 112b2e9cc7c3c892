#include "MainWindow.h"

#include "ExportDialog.h"

#include "StudioSettings.h"

#include "Designer.h"
#include "DesignerView.h"
#include "HistoryPanel.h"
#include "ModeRegistry.h"
#include "ProcessTableModel.h"
#include "PropertyPanel.h"
#include "ResumeTarget.h"
#include "RunCharts.h"
#include "RunNotifier.h"
#include "RunPanel.h"
#include "RunStatus.h"
#include "TopologyReader.h"
#include "StoredRecords.h"

#include <QAction>
#include <QActionGroup>
#include <QKeyEvent>
#include <QInputDialog>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMap>
#include <tuple>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QScreen>
#include <QStandardPaths>
#include <QVBoxLayout>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolBar>
#include <QUndoStack>
#include <utility>

namespace hips {

namespace {
QIcon icon(const char* name) {
    return QIcon(QStringLiteral(":/icons/%1.svg").arg(QLatin1String(name)));
}

}  // namespace

MainWindow::MainWindow(const QString& historyPath, QWidget* parent)
    : QMainWindow(parent),
      m_tabs(new QTabWidget),
      m_designer(new Designer),
      m_run(new RunPanel),
      m_charts(new RunCharts),
      m_history(new HistoryPanel),
      m_runStatus(new RunStatus),
      m_notifier(new RunNotifier(this)) {
    setWindowIcon(icon("hips"));
    m_tabs->addTab(m_designer, icon("party"), tr("Design"));
    m_tabs->addTab(m_run, icon("start"), tr("Run"));
    m_tabs->addTab(m_charts, icon("chart"), tr("Charts"));
    m_tabs->addTab(m_history, icon("report"), tr("History"));
    setCentralWidget(m_tabs);

    const QString path = historyPath.isEmpty() ? RunStore::defaultPath() : historyPath;
    m_store = RunStore::open(path, &m_historyError);
    if (!m_store) statusBar()->showMessage(tr("Run history unavailable: %1").arg(m_historyError));
    m_run->setStore(m_store.get());
    m_run->setRunsDirectory(QFileInfo(path).absolutePath() + QStringLiteral("/runs"));
    m_history->setStore(m_store.get());

    connect(m_designer, &Designer::topologyChanged, this, [this] {
        m_editedDuringRun = m_editedDuringRun || m_run->isActive();
        updateStartable();
        updateTitle();
        if (!m_run->isActive()) m_run->processes()->reset(m_designer->topology().nodes());  // what Start all will run
    });
    connect(m_designer, &Designer::message, this, [this](const QString& m) { statusBar()->showMessage(m, 6000); });
    connect(m_run, &RunPanel::message, this, [this](const QString& m) { statusBar()->showMessage(m, 8000); });
    connect(m_history, &HistoryPanel::message, this, [this](const QString& m) { statusBar()->showMessage(m, 6000); });
    connect(m_run, &RunPanel::startRequested, this, [this] {  // from the Run tab, stay with its processes
        if (m_run->start(m_designer->topology()) && tab() != RunTab) setTab(ChartsTab);
    });
    connect(m_run, &RunPanel::runStarted, m_charts, [this](const Topology& t) {
        m_runName = t.name;
        m_charts->clear();
        m_charts->setTopology(t);
        addLocalReference(t.training);
        m_charts->setLive(true);
        m_chartsFollowRun = true;
    });
    connect(m_run, &RunPanel::runFinished, m_charts, [this](const RunSummary& s) {
        if (!std::exchange(m_chartsFollowRun, false)) return;  // (they show a stored run)
        m_charts->setEnded(!s.ok && !s.stopped, s.reason);
        m_charts->setRunTraffic(s.bytesInside, s.bytesAcross);
        if (m_store) m_chartedRun = m_store->runOfDirectory(s.runDir).value_or(0);  // kept across a language switch
    });
    connect(m_run, &RunPanel::startRefused, m_charts, &RunCharts::setRefused);
    connect(m_run, &RunPanel::roundCompleted, m_charts, [this](const RoundRow& row, double wallMs) {
        if (m_chartsFollowRun) m_charts->addRound(row, wallMs);
    });
    connect(m_run, &RunPanel::metricRecord, m_charts, [this](const QJsonObject& r, double wallMs, double elapsed) {
        if (m_chartsFollowRun) m_charts->addRecord(r, wallMs, elapsed);
    });
    statusBar()->addPermanentWidget(m_runStatus);
    connect(m_run, &RunPanel::runStarted, m_runStatus, [this](const Topology& t) { m_runStatus->start(t.training.rounds); });
    connect(m_run, &RunPanel::stateChanged, m_runStatus, &RunStatus::setState);
    connect(m_run, &RunPanel::roundCompleted, m_runStatus, [this](const RoundRow& row) { m_runStatus->onRound(row); });
    const auto runActivityChanged = [this] {
        m_editedDuringRun = m_editedDuringRun && m_run->isActive();
        updateStartable();
    };
    connect(m_run, &RunPanel::stateChanged, this, runActivityChanged);
    connect(m_run, &RunPanel::readingModelChanged, this, runActivityChanged);
    connect(m_run, &RunPanel::runFinished, m_history, &HistoryPanel::refresh);
    connect(m_run, &RunPanel::runFinished, m_notifier,
            [this](const RunSummary& s) { m_notifier->runEnded(m_runName, s, RunPanel::outcomeText(s)); });
    connect(m_history, &HistoryPanel::openRequested, this, [this](qint64 id, const QList<qint64>& compared) {
        if (showStoredRun(id, compared)) setTab(ChartsTab);
    });
    connect(m_history, &HistoryPanel::topologyRequested, this, &MainWindow::openStoredTopology);
    connect(m_history, &HistoryPanel::attachRequested, this, &MainWindow::reattachRun);
    connect(m_history, &HistoryPanel::resumeRequested, this, &MainWindow::resumeRun);
    connect(m_designer->undoStack(), &QUndoStack::cleanChanged, this, &MainWindow::updateTitle);

    buildActions();
    const StudioSettings::Window saved = StudioSettings::window();
    restoreGeometry(saved.geometry);
    restoreState(saved.state);
    m_tabs->setCurrentIndex(saved.tab);
    if (saved.geometry.isEmpty())  // first start: roomy, but within the screen (a 1366×768 laptop too)
        resize(QSize(1400, 860).boundedTo(screen()->availableSize() * 0.94));
    updateStartable();
    updateTitle();
}

// The panels hold the run controller, which writes to the store: they go first.
MainWindow::~MainWindow() {
    delete takeCentralWidget();
}

void MainWindow::buildActions() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QMenu* view = menuBar()->addMenu(tr("&View"));
    QMenu* run = menuBar()->addMenu(tr("&Run"));
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QToolBar* bar = addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("main_toolbar"));
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);

    auto action = [this](QMenu* menu, const char* iconName, const QString& text, QKeySequence key, auto slot) {
        QAction* a = menu->addAction(iconName ? icon(iconName) : QIcon(), text);
        if (!key.isEmpty()) {  // the shortcut in the tooltip too (toolbar buttons show it)
            a->setShortcut(key);
            a->setToolTip(QStringLiteral("%1 (%2)").arg(QString(text).remove('&').remove(QStringLiteral("…")),
                                                        key.toString(QKeySequence::NativeText)));
        }
        connect(a, &QAction::triggered, this, slot);
        return a;
    };
    QAction* newAction = action(file, "new", tr("&New topology"), QKeySequence::New, [this] { newTopology(); });
    QAction* openAction = action(file, "open", tr("&Open…"), QKeySequence::Open, [this] { openDialog(); });
    m_recentMenu = file->addMenu(tr("Open &recent"));
    QAction* saveAction = action(file, "save", tr("&Save"), QKeySequence::Save, [this] { save(); });
    action(file, nullptr, tr("Save &as…"), QKeySequence(tr("Ctrl+Shift+S")), [this] { saveAs(); });
    file->addSeparator();
    action(file, "report", tr("&Export report of selected run…"), QKeySequence(tr("Ctrl+E")), [this] { exportReport(); });
    file->addSeparator();
    action(file, nullptr, tr("&Quit"), QKeySequence::Quit, [this] { close(); });

    qApp->installEventFilter(this);  // Ctrl+Z in a property field is the topology's (eventFilter)
    QAction* undo = m_designer->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    undo->setIcon(icon("undo"));
    QAction* redo = m_designer->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcut(QKeySequence::Redo);
    redo->setIcon(icon("redo"));
    edit->addAction(undo);
    edit->addAction(redo);
    edit->addSeparator();
    QAction* copy = action(edit, nullptr, tr("&Copy"), QKeySequence::Copy, [this] { m_designer->copySelection(); });
    QAction* paste = action(edit, nullptr, tr("&Paste"), QKeySequence::Paste, [this] { m_designer->paste(); });
    QAction* remove = action(edit, "delete", tr("&Delete"), QKeySequence::Delete, [this] { m_designer->deleteSelection(); });
    QAction* all = action(edit, nullptr, tr("Select &all"), QKeySequence::SelectAll, [this] { m_designer->selectAll(); });

    QAction* fit = action(view, "fit", tr("&Fit topology"), QKeySequence(tr("Ctrl+0")), [this] { m_designer->view()->fit(); });
    m_designer->setCanvasActions({copy, paste, remove, all, fit});
    // The canvas's keys only where the canvas is: on the History tab, Del deleted the hidden
    // designer's selection, and Ctrl+A selected its parties instead of the table's runs.
    const auto onCanvas = [this, copy, paste, remove, all] {
        for (QAction* a : {copy, paste, remove, all}) a->setEnabled(m_tabs->currentIndex() == DesignTab);
    };
    connect(m_tabs, &QTabWidget::currentChanged, this, onCanvas);
    onCanvas();
    action(view, nullptr, tr("Zoom &in"), QKeySequence::ZoomIn, [this] { m_designer->view()->zoomBy(1.2); });
    action(view, nullptr, tr("Zoom &out"), QKeySequence::ZoomOut, [this] { m_designer->view()->zoomBy(1 / 1.2); });
    view->addSeparator();
    for (int t = DesignTab; t <= HistoryTab; ++t)
        action(view, nullptr, m_tabs->tabText(t), QKeySequence(QStringLiteral("Alt+%1").arg(t + 1)), [this, t] { setTab(Tab(t)); });
    view->addSeparator();
    QMenu* language = view->addMenu(tr("&Language"));
    auto* languages = new QActionGroup(this);
    for (const auto& [code, name] : {std::pair{"en", "English"}, std::pair{"zh_CN", "简体中文"}}) {
        QAction* a = language->addAction(QString::fromUtf8(name));
        a->setCheckable(true);
        a->setData(QString::fromLatin1(code));
        languages->addAction(a);
        connect(a, &QAction::triggered, this, [this, a] { setLanguage(a->data().toString()); });
    }
    connect(language, &QMenu::aboutToShow, this, [languages] {
        const QString current = StudioSettings::language();
        for (QAction* a : languages->actions()) a->setChecked(a->data().toString() == current);
    });

    QAction* start = action(run, "start", tr("&Start all"), QKeySequence(tr("F5")), [this] {
        m_designer->commitFieldEdit();
        m_run->startButton()->click();
    });
    QAction* stop = action(run, "stop", tr("S&top all"), QKeySequence(tr("Shift+F5")), [this] { m_run->stop(); });
    auto syncRunActions = [this, start, stop] {
        start->setEnabled(m_run->startButton()->isEnabled());
        stop->setEnabled(m_run->stopButton()->isEnabled());
    };
    connect(m_run, &RunPanel::stateChanged, this, syncRunActions);
    connect(m_run, &RunPanel::readingModelChanged, this, syncRunActions);
    connect(m_designer, &Designer::topologyChanged, this, syncRunActions);
    syncRunActions();

    action(help, nullptr, tr("&User guide"), QKeySequence::HelpContents, [this] { showGuide(); });
    action(help, nullptr, tr("&Keyboard shortcuts"), QKeySequence(), [this] { showShortcuts(); });
    help->addSeparator();
    action(help, "hips", tr("&About HiPS Studio"), QKeySequence(), [this] { about(); });

    for (QAction* a : {newAction, openAction, saveAction}) bar->addAction(a);
    bar->addSeparator();
    bar->addAction(undo);
    bar->addAction(redo);
    bar->addAction(fit);
    bar->addSeparator();
    bar->addAction(start);
    bar->addAction(stop);
    rebuildRecentMenu();
}

void MainWindow::setTab(Tab tab) {
    m_tabs->setCurrentIndex(tab);
}

void MainWindow::updateStartable() {
    const TopologyIssues& issues = m_designer->issues();
    m_run->setStartable(issues.isEmpty(), issues.isEmpty() ? QString() : issues.first().toString());
    if (!issues.isEmpty())
        statusBar()->showMessage(
            (issues.size() == 1 ? tr("1 problem in the topology: %1") : tr("%1 problems in the topology; the first: %2").arg(issues.size()))
                .arg(issues.first().toString()));
    else
        statusBar()->showMessage(tr("Topology valid: %1, %2")
                                     .arg(tr("%n process(es)", nullptr, int(m_designer->topology().nodes().size())),
                                          tr("%n training worker(s)", nullptr, m_designer->topology().trainingWorkerCount())) +
                                 (m_editedDuringRun ? tr("; the run under way goes on with the topology it started with") : QString()));
}

void MainWindow::updateTitle() {
    // A topology not saved to a file yet goes by its own name (the shipped default is "default").
    const QString topologyName = m_designer->topology().name;
    const QString& path = m_designer->document()->path();
    const QString name = !path.isEmpty() ? QFileInfo(path).fileName() : !topologyName.isEmpty() ? topologyName : tr("untitled");
    setWindowTitle(QStringLiteral("%1%2 — HiPS Studio").arg(name, m_designer->undoStack()->isClean() ? QString() : QStringLiteral(" *")));
}

bool MainWindow::openTopology(const QString& path, QString* error) {
    QString why;
    if (!m_designer->openFile(QFileInfo(path).absoluteFilePath(), &why)) {
        if (error) *error = why;
        else QMessageBox::warning(this, tr("Open topology"), tr("Cannot open %1:\n%2").arg(path, why));
        return false;
    }
    addRecent(m_designer->document()->path());
    updateTitle();
    return true;
}

void MainWindow::openDefaultTopology() {
    const TopologyLoad load = TopologyReader::readFile(QStringLiteral(":/topologies/default.json"));
    if (load.draft) m_designer->setTopology(*load.draft);  // a document of no file: Save asks where
    updateTitle();
}

// The newest finished run of the standalone baseline (mode `local`) in the history with the same
// model and data set, as the accuracy chart's dashed reference line.
void MainWindow::addLocalReference(const TrainingSettings& s, qint64 exceptRun) {
    if (!m_store || ModeRegistry::policy(s.mode).standalone) return;
    const QList<RunRecord> runs = m_store->runs();
    for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
        if (it->id == exceptRun || it->status != QLatin1String("finished")) continue;
        const QJsonObject settings = m_store->settings(it->id);
        if (!ModeRegistry::policy(settings.value("mode").toString()).standalone || settings.value("model").toString() != s.model ||
            settings.value("dataset").toString() != s.dataset)
            continue;
        QString error;
        if (const auto report = RunReport::load(*m_store, it->id, 0.85, &error)) {
            // (Each evaluation is in both lists, in one order: a local run's rounds come in time order.)
            QList<RunCharts::LocalReferencePoint> points;
            for (qsizetype i = 0; i < std::min(report->scoreByRound.size(), report->scoreByTime.size()); ++i) {
                const double elapsed = report->scoreByTime[i].x();
                points.append({report->scoreByRound[i].x(), report->clock.unixTime(elapsed) * 1000, elapsed, report->scoreByRound[i].y()});
            }
            m_charts->setLocalReference(tr("local baseline (run %1)").arg(it->id), points);
        }
        return;
    }
}

// A past run's topology and settings as it ran, as a new document (no file yet): Start all runs
// it again.
bool MainWindow::openStoredTopology(qint64 run) {
    if (!m_store) return false;
    const TopologyLoad load = TopologyReader::readJson(m_store->topologyJson(run), tr("run %1").arg(run));
    const std::optional<Topology>& topology = load.topology ? load.topology : load.draft;
    if (!topology) {
        QMessageBox::warning(this, tr("Open topology"), tr("Run %1's topology cannot be read:\n%2").arg(run).arg(load.errorText()));
        return false;
    }
    if (!maybeSave()) return false;  // the designer's unsaved edits first, as File ▸ Open asks
    m_designer->setTopology(*topology);
    updateTitle();
    setTab(DesignTab);
    statusBar()->showMessage(tr("Opened the topology of run %1; Start all runs it again").arg(run), 8000);
    return true;
}

bool MainWindow::resumeRun(qint64 run) {
    if (!m_store) return false;
    int rounds = 0;  // as it was; a finished run goes on only with more
    if (const auto record = m_store->run(run); record && record->status == QLatin1String("finished")) {
        const int ran = m_store->settings(run).value(QStringLiteral("rounds")).toInt();
        bool ok = false;
        rounds = QInputDialog::getInt(this, tr("Resume"), tr("Run %1 finished its %2 rounds. Go on to how many rounds?").arg(run).arg(ran),
                                      2 * ran, ran + 1, 1000000 /* the topology's bound */, 1, &ok);
        if (!ok) return false;
    }
    QString error;
    const std::optional<ResumeTarget> target = resumeTarget(*m_store, run, &error, rounds);
    if (!target) {
        QMessageBox::warning(this, tr("Resume"), tr("Run %1 cannot be resumed: %2").arg(run).arg(error));
        return false;
    }
    setTab(RunTab);
    return m_run->resume(*target);
}

bool MainWindow::reattachRun(qint64 run) {
    if (!m_store) return false;
    const TopologyLoad load = TopologyReader::readJson(m_store->topologyJson(run), tr("run %1").arg(run));
    if (!load.topology) {
        QMessageBox::warning(this, tr("Reattach"), tr("Run %1's topology cannot be read:\n%2").arg(run).arg(load.errorText()));
        return false;
    }
    setTab(RunTab);
    return m_run->attach(run, *load.topology);
}

bool MainWindow::showStoredRun(qint64 run, const QList<qint64>& compared) {
    QString error;
    const auto report = m_history->load(run, &error);
    if (!report) {
        statusBar()->showMessage(error, 8000);
        return false;
    }
    const StoredRounds& stored = report->rounds;
    m_charts->clear();
    const TopologyLoad load = TopologyReader::readJson(m_store->topologyJson(run));
    if (load.topology) {
        m_charts->setTopology(*load.topology);
        addLocalReference(load.topology->training, run);
    }
    for (int i = 0; i < stored.rows.size(); ++i) m_charts->addRound(stored.rows[i], stored.wallMs[i]);
    for (const auto& [record, t] : storedRecords(*m_store, run)) m_charts->addRecord(record, t * 1000, report->clock.elapsed(t));
    if (report->run.status != QLatin1String("running")) m_charts->setRunTraffic(quint64(report->bytesInside), quint64(report->bytesAcross));
    for (LiveChart* c : m_charts->charts()) c->redrawNow();
    m_charts->timeline()->redrawNow();
    if (stored.rows.isEmpty() && report->run.status != QLatin1String("running")) {  // not "no rounds yet: start a run"
        const QString dir = m_store->runDirectory(run);
        m_charts->setEnded(report->run.status == QLatin1String("failed"), report->run.summary.value(QStringLiteral("reason")).toString(),
                           dir.isEmpty() ? report->run.summary.value(QStringLiteral("run_dir")).toString() : dir);
    }
    QString unreadable;
    for (qint64 other : compared)
        if (const auto theirs = m_history->load(other, &error))
            m_charts->addComparison(QStringLiteral("#%1 %2").arg(other).arg(theirs->run.name), theirs->rounds.rows, theirs->rounds.wallMs);
        else unreadable += tr("; run %1 cannot be compared: %2").arg(other).arg(error);
    // The run under way goes on into the charts only when it is the one shown (its rounds so far,
    // stored); another run's lines took its rounds, and its facts its traffic.
    const QString live = m_run->activeRunDirectory();
    m_chartsFollowRun = !live.isEmpty() && m_store->runDirectory(run) == live;
    if (m_chartsFollowRun) m_charts->setLive(true);
    statusBar()->showMessage(
        tr("Showing run %1 (%2): %n round(s)", nullptr, int(stored.rows.size())).arg(run).arg(report->run.name) + unreadable +
        (!live.isEmpty() && !m_chartsFollowRun ? tr("; the run under way shows again once chosen in History") : QString()));
    m_chartedRun = run;
    return true;
}

void MainWindow::newTopology() {
    if (!maybeSave()) return;
    Topology t;
    t.name = tr("untitled");
    t.hosts << edits::localHost(QStringLiteral("local"));
    edits::addParty(t, QPointF(0, 0));
    edits::addParty(t, QPointF(0, 240));
    m_designer->setTopology(t);
    updateTitle();
}

void MainWindow::openDialog() {
    if (!maybeSave()) return;
    const QString path = QFileDialog::getOpenFileName(this, tr("Open topology"), topologyFolder(m_designer->document()->path()),
                                                      tr("Topologies (*.json);;All files (*)"));
    if (!path.isEmpty()) openTopology(path);
}

bool MainWindow::saveTo(const QString& path) {
    QString error;
    if (!m_designer->saveFile(QFileInfo(path).absoluteFilePath(), &error)) {
        QMessageBox::warning(this, tr("Save topology"), error);
        return false;
    }
    addRecent(m_designer->document()->path());
    updateTitle();
    statusBar()->showMessage(tr("Saved %1").arg(m_designer->document()->path()), 4000);
    return true;
}

bool MainWindow::save() {
    m_designer->commitFieldEdit();
    const QString path = m_designer->document()->path();
    return path.isEmpty() ? saveAs() : saveTo(path);
}

bool MainWindow::saveAs() {
    m_designer->commitFieldEdit();
    // Proposed: the file it came from, else the topology's name in the folder last used.
    const QString current = m_designer->document()->path();
    const QString stem = fileStem(m_designer->document()->topology().name);
    const QString name =
        !current.isEmpty() ? QFileInfo(current).fileName() : (stem.isEmpty() ? QStringLiteral("topology") : stem) + ".json";
    const QString path =
        askSavePath(this, tr("Save topology"), topologyFolder(current), name, tr("Topologies (*.json)"), QStringLiteral("json"));
    return !path.isEmpty() && saveTo(path);
}

bool MainWindow::maybeSave() {
    m_designer->commitFieldEdit();
    if (m_designer->undoStack()->isClean()) return true;
    const auto answer = QMessageBox::question(this, tr("Unsaved changes"), tr("Save the changes to the topology first?"),
                                              QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
    if (answer == QMessageBox::Save) return save();
    return answer == QMessageBox::Discard;
}

void MainWindow::addRecent(const QString& path) {
    StudioSettings::addRecentFile(path);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
    if (!m_recentMenu) return;
    m_recentMenu->clear();
    const QStringList recent = StudioSettings::recentFiles();
    for (const QString& path : recent)
        connect(m_recentMenu->addAction(path), &QAction::triggered, this, [this, path] {
            if (maybeSave()) openTopology(path);
        });
    m_recentMenu->setEnabled(!recent.isEmpty());
}

void MainWindow::exportReport() {
    setTab(HistoryTab);
    if (m_history->selectedRuns().size() != 1) statusBar()->showMessage(tr("Select one run in the history to export its report"), 6000);
    else m_history->exportSelected();
}

// Undo and redo are the topology's wherever the focus is in the property panel: a field would
// take Ctrl+Z for its own text, and after Tab committed its edit find nothing to undo, while the
// toolbar offered "Undo Set Workers". The field lets go of the focus (committing an edit still
// typed there, as one step) and the key goes on to the window's Undo and Redo.
bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
    if (event->type() == QEvent::ShortcutOverride) {
        const auto* key = static_cast<QKeyEvent*>(event);
        auto* field = qobject_cast<QWidget*>(watched);
        if ((key->matches(QKeySequence::Undo) || key->matches(QKeySequence::Redo)) && field &&
            m_designer->properties()->isAncestorOf(field)) {
            field->clearFocus();
            event->ignore();
            return true;
        }
    }
    return QMainWindow::eventFilter(watched, event);
}

void MainWindow::setLanguage(const QString& locale) {
    if (locale == StudioSettings::language()) return;
    if (m_run->isActive()) {
        QMessageBox::information(this, tr("Language"), tr("Stop the run first: switching the language rebuilds the window."));
        return;
    }
    StudioSettings::setLanguage(locale);
    Q_EMIT languageChangeRequested(locale);
}

MainWindow::Tab MainWindow::tab() const {
    return Tab(m_tabs->currentIndex());
}

void MainWindow::adoptFrom(const MainWindow& other) {
    m_designer->setTopology(other.m_designer->topology(), other.m_designer->document()->path());
    if (!other.m_designer->undoStack()->isClean()) m_designer->undoStack()->resetClean();  // still unsaved
    restoreGeometry(other.saveGeometry());
    restoreState(other.saveState());
    if (other.m_chartedRun > 0) showStoredRun(other.m_chartedRun);  // the charts as they were
    setTab(other.tab());
    updateTitle();
}

// "Stop the run and quit": the window waits for the run to stop (its roles ended, the history
// saying "stopped", a remote run's files fetched) and closes then; closed at once, the run was
// left "interrupted" and its agents went on. Closing it again meanwhile quits at once.
// An edit made while the run stopped is asked about as the window closes (until 2026-12-02 it was
// lost: the question had been asked before the edit).
void MainWindow::closeEvent(QCloseEvent* event) {
    m_designer->commitFieldEdit();
    const int undoIndex = m_designer->undoStack()->index();
    if (!m_closeWhenStopped || undoIndex != m_savedAskedAt) {
        if (!maybeSave()) {
            m_closeWhenStopped = false;  // (the window stays: it no longer closes at the run's end)
            disconnect(m_closeAtRunEnd);
            return event->ignore();
        }
        m_savedAskedAt = m_designer->undoStack()->index();
    }
    if (m_run->isReadingModel()) m_run->stop();  // (a start waiting for its model file: nothing under way to stop)
    if (m_run->isActive() && !m_closeWhenStopped) {
        if (QMessageBox::question(this, tr("A run is under way"), tr("Stop the run and quit?")) != QMessageBox::Yes) return event->ignore();
        m_closeWhenStopped = true;
        m_closeAtRunEnd = connect(m_run, &RunPanel::runFinished, this, &QWidget::close,
                                  Qt::ConnectionType(Qt::QueuedConnection | Qt::SingleShotConnection));
        m_run->stop();
        statusBar()->showMessage(tr("Stopping the run; the window closes once it has stopped (close it again to quit now)"));
        return event->ignore();
    }
    StudioSettings::setWindow({saveGeometry(), saveState(), m_tabs->currentIndex()});
    event->accept();
}

}  // namespace hips
