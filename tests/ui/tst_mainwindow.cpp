// The main window as a whole: its title and status strip, help, a run that ends unwatched, and a
// language switch that rebuilds it around the same topology.
#include "DeploymentTable.h"
#include "Designer.h"
#include "DesignerFixture.h"
#include "PropertyPanel.h"
#include "DesignerView.h"
#include "DesignerScene.h"
#include "LiveChart.h"
#include "MainWindow.h"
#include "RunCharts.h"
#include "RunNotifier.h"
#include "RunPanel.h"
#include "RunStatus.h"
#include "RunStore.h"
#include "TopologyReader.h"
#include "Versions.h"

#include <QAction>
#include <QCheckBox>
#include <QDateTime>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextDocument>
#include <QtTest>

using namespace hips;
using namespace hips::test;

namespace {

const QString kDefault = QStringLiteral(HIPS_SOURCE_DIR "/resources/topologies/default.json");

}  // namespace

class MainWindowTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // A language switch builds a new window in that language, which takes over the edited
    // topology, its file and its unsaved state.
    void aLanguageSwitchRebuildsTheWindowWithTheSameTopology() {
        QTemporaryDir dir;
        MainWindow english(dir.filePath("history.sqlite"));
        QVERIFY(english.openTopology(kDefault));
        dropFromPalette(*english.designer(), PaletteItem::Party, QPointF(900, 900));
        QVERIFY(english.windowTitle().contains('*'));
        RunStore& store = *english.store();  // a stored run on the charts: the switch keeps it there
        QFile small(HIPS_SOURCE_DIR "/tests/data/topologies/small.json");
        QVERIFY(small.open(QIODevice::ReadOnly));
        const qint64 run = store.beginRun("charted", small.readAll(), {{"rounds", 2}});
        for (int round = 1; round <= 2; ++round) {
            const double t = store.run(run)->started + round;
            for (const char* w : {"party1/worker0", "party2/worker0"}) {
                store.appendMetric(run, t, w, round, "train.loss", 1.0 / round);
                store.appendMetric(run, t, w, round, "train.samples", 64);
                store.appendMetric(run, t, w, round, "train.compute_s", 0.5);
                store.appendMetric(run, t, w, round, "train.comm_s", 0.1);
            }
            store.appendMetric(run, t, "central/global_server0", round, "aggregate.round_s", 1.0);
            store.appendMetric(run, t + 0.1, "central/master_worker", round, "eval.test_acc", 0.5 + 0.1 * round);
        }
        store.finishRun(run, "finished", {});
        store.flush();
        QVERIFY(english.showStoredRun(run));
        QCOMPARE(english.charts()->accuracy()->pointCount(0), 2);
        QVERIFY(versions::installTranslation("zh_CN"));
        MainWindow chinese(dir.filePath("history.sqlite"));
        chinese.adoptFrom(english);
        QCOMPARE(chinese.charts()->accuracy()->pointCount(0), 2);
        QCOMPARE(chinese.designer()->json(), english.designer()->json());
        QVERIFY(chinese.windowTitle().contains('*'));
        QCOMPARE(chinese.findChild<QTabWidget*>()->tabText(0), QString::fromUtf8("设计"));
        // The topology checks speak the interface's language too (the CLI, with no translator, English).
        QTemporaryDir broken;
        QFile clash(broken.filePath("clash.json"));
        QVERIFY(clash.open(QIODevice::WriteOnly));
        clash.write(QByteArray(english.designer()->json()).replace("\"port\": 9300", "\"port\": 9200"));
        clash.close();
        QVERIFY(chinese.openTopology(clash.fileName()));
        QVERIFY(!chinese.designer()->isValid());
        const QString issue = chinese.designer()->issues().value(0).message;
        QVERIFY2(issue.contains(QString::fromUtf8("已被")) && issue.contains(QString::fromUtf8("请选择空闲端口")), qPrintable(issue));
        QCOMPARE(chinese.runPanel()->startButton()->text(), QString::fromUtf8("全部启动"));
        // The guide's pages are English: the Chinese studio says so above them, the English one not.
        chinese.showGuide();
        auto* englishOnly = chinese.findChild<QLabel*>("english_only");
        QVERIFY(englishOnly);
        QVERIFY2(englishOnly->text().contains(QString::fromUtf8("英文")), qPrintable(englishOnly->text()));
        QVERIFY(versions::installTranslation("en"));
        MainWindow back(dir.filePath("history.sqlite"));
        QCOMPARE(back.findChild<QTabWidget*>()->tabText(0), QStringLiteral("Design"));
        back.showGuide();
        QVERIFY(back.findChild<QTextBrowser*>("guide"));
        QVERIFY(!back.findChild<QLabel*>("english_only"));
        // English says "1 run" and "2 runs", not "1 run(s)".
        QCOMPARE(QCoreApplication::translate("hips::HistoryPanel", "Deleted %n run(s)", nullptr, 1), QStringLiteral("Deleted 1 run"));
        QCOMPARE(QCoreApplication::translate("hips::HistoryPanel", "Deleted %n run(s)", nullptr, 2), QStringLiteral("Deleted 2 runs"));
        QCOMPARE(QCoreApplication::translate("hips::MainWindow", "%n process(es)", nullptr, 1), QStringLiteral("1 process"));
        QCOMPARE(QCoreApplication::translate("hips::RunPanel", "stopped after %n round(s) in %1 s (%2)", nullptr, 1),
                 QStringLiteral("stopped after 1 round in %1 s (%2)"));
    }

    // The window's title names a topology with no file yet by its own name, unmodified right
    // after opening; one problem is "1 problem", not "1 problem(s)".
    void titleAndProblemCountReadRight() {
        QTemporaryDir dir;
        MainWindow window(dir.filePath("h.sqlite"));
        const TopologyLoad load = TopologyReader::readFile(QStringLiteral(HIPS_SOURCE_DIR "/tests/data/topologies/small.json"));
        QVERIFY(load.ok());
        window.designer()->setTopology(*load.topology);  // as File → New or a stored run's topology does
        QCOMPARE(window.windowTitle(), QString("small-synthetic — HiPS Studio"));
        Topology t = window.designer()->topology();
        t.training.localEpochs = 1;  // with local_iters 50: exactly one of them may be set
        window.designer()->setTopology(t);
        QVERIFY2(window.statusBar()->currentMessage().startsWith("1 problem in the topology: "),
                 qPrintable(window.statusBar()->currentMessage()));
    }

    // A start the controller refuses (here: Simulate ticked for a mode hips simulate does not run)
    // says why in the status bar; the state change after it wrote "Topology valid" over it, and
    // the click seemed to do nothing.
    void aRefusedStartSaysWhyInTheStatusBar() {
        QTemporaryDir dir;
        MainWindow window(dir.filePath("h.sqlite"));
        const TopologyLoad load = TopologyReader::readFile(QStringLiteral(HIPS_SOURCE_DIR "/tests/data/topologies/small.json"));
        QVERIFY(load.ok());
        Topology t = *load.topology;
        t.training.mode = QStringLiteral("asgd");
        window.designer()->setTopology(t);
        window.runPanel()->findChild<QCheckBox*>("simulate")->setChecked(true);
        QPushButton* start = window.runPanel()->findChild<QPushButton*>("start_all");
        QVERIFY(start && start->isEnabled());
        start->click();
        QVERIFY2(window.statusBar()->currentMessage().startsWith("Cannot start: hips simulate runs the modes"),
                 qPrintable(window.statusBar()->currentMessage()));
    }

    // A TorchScript model is read (hips-trainer's start-up: 11 s with LibTorch's files out of the
    // page cache) on a thread of its own: the window stays live meanwhile with Start off, and a
    // file that is no model is then refused with the trainer's reason in the status bar. Start
    // waited for the read on the window's thread.
    void theModelFileIsReadWithoutFreezingTheWindow() {
        QTemporaryDir dir;
        MainWindow window(dir.filePath("h.sqlite"));
        QFile file(dir.filePath("net.pt"));
        QVERIFY(file.open(QIODevice::WriteOnly) && file.write("not a model") > 0);
        file.close();
        const TopologyLoad load = TopologyReader::readFile(QStringLiteral(HIPS_SOURCE_DIR "/tests/data/topologies/small.json"));
        QVERIFY(load.ok());
        Topology t = *load.topology;
        t.training.model = QString::fromLatin1(TrainingSettings::kTorchScript);
        t.training.modelFile = file.fileName();
        window.designer()->setTopology(t);
        QPushButton* start = window.runPanel()->findChild<QPushButton*>("start_all");
        QVERIFY(start && start->isEnabled());
        QAction* stopAction = nullptr;  // the toolbar's and the Run menu's
        for (QAction* a : window.findChildren<QAction*>())
            if (a->text() == "S&top all") stopAction = a;
        QVERIFY(stopAction && !stopAction->isEnabled());
        start->click();
        QVERIFY(window.runPanel()->isActive() && !start->isEnabled());
        QVERIFY(stopAction->isEnabled());  // (it cancels the start)
        QTRY_VERIFY2_WITH_TIMEOUT(window.statusBar()->currentMessage().startsWith("Cannot start: cannot load the TorchScript model"),
                                  qPrintable(window.statusBar()->currentMessage()), 120000);
        QVERIFY(!window.runPanel()->isActive() && start->isEnabled());
    }

    // Ctrl+S with a value still being typed in a property field (its edit ends when it loses the
    // focus) saves that value: it saved the old one and marked the topology saved, and the typed
    // value was lost at quit.
    void aValueStillBeingTypedIsSaved() {
        QTemporaryDir dir;
        const QString path = dir.filePath("t.json");
        QVERIFY(QFile::copy(kDefault, path));
        QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner);
        MainWindow window(dir.filePath("h.sqlite"));
        window.show();
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QVERIFY(window.openTopology(path));
        window.designer()->scene()->selectElements({{ElementRef::Kind::Workers, "party1", {}, 0}});
        auto* count = qobject_cast<QSpinBox*>(window.designer()->properties()->field("role_count"));
        QVERIFY(count);
        count->setFocus();
        count->selectAll();
        QTest::keyClicks(count, "7");
        const QKeyCombination save = QKeySequence(QKeySequence::Save)[0];
        QTest::keyClick(count, save.key(), save.keyboardModifiers());
        const TopologyLoad saved = TopologyReader::readFile(path);
        QVERIFY2(saved.ok(), qPrintable(saved.errorText()));
        QCOMPARE(saved.topology->party("party1")->workers.value(0).count, 7);
        QVERIFY(window.designer()->undoStack()->isClean());
    }

    // The canvas's keys act only on the Design tab: on the History tab, Del deleted the hidden
    // designer's selection.
    void theCanvasKeysActOnlyOnTheCanvas() {
        QTemporaryDir dir;
        MainWindow window(dir.filePath("h.sqlite"));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.openTopology(kDefault));
        window.designer()->scene()->selectElements({{ElementRef::Kind::Party, "party2"}});
        window.setTab(MainWindow::HistoryTab);
        QTest::keyClick(&window, Qt::Key_Delete);
        QVERIFY(window.designer()->topology().party("party2"));
        window.setTab(MainWindow::DesignTab);
        QTest::keyClick(window.designer()->view()->viewport(), Qt::Key_Delete);
        QVERIFY(!window.designer()->topology().party("party2"));  // (on the canvas it does)
    }

    // Help inside the app: the shortcut list is read from the menus (Start all is F5 there and in
    // its tooltip), and the user guide is the README, which links the pages of docs/.
    void helpListsShortcutsAndShowsTheGuide() {
        QTemporaryDir dir;
        MainWindow window(dir.filePath("h.sqlite"));
        const auto rows = window.shortcutList();
        QVERIFY(std::find(rows.begin(), rows.end(), std::pair<QString, QString>{"Start all", "F5"}) != rows.end());
        QVERIFY(std::find(rows.begin(), rows.end(), std::pair<QString, QString>{"Stop all", "Shift+F5"}) != rows.end());
        QAction* start = nullptr;
        for (QAction* a : window.findChildren<QAction*>())
            if (QString(a->text()).remove('&') == QLatin1String("Start all")) start = a;
        QVERIFY(start);
        QCOMPARE(start->toolTip(), QString("Start all (F5)"));
        window.showGuide();
        auto* guide = window.findChild<QTextBrowser*>("guide");
        QVERIFY(guide);
        QVERIFY2(guide->toPlainText().contains("Quick start"), qPrintable(guide->toPlainText().left(200)));
        // Its pictures load (they were broken), and so do the docs/ pages it links to, with theirs.
        const auto picturesOf = [guide] {
            QStringList names;
            for (QTextBlock b = guide->document()->begin(); b.isValid(); b = b.next())
                for (auto it = b.begin(); !it.atEnd(); ++it)
                    if (it.fragment().charFormat().isImageFormat()) names << it.fragment().charFormat().toImageFormat().name();
            return names;
        };
        const auto allLoad = [guide](const QStringList& names) {
            for (const QString& name : names) {  // (the browser hands a small picture over as its file's bytes)
                const QVariant resource = guide->loadResource(QTextDocument::ImageResource, QUrl(name));
                const QImage picture =
                    resource.typeId() == QMetaType::QImage ? resource.value<QImage>() : QImage::fromData(resource.toByteArray());
                if (picture.isNull() || picture.width() > 900) return name;  // missing, or wider than the guide's window
            }
            return QString();
        };
        QVERIFY(!picturesOf().isEmpty());
        QCOMPARE(allLoad(picturesOf()), QString());
        guide->setSource(guide->source().resolved(QUrl("docs/user-guide.md")), QTextDocument::MarkdownResource);
        QVERIFY2(guide->toPlainText().contains("Design"), qPrintable(guide->toPlainText().left(200)));
        QVERIFY(!picturesOf().isEmpty());
        QCOMPARE(allLoad(picturesOf()), QString());
        QVERIFY(guide->isBackwardAvailable());
    }

    // A run that ends while the user looks elsewhere is told, with its outcome (a desktop
    // notification where there is a tray; the window asks for attention).
    void aRunThatEndsUnwatchedIsTold() {
        QVERIFY(versions::installTranslation("en"));  // "10 rounds", not "10 round(s)"
        QTemporaryDir dir;
        MainWindow window(dir.filePath("h.sqlite"));
        QVERIFY(!window.isActiveWindow());
        Topology t;
        t.name = "nightly";
        Q_EMIT window.runPanel()->runStarted(t);
        RunSummary s;
        s.ok = true, s.rounds = 10, s.seconds = 10.5, s.finalAccuracy = 0.8632, s.evaluated = true;
        Q_EMIT window.runPanel()->runFinished(s);
        QCOMPARE(window.notifier()->lastTitle(), QString("Run nightly finished"));
        QCOMPARE(window.notifier()->lastText(), QString("finished after 10 rounds in 10.5 s: final test accuracy 0.8632"));
        s.ok = false, s.reason = "party2/worker0 exited with status 3";
        Q_EMIT window.runPanel()->runFinished(s);
        QCOMPARE(window.notifier()->lastTitle(), QString("Run nightly failed"));
        QCOMPARE(window.notifier()->lastText(), QString("failed: party2/worker0 exited with status 3"));
    }

    // A stored run shown while another runs: the live rounds do not go onto its lines (they did,
    // and the live run's traffic into its facts).
    void aStoredRunOnTheChartsTakesNoLiveRounds() {
        QTemporaryDir dir;
        MainWindow window(dir.filePath("h.sqlite"));
        QFile small(HIPS_SOURCE_DIR "/tests/data/topologies/small.json");
        QVERIFY(small.open(QIODevice::ReadOnly));
        RunStore& store = *window.store();
        const qint64 run = store.beginRun("stored", small.readAll(), {{"rounds", 1}});
        const double t = store.run(run)->started + 1;
        store.appendMetric(run, t, "party1/worker0", 1, "train.loss", 1.0);
        store.appendMetric(run, t, "central/global_server0", 1, "aggregate.round_s", 1.0);
        store.appendMetric(run, t + 0.1, "central/master_worker", 1, "eval.test_acc", 0.5);
        store.finishRun(run, "finished", {});
        store.flush();
        QVERIFY(window.showStoredRun(run));
        QCOMPARE(window.charts()->accuracy()->pointCount(0), 1);
        RoundRow live;
        live.round = 7;
        live.testAccuracy = 0.9;
        Q_EMIT window.runPanel()->roundCompleted(live, double(QDateTime::currentMSecsSinceEpoch()));
        QCOMPARE(window.charts()->accuracy()->pointCount(0), 1);
    }

    // A start refused before a host's deployment began marks that host "not started" (every row
    // had a clock from its creation, which counted as begun: it said "waiting" for ever).
    void aHostNeverDeployedIsMarkedNotStarted() {
        DeploymentTable table;
        table.reset({"a", "b"});
        table.onProgress("b", "copying the agent");
        table.markNotStarted("refused");
        QCOMPARE(table.stage("a"), QStringLiteral("not started"));
        QCOMPARE(table.stage("b"), QStringLiteral("copying the agent"));
    }

    // A reattach that the controller refuses (here: the run's own controller, this process, is
    // alive) leaves the charts saying why, not "under way" for a run that never comes.
    void aRefusedReattachLeavesNoRunUnderWayOnTheCharts() {
        QVERIFY(versions::installTranslation("en"));
        QTemporaryDir dir;
        MainWindow window(dir.filePath("h.sqlite"));
        QFile small(HIPS_SOURCE_DIR "/tests/data/topologies/small.json");
        QVERIFY(small.open(QIODevice::ReadOnly));
        const qint64 run = window.store()->beginRun("followed", small.readAll(), {{"rounds", 2}});
        QVERIFY(!window.reattachRun(run));
        const QString facts = window.charts()->factsText();
        QVERIFY2(!facts.contains("under way") && facts.contains("Cannot reattach") && facts.contains("is followed by its controller"),
                 qPrintable(facts));
        QCOMPARE(window.runPanel()->state(), RunState::Failed);
    }

    // summary.json: a run that ended before its first evaluation has no score (null, and
    // "evaluated": false), where it wrote 0: a regression's perfect RMSE.
    void aSummaryWithoutAnEvaluationHasNoScore() {
        RunSummary never;
        never.regression = true;
        const QJsonObject none = never.toJson();
        QVERIFY(none["best_test_rmse"].isNull() && none["final_test_rmse"].isNull());
        QCOMPARE(none["evaluated"], QJsonValue(false));
        RunSummary scored;
        scored.evaluated = true, scored.finalAccuracy = 0.86, scored.bestAccuracy = 0.87;
        QCOMPARE(scored.toJson()["final_test_acc"].toDouble(), 0.86);
        QCOMPARE(scored.toJson()["best_test_acc"].toDouble(), 0.87);
    }

    void statusStripCountsRoundsAndEstimatesTheRest() {
        RunStatus status;
        QVERIFY(status.text().isEmpty());  // nothing runs
        status.start(20);
        status.setState(RunState::Running);
        QVERIFY2(status.text().contains("round 0 of 20"), qPrintable(status.text()));
        RoundRow row;
        row.round = 5;
        row.elapsed = 10;  // 2 s a round so far: 15 rounds to go take about 30 s
        status.onRound(row);
        QVERIFY2(status.text().startsWith("running · round 5 of 20"), qPrintable(status.text()));
        QVERIFY2(status.text().endsWith("about 30 s left"), qPrintable(status.text()));
        status.setState(RunState::Stopped);
        QVERIFY2(status.text().startsWith("stopped · round 5 of 20") && !status.text().contains("left"), qPrintable(status.text()));
    }
};

QTEST_MAIN(MainWindowTest)
#include "tst_mainwindow.moc"
