// The History tab and the status strip: runs newest first with why they did not finish, a filter
// typed as a user types it, and the run's round, time and estimate on every tab.
#include "Designer.h"
#include "HistoryPanel.h"
#include "LiteralText.h"
#include "LiveChart.h"
#include "MainWindow.h"
#include "RunStatus.h"
#include "SaveDialogDriver.h"
#include "RunStore.h"
#include "TopologyEdits.h"
#include "TopologyReader.h"
#include "TopologyWriter.h"

#include <QAction>
#include <QApplication>
#include <QSettings>
#include <QStandardPaths>
#include <QTextBrowser>
#include <QChart>
#include <QComboBox>
#include <QLineSeries>
#include "RunCharts.h"
#include "RunNotifier.h"
#include "RunPanel.h"
#include "Versions.h"
#include <QLineEdit>
#include <QPushButton>
#include <QStatusBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QTextDocument>
#include <QCheckBox>
#include <QDesktopServices>
#include <QDir>
#include <QMessageBox>
#include <QTimer>
#include <QAbstractButton>
#include <QtTest>

using namespace hips;

class HistoryTest : public QObject {
    Q_OBJECT
public Q_SLOTS:
    void openUrl(const QUrl& url) { m_opened = url; }  // the desktop's file handler, in the test

private:
    QUrl m_opened;

private Q_SLOTS:
    void newestFirstWithReasonsAndAFilter() {
        QTemporaryDir dir;
        QString error;
        auto store = RunStore::open(dir.filePath("h.sqlite"), &error);
        QVERIFY2(store, qPrintable(error));
        const qint64 a = store->beginRun("alpha", "{}", {});
        store->finishRun(a, "finished", QJsonObject{{"ok", true}});
        const qint64 b = store->beginRun("beta", "{}", {});
        store->finishRun(b, "failed", QJsonObject{{"reason", "party1/worker1 (pid 42) was killed by signal 9"}});
        const qint64 c = store->beginRun("gamma", "{}", {});
        store->finishRun(c, "stopped", QJsonObject{{"reason", "stopped from HiPS Studio"}});
        QVERIFY(store->flush());

        HistoryPanel panel;
        panel.setStore(store.get());
        panel.show();
        QTableWidget* table = panel.table();
        QCOMPARE(table->rowCount(), 3);
        QCOMPARE(table->item(0, 1)->text(), QString("gamma"));  // newest first
        QCOMPARE(table->item(2, 1)->text(), QString("alpha"));
        QCOMPARE(table->horizontalHeaderItem(9)->text(), QString("Reason"));
        QCOMPARE(table->item(1, 9)->text(), QString("party1/worker1 (pid 42) was killed by signal 9"));
        QVERIFY(table->item(2, 9)->text().isEmpty());

        QTest::keyClicks(panel.filter(), "SIGNAL");  // the reason, whatever the case
        QVERIFY(table->isRowHidden(0) && !table->isRowHidden(1) && table->isRowHidden(2));
        panel.filter()->clear();
        QTest::keyClicks(panel.filter(), "stopped");  // a status
        QVERIFY(!table->isRowHidden(0) && table->isRowHidden(1) && table->isRowHidden(2));
        panel.filter()->clear();
        for (int row = 0; row < 3; ++row) QVERIFY(!table->isRowHidden(row));
    }

    // Delete names the runs (as plain text: a name from the file is no markup), and with its box
    // ticked takes their run directories too, named in the box; a folder that does not hold a run
    // (a project's folder with a topology.json, which a history file from elsewhere may name) is
    // never offered, so never removed.
    void deleteNamesTheRunsAndTakesTheirDirectoriesWhenAsked() {
        QTemporaryDir dir;
        QString error;
        auto store = RunStore::open(dir.filePath("h.sqlite"), &error);
        QVERIFY2(store, qPrintable(error));
        const QString runDir = dir.filePath("runs/one"), notARun = dir.filePath("project");
        QVERIFY(QDir().mkpath(runDir + "/logs") && QDir().mkpath(notARun));
        for (const QString& file : {runDir + "/topology.json", runDir + "/metrics.jsonl", notARun + "/topology.json"}) {
            QFile f(file);
            QVERIFY(f.open(QIODevice::WriteOnly) && f.write("{}") == 2);
        }
        const qint64 one = store->beginRun("one", "{}", {}, runDir), two = store->beginRun("two", "{}", {}, notARun);
        store->finishRun(one, "finished", {});
        store->finishRun(two, "finished", {});
        QVERIFY(store->flush());
        HistoryPanel panel;
        panel.setStore(store.get());
        panel.show();
        panel.selectRuns({one, two});
        QString asked, offered, folders;
        bool plain = false;
        QTimer::singleShot(0, &panel, [&] {
            auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
            if (!box) return;
            asked = box->text();
            folders = box->informativeText();
            plain = box->textFormat() == Qt::PlainText;
            if (box->checkBox()) offered = box->checkBox()->text(), box->checkBox()->setChecked(true);
            box->button(QMessageBox::Yes)->click();
        });
        QTest::mouseClick(panel.findChild<QPushButton*>("delete_runs"), Qt::LeftButton);
        QVERIFY2(asked.contains(QString("run %1 (one)").arg(one)) && asked.contains(QString("run %1 (two)").arg(two)), qPrintable(asked));
        QVERIFY2(offered.contains("1 folder"), qPrintable(offered));
        QVERIFY2(folders.contains(runDir) && !folders.contains(notARun), qPrintable(folders));
        QVERIFY(plain);
        QCOMPARE(panel.table()->rowCount(), 0);
        QVERIFY(!QFileInfo::exists(runDir));
        QVERIFY(QFileInfo::exists(notARun));
    }

    // A name from the file is drawn as it is, never as markup: in a chart's legend (Qt Charts draws
    // labels as HTML) and in a tooltip, where Qt guesses.
    void namesFromTheFileAreNoMarkup() {
        LiveChart chart("t", "y");
        const QString name = QStringLiteral("<font color=white>hidden</font> & more");
        chart.setLineName(chart.addLine(name, Qt::red), name);
        for (QAbstractSeries* s : chart.chart()->series()) QCOMPARE(s->name(), name.toHtmlEscaped());
        QTextDocument shown;
        shown.setHtml(literalToolTip(name));
        QVERIFY(Qt::mightBeRichText(literalToolTip(name)));
        QCOMPARE(shown.toPlainText(), name);
    }

    // A run that just finished is selected (its curve shows) when the newest run was: the user had
    // looked at the last one. A run the user chose among older ones stays chosen.
    void theRunJustFinishedIsSelectedInsteadOfTheLastOne() {
        QTemporaryDir dir;
        QString error;
        auto store = RunStore::open(dir.filePath("h.sqlite"), &error);
        QVERIFY2(store, qPrintable(error));
        auto finished = [&](const char* name) {
            const qint64 id = store->beginRun(name, "{}", {});
            store->finishRun(id, "finished", QJsonObject{{"ok", true}});
            return store->flush() ? id : -1;
        };
        const qint64 first = finished("first"), second = finished("second");
        HistoryPanel panel;
        panel.setStore(store.get());
        QCOMPARE(panel.selectedRuns(), QList<qint64>{second});
        const qint64 third = finished("third");
        panel.refresh();  // as the end of a run does
        QCOMPARE(panel.selectedRuns(), QList<qint64>{third});
        panel.selectRuns({first});
        finished("fourth");
        panel.refresh();
        QCOMPARE(panel.selectedRuns(), QList<qint64>{first});
    }

    // Numbers sort as numbers: with runs 9 and 10, newest first is 10 then 9 (as text, 9 came
    // first, and run 99 before run 164); a click on a numeric header sorts by its value.
    void numericColumnsSortByValue() {
        QTemporaryDir dir;
        QString error;
        auto store = RunStore::open(dir.filePath("h.sqlite"), &error);
        QVERIFY2(store, qPrintable(error));
        for (int i = 1; i <= 10; ++i) {
            const qint64 run = store->beginRun(QStringLiteral("run%1").arg(i), "{}", {});
            store->appendMetric(run, i, "central/master_worker", 1, "eval.test_acc", i == 2 ? 0.9 : 0.1 * (i % 2));
            store->finishRun(run, "finished", QJsonObject{{"ok", true}});
        }
        QVERIFY(store->flush());
        HistoryPanel panel;
        panel.setStore(store.get());
        panel.show();
        QTableWidget* table = panel.table();
        QCOMPARE(table->item(0, 0)->text(), QString("10"));
        QCOMPARE(table->item(1, 0)->text(), QString("9"));
        QCOMPARE(table->item(9, 0)->text(), QString("1"));
        table->sortItems(5, Qt::DescendingOrder);  // best accuracy
        QCOMPARE(table->item(0, 1)->text(), QString("run2"));
    }

    // Names, tags and notes are edited in place (double-click, type, Enter), kept in the history
    // and found by the filter; other cells open the run instead of editing.
    void namesTagsAndNotesAreEditedInPlace() {
        QTemporaryDir dir;
        QString error;
        auto store = RunStore::open(dir.filePath("h.sqlite"), &error);
        QVERIFY2(store, qPrintable(error));
        const qint64 run = store->beginRun("default", "{}", {});
        store->finishRun(run, "finished", {});
        QVERIFY(store->flush());
        HistoryPanel panel;
        panel.setStore(store.get());
        panel.resize(1800, 500);  // every column in view
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QTableWidget* table = panel.table();
        QCOMPARE(table->horizontalHeaderItem(10)->text(), QString("Tags"));
        QCOMPARE(table->horizontalHeaderItem(11)->text(), QString("Notes"));
        auto type = [&](const QString& text) {
            auto* editor = table->viewport()->findChild<QLineEdit*>();  // the cell's editor
            QVERIFY(editor && editor->isVisible());
            editor->selectAll();
            QTest::keyClicks(editor, text);
            QTest::keyClick(editor, Qt::Key_Return);
            QCoreApplication::processEvents();  // the delegate commits and closes the editor on the next pass
            QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
        };
        const QRect nameCell = table->visualItemRect(table->item(0, 1));
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, nameCell.center());  // a real double-click: press,
        QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, nameCell.center());  // release, double-click
        type("baseline");
        for (const auto& [column, text] : {std::pair{10, QString("cnn, iid")}, std::pair{11, QString("lr 0.05 looks best")}}) {
            table->setCurrentCell(0, column);
            QTest::keyClick(table, Qt::Key_F2);  // the keyboard's way in
            type(text);
        }
        const auto stored = store->run(run);
        QCOMPARE(stored->name, QString("baseline"));
        QCOMPARE(stored->tags, QString("cnn, iid"));
        QCOMPARE(stored->notes, QString("lr 0.05 looks best"));
        QTest::keyClicks(panel.filter(), "looks");
        QVERIFY(!table->isRowHidden(0));
        panel.filter()->clear();
        QTest::keyClicks(panel.filter(), "nothing like it");
        QVERIFY(table->isRowHidden(0));
        QVERIFY(!(table->item(0, 4)->flags() & Qt::ItemIsEditable));  // the status is the run's, not the user's
    }

    // Comparing runs: the chart shows the chosen metric, and a table lists the settings that differ.
    void compareShowsTheChosenMetricAndTheSettingsThatDiffer() {
        QTemporaryDir dir;
        QString error;
        auto store = RunStore::open(dir.filePath("h.sqlite"), &error);
        QVERIFY2(store, qPrintable(error));
        const qint64 a = store->beginRun("a", "{}", {{"rounds", 3}, {"learning_rate", 0.05}, {"mode", "fedavg"}});
        const qint64 b = store->beginRun("b", "{}", {{"rounds", 3}, {"learning_rate", 0.1}, {"mode", "esync"}});
        const qint64 twin = store->beginRun("a again", "{}", {{"rounds", 3}, {"learning_rate", 0.05}, {"mode", "fedavg"}});
        for (qint64 run : {a, b, twin}) store->finishRun(run, "finished", {});
        QVERIFY(store->flush());
        HistoryPanel panel;
        panel.setStore(store.get());
        panel.selectRuns({a, b});
        QTableWidget* diff = panel.settingsDiff();
        QCOMPARE(diff->rowCount(), 2);  // rounds is the same: not listed
        QCOMPARE(diff->item(0, 0)->text(), QString("learning_rate"));
        QCOMPARE(diff->horizontalHeaderItem(1)->text(), QString("#%1").arg(b));  // newest first, as in the list
        QCOMPARE(diff->item(0, 1)->text() + ' ' + diff->item(0, 2)->text(), QString("0.1 0.05"));
        QCOMPARE(diff->item(1, 0)->text(), QString("mode"));
        panel.compareMetric()->setCurrentIndex(1);
        QCOMPARE(panel.overlay()->chart()->title(), QString("Training loss of the selected runs"));
        QCOMPARE(panel.overlay()->lineCount(), 2);
        panel.selectRuns({a});  // one run: all its settings
        QCOMPARE(diff->rowCount(), 3);
        panel.selectRuns({a, twin});  // nothing differs: said, not an empty table
        QCOMPARE(diff->rowCount(), 1);
        QCOMPARE(diff->item(0, 0)->text() + ": " + diff->item(0, 1)->text(), QString("every setting: the same"));
    }

    // Two runs with the same settings on different topologies: the compare table says how the
    // topologies differ (here key slicing: 2 servers per party, so 3 more processes), shape first.
    void compareShowsHowTheTopologiesDiffer() {
        QTemporaryDir dir;
        QString error;
        auto store = RunStore::open(dir.filePath("h.sqlite"), &error);
        QVERIFY2(store, qPrintable(error));
        TopologyLoad small = TopologyReader::readFile(QStringLiteral(HIPS_SOURCE_DIR "/tests/data/topologies/small.json"));
        QVERIFY(small.ok());
        Topology sliced = *small.topology;
        QVERIFY(edits::setServerCount(sliced, 2).isEmpty());
        const qint64 one = store->beginRun("one", TopologyWriter::toJson(*small.topology), {{"rounds", 3}});
        const qint64 two = store->beginRun("two", TopologyWriter::toJson(sliced), {{"rounds", 3}});
        QVERIFY(store->flush());
        HistoryPanel panel;
        panel.setStore(store.get());
        panel.selectRuns({one, two});
        QTableWidget* diff = panel.settingsDiff();
        QStringList rows;
        for (int r = 0; r < diff->rowCount(); ++r)
            rows << diff->item(r, 0)->text() + ' ' + diff->item(r, 1)->text() + ' ' + diff->item(r, 2)->text();
        const qint64 processes = small.topology->nodeCount();
        QCOMPARE(rows.mid(0, 2), QStringList({QString("processes %1 %2").arg(processes + 3).arg(processes), "servers_per_party 2 1"}));
        QVERIFY2(rows.filter(QRegularExpression("^party1\\.servers\\[1\\]\\.port \\d+ -$")).size() == 1, qPrintable(rows.join('\n')));
        panel.selectRuns({one});  // one run: its shape, then its settings
        QCOMPARE(diff->item(0, 0)->text(), QString("parties"));
        QCOMPARE(diff->item(diff->rowCount() - 1, 0)->text(), QString("rounds"));

        // A worker group's own setting (here party2's slowdown) is a row of its own; nothing else differs.
        Topology slow = *small.topology;
        slow.parties[2].workers[0].slowdown = 3;
        const qint64 three = store->beginRun("three", TopologyWriter::toJson(slow), {{"rounds", 3}});
        QVERIFY(store->flush());
        panel.refresh();
        panel.selectRuns({one, three});
        QCOMPARE(diff->rowCount(), 1);
        QCOMPARE(diff->item(0, 0)->text() + ' ' + diff->item(0, 1)->text() + ' ' + diff->item(0, 2)->text(),
                 QString("party2.workers[0].slowdown 3 -"));  // (1, the default, is left out of the file)
    }

    // A past run that failed before its first round, shown in the charts: the reason, not "No rounds
    // yet. Start a run, or open one from the history".
    void aPastRunThatFailedAtOnceShowsWhy() {
        QTemporaryDir dir;
        qint64 run = 0;
        {
            QString error;
            auto store = RunStore::open(dir.filePath("h.sqlite"), &error);
            QVERIFY2(store, qPrintable(error));
            run = store->beginRun("broken", "{}", {});
            store->finishRun(run, "failed", {{"reason", "party1/worker0: Fashion-MNIST file /x is missing"}, {"run_dir", "/tmp/r7"}});
            QVERIFY(store->flush());
        }
        MainWindow window(dir.filePath("h.sqlite"));
        QVERIFY(window.showStoredRun(run));
        QVERIFY2(window.charts()->factsText().contains("failed before its first round: party1/worker0: Fashion-MNIST file /x is missing"),
                 qPrintable(window.charts()->factsText()));
        QVERIFY2(window.charts()->factsText().contains("Each process's log is in /tmp/r7/logs."), qPrintable(window.charts()->factsText()));
    }

    // A past regression in the charts: its RMSE, with each party's held-out RMSE dashed beside it,
    // as the live charts drew them.
    void aPastRegressionShowsItsRmseAndEachPartysOwn() {
        QTemporaryDir dir;
        qint64 run = 0;
        {
            QString error;
            auto store = RunStore::open(dir.filePath("h.sqlite"), &error);
            QVERIFY2(store, qPrintable(error));
            run = store->beginRun("regression", "{}", {{"rounds", 2}});
            const double t0 = store->run(run)->started;
            for (int round = 1; round <= 2; ++round) {
                store->appendMetric(run, t0 + round, "central/global_server0", round, "aggregate.apply_s", 0.01);
                store->appendMetric(run, t0 + round, "party1/worker0", round, "train.loss", 0.5);
                store->appendMetric(run, t0 + round, "central/master_worker", round, "eval.test_rmse", 0.4 / round);
                store->appendMetric(run, t0 + round, "party1/worker0", round, "party_eval.test_rmse", 0.5 / round);
            }
            store->finishRun(run, "finished", {});
            QVERIFY(store->flush());
        }
        MainWindow window(dir.filePath("h.sqlite"));
        QVERIFY(window.showStoredRun(run));
        LiveChart* chart = window.charts()->accuracy();
        QCOMPARE(chart->lineCount(), 2);  // the test RMSE and party1's own
        QCOMPARE(chart->pointCount(0), 2);
        QCOMPARE(chart->pointCount(1), 2);
        QVERIFY2(window.charts()->factsText().contains("Test RMSE"), qPrintable(window.charts()->factsText()));
    }

    // Two runs selected, Show in charts clicked: the first in the charts, the second over it,
    // dashed, on every chart of rounds, on whichever x axis and traffic mode is chosen.
    void showInChartsOverlaysTheOtherSelectedRunsOnEveryChart() {
        QTemporaryDir dir;
        qint64 first = 0, second = 0;
        {
            QString error;
            auto store = RunStore::open(dir.filePath("h.sqlite"), &error);
            QVERIFY2(store, qPrintable(error));
            for (qint64* run : {&first, &second}) {
                *run = store->beginRun(run == &first ? "fedavg" : "esync", "{}", {{"rounds", 3}});
                const double t0 = store->run(*run)->started;
                for (int round = 1; round <= 3; ++round) {
                    store->appendMetric(*run, t0 + round, "central/global_server0", round, "aggregate.apply_s", 0.01);
                    store->appendMetric(*run, t0 + round, "party1/worker0", round, "train.loss", 1.0 / round);
                    store->appendMetric(*run, t0 + round, "party1/worker0", round, "train.samples", 64);
                    store->appendMetric(*run, t0 + round, "central/master_worker", round, "eval.test_acc", 0.5 + round / 10.0);
                }
                store->finishRun(*run, "finished", {});
            }
            QVERIFY(store->flush());
        }
        MainWindow window(dir.filePath("h.sqlite"));
        window.show();
        window.history()->selectRuns({first, second});
        auto* show = window.history()->findChild<QPushButton*>("show_in_charts");
        QVERIFY(show && show->isEnabled());
        QTest::mouseClick(show, Qt::LeftButton);
        RunCharts* charts = window.charts();
        QCOMPARE(charts->comparisonCount(), 1);
        const QString name = QString("#%1 fedavg").arg(first);  // the list is newest first: the other run is shown, this one over it
        QCOMPARE(charts->accuracy()->lineCount(), 2);
        QCOMPARE(charts->accuracy()->pointCount(1), 3);
        for (LiveChart* chart : {charts->loss(), charts->throughput(), charts->computeRatio()}) {
            QCOMPARE(chart->lineName(chart->lineCount() - 1), name);
            QCOMPARE(chart->pointCount(chart->lineCount() - 1), 3);
        }
        auto* traffic = charts->findChild<QComboBox*>("traffic_mode");
        traffic->setCurrentIndex(1);  // the traffic chart is drawn anew as rates: the comparison with it
        QCOMPARE(charts->traffic()->lineCount(), 3);
        QCOMPARE(charts->traffic()->lineName(2), name + ", across");
        charts->findChild<QComboBox*>("x_axis")->setCurrentIndex(2);  // time since start: the runs side by side
        QCOMPARE(charts->accuracy()->pointCount(1), 3);
        QVERIFY(window.showStoredRun(first));  // alone again
        QCOMPARE(charts->comparisonCount(), 0);
        QCOMPARE(charts->accuracy()->lineCount(), 1);
    }

    // "Open topology" on a past run puts its topology and settings, as it ran, in the designer.
    void aPastRunsTopologyOpensInTheDesigner() {
        QTemporaryDir dir;
        {
            QString error;
            auto store = RunStore::open(dir.filePath("h.sqlite"), &error);
            QVERIFY2(store, qPrintable(error));
            QFile small(QStringLiteral(HIPS_SOURCE_DIR "/tests/data/topologies/small.json"));
            QVERIFY(small.open(QIODevice::ReadOnly));
            const qint64 run = store->beginRun("small-synthetic", small.readAll(), {});
            store->finishRun(run, "finished", {});
            QVERIFY(store->flush());
        }
        MainWindow window(dir.filePath("h.sqlite"));
        window.show();
        window.history()->refresh();
        window.history()->selectRuns({1});
        auto* reopen = window.history()->findChild<QPushButton*>("reopen_topology");
        QVERIFY(reopen && reopen->isEnabled());
        // Unsaved edits in the designer are not dropped without a word: the question comes first,
        // and Cancel keeps them (the past run's topology replaced them, undo history and all).
        Topology edited = window.designer()->topology();
        edited.training.rounds = 77;
        window.designer()->apply(QStringLiteral("edit"), edited);
        QString asked;
        QTimer::singleShot(0, &window, [&] {
            auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
            if (!box) return;
            asked = box->text();
            box->button(QMessageBox::Cancel)->click();
        });
        QTest::mouseClick(reopen, Qt::LeftButton);
        QCOMPARE(asked, QString("Save the changes to the topology first?"));
        QCOMPARE(window.designer()->topology().training.rounds, 77);
        QTimer::singleShot(0, &window, [&] {
            if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget())) box->button(QMessageBox::Discard)->click();
        });
        QTest::mouseClick(reopen, Qt::LeftButton);
        QCOMPARE(window.designer()->topology().name, QString("small-synthetic"));
        QCOMPARE(window.designer()->topology().training.rounds, 6);
        QCOMPARE(window.designer()->topology().training.dataset, QString("synthetic"));
    }

    // A run shown in the charts gets the newest finished `local` run with its model and data set
    // as a dashed reference line on the accuracy chart; a local run itself gets none.
    void localBaselineIsTheReferenceLine() {
        QTemporaryDir dir;
        QByteArray small;
        {
            QFile f(QStringLiteral(HIPS_SOURCE_DIR "/tests/data/topologies/small.json"));
            QVERIFY(f.open(QIODevice::ReadOnly));
            small = f.readAll();
            QString error;
            auto store = RunStore::open(dir.filePath("h.sqlite"), &error);
            QVERIFY2(store, qPrintable(error));
            const qint64 other = store->beginRun("cnn-local", "{}", {{"mode", "local"}, {"model", "cnn"}, {"dataset", "synthetic"}});
            const qint64 local = store->beginRun("mlp-local", "{}", {{"mode", "local"}, {"model", "mlp"}, {"dataset", "synthetic"}});
            const qint64 fed = store->beginRun("small-synthetic", small, {{"mode", "fedavg"}, {"model", "mlp"}, {"dataset", "synthetic"}});
            const double t0 = store->run(local)->started;  // the baseline evaluated 10 s and 20 s after its start
            store->appendMetric(local, t0 + 10, "central/master_worker", 1, "eval.test_acc", 0.7);
            store->appendMetric(local, t0 + 20, "central/master_worker", 2, "eval.test_acc", 0.8);
            for (qint64 run : {other, local, fed}) store->finishRun(run, "finished", {});
            QVERIFY(store->flush());
        }
        MainWindow window(dir.filePath("h.sqlite"));
        QVERIFY(window.showStoredRun(3));
        LiveChart* accuracy = window.charts()->accuracy();
        QCOMPARE(accuracy->lineCount(), 2);
        auto* reference = qobject_cast<QLineSeries*>(accuracy->chart()->series()[3]);
        QCOMPARE(reference->name(), QString("local baseline (run 2)"));  // mlp on synthetic, not the cnn one
        QCOMPARE(reference->pen().style(), Qt::DashLine);
        // On the time axis its points are at its own times (they were all at 0 s).
        accuracy->setXAxis(LiveChart::XAxis::Elapsed);
        QCOMPARE(reference->count(), 2);
        QCOMPARE(reference->at(0), QPointF(10, 0.7));
        QCOMPARE(reference->at(1), QPointF(20, 0.8));
    }

    // Export report: the dialog opens in the documents folder (not the studio's working
    // directory), proposes "run<N>-<name>.pdf", gives a bare name ".pdf", writes the report
    // there, and the next export opens in that folder.
    void exportAsksWhereAndRemembersTheFolder() {
        QStandardPaths::setTestModeEnabled(true);  // QSettings of the test, not the user's
        QSettings().remove("export");
        QTemporaryDir dir;
        QString error;
        auto store = RunStore::open(dir.filePath("h.sqlite"), &error);
        QVERIFY2(store, qPrintable(error));
        const qint64 run = store->beginRun(QString::fromUtf8("fedavg 2×4"), "{}", {});
        store->finishRun(run, "finished", QJsonObject{{"ok", true}});
        QVERIFY(store->flush());
        HistoryPanel panel;
        panel.setStore(store.get());
        panel.show();
        panel.selectRuns({run});
        QPushButton* button = nullptr;
        for (QPushButton* b : panel.findChildren<QPushButton*>())
            if (b->text() == QString::fromUtf8("Export report…")) button = b;
        QVERIFY(button && button->isEnabled());

        auto exportAs = [&](const QString& typed) {
            return test::answerSaveDialog([&] { QTest::mouseClick(button, Qt::LeftButton); }, typed);
        };
        const QString documents = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
        const test::SaveDialogAnswer first = exportAs(dir.filePath("weekly"));
        QCOMPARE(first.folder, QDir(documents).exists() ? documents : QDir::homePath());
        QCOMPARE(first.proposed, QString("run1-fedavg-2-4.pdf"));
        QVERIFY2(QFile(dir.filePath("weekly.pdf")).size() > 1000, qPrintable("no weekly.pdf; " + first.warning));
        QCOMPARE(exportAs({}).folder, dir.path());  // the folder of the last export
    }

    // Open folder opens the selected run's directory in the file manager (here, the handler the
    // desktop would call); a run whose directory is gone has the button disabled.
    void openFolderOpensTheRunsDirectory() {
        QTemporaryDir dir;
        QString error;
        auto store = RunStore::open(dir.filePath("h.sqlite"), &error);
        QVERIFY2(store, qPrintable(error));
        const QString runDir = dir.filePath("runs/one");
        QVERIFY(QDir().mkpath(runDir));
        const qint64 one = store->beginRun("one", "{}", {}, runDir), gone = store->beginRun("gone", "{}", {}, dir.filePath("runs/gone"));
        store->finishRun(one, "finished", {});
        store->finishRun(gone, "finished", {});
        QVERIFY(store->flush());
        HistoryPanel panel;
        panel.setStore(store.get());
        panel.show();
        auto* button = panel.findChild<QPushButton*>("open_run_folder");
        QVERIFY(button);
        QDesktopServices::setUrlHandler("file", this, "openUrl");
        panel.selectRuns({gone});
        QVERIFY(!button->isEnabled());
        panel.selectRuns({one});
        QVERIFY(button->isEnabled());
        QTest::mouseClick(button, Qt::LeftButton);
        QDesktopServices::unsetUrlHandler("file");
        QCOMPARE(m_opened, QUrl::fromLocalFile(runDir));
    }
};

QTEST_MAIN(HistoryTest)
#include "tst_history.moc"
