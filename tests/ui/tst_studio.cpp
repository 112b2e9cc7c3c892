// hips-studio end to end on loopback: Start all on a small synthetic-data topology fills the
// process table and the accuracy chart; the run lands in the history view (and shows again
// from there with the same figures); Stop all mid-run leaves no process behind. Every process
// carries this test's tag in its environment, and the test scans /proc for it.
#include "../integration/FreePorts.h"
#include "DeploymentTable.h"
#include "Designer.h"
#include "DesignerScene.h"
#include "HistoryPanel.h"
#include "LiveChart.h"
#include "LogPane.h"
#include "MainWindow.h"
#include "ProcessTableModel.h"
#include "RunCharts.h"
#include "RunPanel.h"
#include "RunStore.h"
#include "SaveDialogDriver.h"

#include <QLineEdit>
#include <QTableView>
#include <QComboBox>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QNetworkInterface>
#include <QTcpServer>
#include <QProcess>
#include <QPushButton>
#include <QScreen>
#include <QStatusBar>
#include <QSettings>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QUuid>
#include <QInputDialog>
#include <QTimer>
#include <QtTest>

using namespace hips;

namespace {

const QString kSmall = QStringLiteral(HIPS_SOURCE_DIR "/tests/data/topologies/small.json");

QList<qint64> taggedProcesses(const QByteArray& tag) {
    QList<qint64> pids;
    for (const QString& entry : QDir("/proc").entryList(QDir::Dirs)) {
        bool isPid = false;
        const qint64 pid = entry.toLongLong(&isPid);
        if (!isPid || pid == QCoreApplication::applicationPid()) continue;
        QFile env("/proc/" + entry + "/environ");
        if (env.open(QIODevice::ReadOnly) && env.readAll().split('\0').contains("HIPS_TEST_TAG=" + tag)) pids << pid;
    }
    return pids;
}

// Each round's wall-clock time (ms) on `chart`'s first line, as its CSV export writes them.
QHash<int, double> wallTimesByRound(const LiveChart& chart) {
    QTemporaryDir dir;
    const QString path = dir.filePath("chart.csv");
    if (!chart.saveCsv(path).isEmpty()) return {};
    QFile csv(path);
    if (!csv.open(QIODevice::ReadOnly)) return {};
    const QStringList lines = QString::fromUtf8(csv.readAll()).split('\n', Qt::SkipEmptyParts).mid(1);  // (its header)
    QHash<int, double> walls;
    for (const QString& line : lines)
        if (line.section(',', 0, 0) == lines.value(0).section(',', 0, 0))
            walls.insert(line.section(',', 1, 1).toInt(), line.section(',', 2, 2).toDouble());
    return walls;
}

// The round run `id` was last resumed from, as its history says.
int resumedRound(MainWindow& window, qint64 id) {
    static const QRegularExpression resumed(QStringLiteral("resumed from the checkpoint of round (\\d+)"));
    const QRegularExpressionMatch m = resumed.match(window.store()->eventMessages(id, "info").join('\n'));
    return m.hasMatch() ? m.captured(1).toInt() : 0;
}

}  // namespace

class StudioTest : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QByteArray m_tag = QUuid::createUuid().toByteArray(QUuid::WithoutBraces);
    hips::test::FreePorts m_ports;
    QString m_small;  // small.json on ports free for this test

private Q_SLOTS:
    void initTestCase() {
        qputenv("HIPS_TEST_TAG", m_tag);  // inherited by the agent and every role
        QStandardPaths::setTestModeEnabled(true);  // QSettings of the test, not the user's
        m_small = m_ports.movedCopy(kSmall, m_dir.path());
    }

    // The first start (no saved geometry) on a screen smaller than the roomy default: the window
    // fits it (offscreen, the screen is 800×600), so nothing of it is out of reach.
    void theFirstWindowFitsTheScreen() {
        QSettings().remove("window");
        MainWindow window(m_dir.filePath("history.sqlite"));
        const QSize screen = window.screen()->availableSize();
        QVERIFY2(window.width() <= screen.width() && window.height() <= screen.height(),
                 qPrintable(
                     QString("%1×%2 on a %3×%4 screen").arg(window.width()).arg(window.height()).arg(screen.width()).arg(screen.height())));
    }

    // `hips-studio --screenshot` (the docs' pictures) writes its PNG and leaves the user's
    // settings alone: it had saved its 1500×900 window and its file as a recent one.
    void aScreenshotLeavesTheUsersSettingsAlone() {
        QTemporaryDir config;
        QProcess studio;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("XDG_CONFIG_HOME", config.path());
        env.insert("QT_QPA_PLATFORM", "offscreen");
        studio.setProcessEnvironment(env);
        const QString picture = m_dir.filePath("design.png");
        studio.start(HIPS_BIN_DIR "/hips-studio", {HIPS_SOURCE_DIR "/tests/data/topologies/small.json", "--history",
                                                   m_dir.filePath("pictured.sqlite"), "--screenshot", picture});
        QVERIFY(studio.waitForFinished(60000));
        QCOMPARE(studio.exitCode(), 0);
        QVERIFY(QImage(picture).width() >= 1500);
        QVERIFY2(QDir(config.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot).isEmpty(),
                 qPrintable(QDir(config.path()).entryList().join(' ')));
    }

    // Save as proposes the file the topology came from, in its folder; a name typed without an
    // extension is saved as .json; a new topology is proposed under its own name in the folder
    // last saved to (not the studio's working directory).
    void saveAsProposesANameAndAddsJson() {
        QSettings().remove("recent");
        MainWindow window(m_dir.filePath("history.sqlite"));
        QVERIFY(window.openTopology(kSmall));
        auto trigger = [&](const QString& text) {
            for (QAction* a : window.findChildren<QAction*>())
                if (a->text() == text) return a->trigger();
            QFAIL(qPrintable("no action " + text));
        };
        QTemporaryDir dir;
        const test::SaveDialogAnswer first = test::answerSaveDialog([&] { trigger(QString::fromUtf8("Save &as…")); }, dir.filePath("lab"));
        QCOMPARE(first.folder, QFileInfo(kSmall).absolutePath());
        QCOMPARE(first.proposed, QString("small.json"));
        QVERIFY2(QFile::exists(dir.filePath("lab.json")), qPrintable(first.warning));
        QCOMPARE(window.designer()->document()->path(), dir.filePath("lab.json"));

        trigger(QString::fromUtf8("&New topology"));
        const test::SaveDialogAnswer second = test::answerSaveDialog([&] { trigger(QString::fromUtf8("Save &as…")); }, {});
        QCOMPARE(second.folder, dir.path());
        QCOMPARE(second.proposed, QString("untitled.json"));
    }

    // On a machine without a display, the studio says so and names the CLI (Qt aborted with a
    // message about platform plugins); --help and --version need no display.
    void withoutADisplayItSaysWhatToUse() {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"}) env.remove(name);
        auto studio = [&](const QStringList& args) {
            QProcess p;
            p.setProcessEnvironment(env);
            p.start(HIPS_BIN_DIR "/hips-studio", args);
            p.waitForFinished(30000);
            return std::pair{p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
                             QString::fromUtf8(p.readAllStandardOutput() + p.readAllStandardError())};
        };
        const auto [status, out] = studio({});
        QCOMPARE(status, 2);
        QVERIFY2(out.contains("there is no display to open a window on") && out.contains("hips run"), qPrintable(out));
        const auto [helpStatus, help] = studio({"--help"});
        QCOMPARE(helpStatus, 0);
        QVERIFY2(help.contains("--history"), qPrintable(help));
        // A picture of a topology that cannot be opened says why and ends (it waited for ever
        // on a message box no one could see).
        const auto [missingStatus, missing] = studio({"/nonexistent/t.json", "--screenshot", m_dir.filePath("x.png")});
        QCOMPARE(missingStatus, 2);
        QVERIFY2(missing.contains("hips-studio: /nonexistent/t.json: $: cannot open the file"), qPrintable(missing));
    }

    void startAllRunsAndTheHistoryKeepsIt() {
        MainWindow window(m_dir.filePath("history.sqlite"));
        window.show();
        QVERIFY(window.openTopology(m_small));
        RunPanel* run = window.runPanel();
        QVERIFY(run->startButton()->isEnabled());
        QCOMPARE(run->processes()->rowCount(), 11);  // what Start all will run, before it runs
        // The filter above the table narrows it to a party's processes, typed as a user types.
        auto* filter = run->findChild<QLineEdit*>("process_filter");
        auto* processTable = run->findChild<QTableView*>("process_table");
        QVERIFY(filter && processTable);
        QTest::keyClicks(filter, "party2/");
        QCOMPARE(processTable->model()->rowCount(), 0);  // the Role column holds "worker0", the Party column "party2"
        filter->clear();
        QTest::keyClicks(filter, "PARTY2");
        QCOMPARE(processTable->model()->rowCount(), 4);  // its scheduler, server and two workers
        filter->clear();
        QCOMPARE(processTable->model()->rowCount(), 11);

        window.setTab(MainWindow::RunTab);
        QTest::mouseClick(run->startButton(), Qt::LeftButton);
        QCOMPARE(window.tab(), MainWindow::RunTab);  // started from the Run tab: its processes stay in sight
        QTRY_VERIFY_WITH_TIMEOUT(run->state() == RunState::Running, 60000);
        QVERIFY(!run->startButton()->isEnabled());
        QVERIFY(run->stopButton()->isEnabled());
        for (int row = 0; row < 11; ++row)  // every process has a pid while it runs
            QVERIFY(run->processes()->data(run->processes()->index(row, ProcessTableModel::Pid), Qt::DisplayRole).toLongLong() > 0);
        // An edit while it runs: the status bar counts the edited topology (it kept the old count),
        // says the run goes on with its own, and the run does. (Without an edit it says nothing of it.)
        QVERIFY2(!window.statusBar()->currentMessage().contains("under way"), qPrintable(window.statusBar()->currentMessage()));
        window.designer()->scene()->selectElements({{ElementRef::Kind::Party, "party2"}});
        window.designer()->deleteSelection();
        const QString status = window.statusBar()->currentMessage();
        QVERIFY2(status.startsWith(QString("Topology valid: %1 process").arg(window.designer()->topology().nodes().size())) &&
                     status.contains("the run under way goes on with the topology it started with"),
                 qPrintable(status));
        QCOMPARE(run->processes()->rowCount(), 11);
        window.designer()->undoStack()->undo();
        QTRY_VERIFY_WITH_TIMEOUT(run->state() == RunState::Finished, 180000);
        QVERIFY2(!window.statusBar()->currentMessage().contains("under way"), qPrintable(window.statusBar()->currentMessage()));

        LiveChart* accuracy = window.charts()->accuracy();
        // small.json evaluates every round, but the evaluator takes the newest model when a newer one
        // came during its last evaluation (a loaded machine): the live chart has what the history keeps.
        const int evaluated = accuracy->pointCount(0);
        QVERIFY2(evaluated >= 1 && evaluated <= 6, qPrintable(QString::number(evaluated)));
        QVERIFY(accuracy->drawnPointCount(0) > 0);
        QCOMPARE(window.charts()->loss()->pointCount(0), 6);
        QVERIFY(run->log()->visibleLines() > 0);
        QTRY_VERIFY_WITH_TIMEOUT(taggedProcesses(m_tag).isEmpty(), 10000);

        // The history view lists the run, finished, and shows it again with the same curve.
        QTableWidget* table = window.history()->table();
        QTRY_COMPARE(table->rowCount(), 1);
        QCOMPARE(table->item(0, 4)->text(), QStringLiteral("finished"));
        QCOMPARE(table->item(0, 7)->text(), QStringLiteral("6"));
        QVERIFY(window.showStoredRun(table->item(0, 0)->text().toLongLong()));
        QCOMPARE(window.charts()->accuracy()->pointCount(0), evaluated);
        QCOMPARE(table->item(0, 6)->text().toDouble() > 0.5, true);  // the synthetic task was learned
        window.history()->selectRuns({table->item(0, 0)->text().toLongLong()});
        QCOMPARE(window.history()->overlay()->lineCount(), 1);
        QCOMPARE(window.history()->overlay()->pointCount(0), evaluated);
    }

    // A remote host that refuses SSH: while deploying, the Run tab shows a row per host with its
    // stage; the failure stays there with its cause, and the process table marks that host's
    // processes failed, saying why. (This machine's own non-loopback address and a closed port
    // make the refusal immediate.)
    void failedDeploymentNamesTheHostInTheTables() {
        QHostAddress address;
        for (const QHostAddress& a : QNetworkInterface::allAddresses())
            if (a.protocol() == QAbstractSocket::IPv4Protocol && !a.isLoopback()) address = a;
        if (address.isNull()) QSKIP("no non-loopback IPv4 address to deploy to");
        QTcpServer probe;
        QVERIFY(probe.listen(QHostAddress::Any));
        const int closedPort = probe.serverPort();
        probe.close();
        QFile small(kSmall);
        QVERIFY(small.open(QIODevice::ReadOnly));
        QJsonObject t = QJsonDocument::fromJson(small.readAll()).object();
        t["hosts"] = QJsonArray{QJsonObject{{"id", "far"}, {"address", address.toString()}, {"ssh_port", closedPort}}};
        QJsonArray parties = t["parties"].toArray();
        for (int i = 0; i < parties.size(); ++i) {
            QJsonObject party = parties[i].toObject();
            party["host"] = "far";
            parties[i] = party;
        }
        t["parties"] = parties;
        QFile remote(m_dir.filePath("remote.json"));
        QVERIFY(remote.open(QIODevice::WriteOnly) && remote.write(QJsonDocument(t).toJson()) > 0);
        remote.close();

        MainWindow window(m_dir.filePath("history-remote.sqlite"));
        window.show();
        QVERIFY(window.openTopology(remote.fileName()));
        RunPanel* run = window.runPanel();
        QTest::mouseClick(run->startButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(run->state() == RunState::Failed, 60000);
        QVERIFY(run->deployment()->isVisibleTo(run));  // shown for a remote run (the Run tab itself may be behind another)
        QCOMPARE(run->deployment()->rowCount(), 1);
        QVERIFY(run->deployment()->failed("far"));
        QCOMPARE(run->deployment()->stage("far"), QString("failed"));
        QVERIFY2(run->deployment()->result("far").contains(address.toString()), qPrintable(run->deployment()->result("far")));
        const int row = run->processes()->rowOf("central/global_server0");
        const QString why = run->processes()->data(run->processes()->index(row, ProcessTableModel::State), Qt::ToolTipRole).toString();
        QVERIFY2(why.contains("far") && why.contains("could not be deployed"), qPrintable(why));
        QVERIFY(run->processes()->data(run->processes()->index(row, ProcessTableModel::Host), Qt::ForegroundRole).isValid());
    }

    // A run stopped mid-way goes on from the History tab: Resume (clicked) takes it up from its
    // last checkpoint on the Run tab, into the same history run, which ends finished with every
    // round charted once; Resume is then offered no more for it.
    void aStoppedRunResumesFromTheHistoryTab() {
        QFile small(m_small);
        QVERIFY(small.open(QIODevice::ReadOnly));
        QJsonObject t = QJsonDocument::fromJson(small.readAll()).object();
        QJsonObject training = t["training"].toObject();
        training["rounds"] = 100;
        training["checkpoint_every"] = 1;
        t["training"] = training;
        QFile resumable(m_dir.filePath("resumable.json"));
        QVERIFY(resumable.open(QIODevice::WriteOnly) && resumable.write(QJsonDocument(t).toJson()) > 0);
        resumable.close();

        const QString history = m_dir.filePath("history-resume.sqlite");
        MainWindow window(history);
        window.show();
        QVERIFY(window.openTopology(resumable.fileName()));
        RunPanel* run = window.runPanel();
        QTest::mouseClick(run->startButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(window.charts()->accuracy()->pointCount(0) >= 4, 60000);
        QTest::mouseClick(run->stopButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(run->state() == RunState::Stopped, 30000);
        QTRY_VERIFY_WITH_TIMEOUT(taggedProcesses(m_tag).isEmpty(), 15000);

        window.setTab(MainWindow::HistoryTab);
        window.history()->refresh();
        QTableWidget* table = window.history()->table();
        QCOMPARE(table->rowCount(), 1);
        const qint64 id = table->item(0, 0)->text().toLongLong();
        QCOMPARE(table->item(0, 4)->text(), QStringLiteral("stopped"));
        window.history()->selectRuns({id});
        auto* resume = window.history()->findChild<QPushButton*>("resume_run");
        QVERIFY(resume && resume->isEnabled());
        QTest::qWait(1500);  // (a pause the charts must not put between the rounds, checked below)
        QTest::mouseClick(resume, Qt::LeftButton);
        QCOMPARE(window.tab(), MainWindow::RunTab);
        QTRY_VERIFY_WITH_TIMEOUT(run->state() == RunState::Finished, 180000);
        QTRY_VERIFY_WITH_TIMEOUT(taggedProcesses(m_tag).isEmpty(), 15000);
        QCOMPARE(window.charts()->throughput()->pointCount(0), 100);  // a row per round: those before the checkpoint once, then the rest
        // The rounds before the checkpoint are charted at the time they ran, as the History tab
        // has them, not shifted by the pause (the wait below): that was counted back from now.
        const QHash<int, double> charted = wallTimesByRound(*window.charts()->throughput());
        window.history()->refresh();
        window.history()->compareMetric()->setCurrentIndex(3);  // samples per second: the throughput chart's
        window.history()->selectRuns({id});
        const QHash<int, double> stored = wallTimesByRound(*window.history()->overlay());
        QCOMPARE(stored.size(), 100);
        const int checkpoint = resumedRound(window, id);
        QVERIFY(checkpoint >= 2);
        for (int round = 1; round < checkpoint; ++round)  // (the checkpoint's round has records of the resumed run too)
            QVERIFY2(charted.contains(round) && std::abs(charted.value(round) - stored.value(round)) < 100,
                     qPrintable(QStringLiteral("round %1: %2 against %3")
                                    .arg(round)
                                    .arg(charted.value(round), 0, 'f', 0)
                                    .arg(stored.value(round), 0, 'f', 0)));

        QString error;
        {
            const auto store = RunStore::open(history, &error, RunStore::ReadOnly);
            QVERIFY2(store, qPrintable(error));
            const QList<RunRecord> runs = store->runs();
            QCOMPARE(runs.size(), 1);
            QCOMPARE(runs.first().status, QStringLiteral("finished"));
            QCOMPARE(store->facts(id).rounds, 100);
            QVERIFY(store->eventMessages(id, "info").join('\n').contains("resumed from the checkpoint of round"));
        }
        // A finished run goes on with more rounds: Resume asks how many (offering twice as many).
        window.setTab(MainWindow::HistoryTab);
        window.history()->refresh();
        window.history()->selectRuns({id});
        QVERIFY(resume->isEnabled());
        QString offered;
        QTimer::singleShot(0, &window, [&] {
            auto* dialog = qobject_cast<QInputDialog*>(QApplication::activeModalWidget());
            if (!dialog) return;
            offered = dialog->labelText() + ' ' + QString::number(dialog->intValue());
            dialog->setIntValue(103);
            dialog->accept();
        });
        QTest::mouseClick(resume, Qt::LeftButton);
        QCOMPARE(offered, QStringLiteral("Run %1 finished its 100 rounds. Go on to how many rounds? 200").arg(id));
        QCOMPARE(window.tab(), MainWindow::RunTab);
        QTRY_VERIFY_WITH_TIMEOUT(run->state() == RunState::Finished, 120000);
        QTRY_VERIFY_WITH_TIMEOUT(taggedProcesses(m_tag).isEmpty(), 15000);
        QCOMPARE(window.charts()->throughput()->pointCount(0), 103);
        const auto store = RunStore::open(history, &error, RunStore::ReadOnly);
        QVERIFY2(store, qPrintable(error));
        QCOMPARE(store->facts(id).rounds, 103);
        QCOMPARE(store->runs().size(), 1);
    }

    void stopAllLeavesNoProcess() {
        MainWindow window(m_dir.filePath("history.sqlite"));
        window.show();
        QVERIFY(window.openTopology(m_small));
        RunPanel* run = window.runPanel();
        QTest::mouseClick(run->startButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(run->state() == RunState::Running, 60000);
        QTRY_VERIFY_WITH_TIMEOUT(!taggedProcesses(m_tag).isEmpty(), 10000);
        QTest::mouseClick(run->stopButton(), Qt::LeftButton);
        // A user's stop is its own outcome: "stopped", not a failure, here and in the history.
        QTRY_VERIFY_WITH_TIMEOUT(run->state() == RunState::Stopped, 30000);
        QTRY_VERIFY_WITH_TIMEOUT(taggedProcesses(m_tag).isEmpty(), 15000);
        QVERIFY(run->startButton()->isEnabled());  // ready for the next run
        window.history()->refresh();
        QCOMPARE(window.history()->table()->rowCount(), 2);
        QString error;
        const auto store = RunStore::open(m_dir.filePath("history.sqlite"), &error, RunStore::ReadOnly);
        QVERIFY2(store, qPrintable(error));
        const QList<RunRecord> runs = store->runs();
        QCOMPARE(runs.size(), 2);
        QCOMPARE(runs.last().status, QStringLiteral("stopped"));
        QVERIFY(runs.last().summary.value("stopped").toBool());
    }
};

QTEST_MAIN(StudioTest)
#include "tst_studio.moc"
