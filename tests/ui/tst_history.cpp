// The History tab and the status strip: runs newest first with why they did not finish, a filter
// typed as a user types it, and the run's round, time and estimate on every tab.
#include "Designer.h"
#include "HistoryPanel.h"
#include "MainWindow.h"
#include "RunStatus.h"
#include "RunStore.h"

#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

using namespace hips;

class HistoryTest : public QObject {
    Q_OBJECT
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
        QTest::mouseClick(reopen, Qt::LeftButton);
        QCOMPARE(window.designer()->topology().name, QString("small-synthetic"));
        QCOMPARE(window.designer()->topology().training.rounds, 6);
        QCOMPARE(window.designer()->topology().training.dataset, QString("synthetic"));
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

QTEST_MAIN(HistoryTest)
#include "tst_history.moc"
