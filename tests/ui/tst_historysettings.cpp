// History by the runs' settings, driven as a user does: the filter's conditions typed into it,
// Group by picked from its menu, and the parallel coordinates' tab and lines clicked.
#include "HistoryPanel.h"
#include "ParallelCoordinates.h"
#include "RunSettings.h"
#include "RunStore.h"

#include <QApplication>
#include <QHeaderView>
#include <QLineEdit>
#include <QMenu>
#include <QTabBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QToolButton>
#include <QtTest>

using namespace hips;

class HistorySettingsTest : public QObject {
    Q_OBJECT
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<RunStore> m_store;
    qint64 m_fast = 0, m_esync = 0, m_slow = 0;

    QList<qint64> listed(HistoryPanel& panel) const {
        QList<qint64> ids;
        for (int row = 0; row < panel.table()->rowCount(); ++row)
            if (!panel.table()->isRowHidden(row)) ids << panel.table()->item(row, 0)->data(Qt::UserRole).toLongLong();
        return ids;
    }
    // The panel on the store, shown, its parallel coordinates' tab clicked; nullptr if it did not show.
    ParallelCoordinates* openParallel(HistoryPanel& panel) const {
        panel.setStore(m_store.get());
        panel.resize(1000, 800);
        panel.show();
        if (!QTest::qWaitForWindowExposed(&panel)) return nullptr;
        QTabBar* tabs = panel.compareTabs()->tabBar();
        QTest::mouseClick(tabs, Qt::LeftButton, Qt::NoModifier, tabs->tabRect(1).center());
        return panel.parallel();
    }
    static void type(QLineEdit* field, const QString& text) {
        field->clear();
        QTest::keyClicks(field, text);
    }

private Q_SLOTS:
    void init() {
        QString error;
        m_dir = std::make_unique<QTemporaryDir>();
        m_store = RunStore::open(m_dir->filePath("h.sqlite"), &error);
        QVERIFY2(m_store, qPrintable(error));
        auto run = [&](const char* name, const char* mode, double lr, double accuracy) {
            const qint64 id = m_store->beginRun(name, "{}", {{"mode", mode}, {"learning_rate", lr}, {"rounds", 2}});
            const double t0 = m_store->run(id)->started;
            for (int round = 1; round <= 2; ++round) {
                m_store->appendMetric(id, t0 + round, "central/global_server0", round, "aggregate.apply_s", 0.01);
                m_store->appendMetric(id, t0 + round, "central/master_worker", round, "eval.test_acc", accuracy * round / 2);
            }
            m_store->finishRun(id, "finished", {});
            return id;
        };
        m_fast = run("fast", "fedavg", 0.1, 0.8);
        m_esync = run("esync", "esync", 0.05, 0.85);
        m_slow = run("slow", "fedavg", 0.01, 0.6);
        QVERIFY(m_store->flush());
    }
    void cleanup() {
        m_store.reset();
        m_dir.reset();
    }

    void theFilterTakesConditionsOnSettings() {
        HistoryPanel panel;
        panel.setStore(m_store.get());
        type(panel.filter(), "mode=fedavg learning_rate<0.05");
        QCOMPARE(listed(panel), QList<qint64>({m_slow}));
        type(panel.filter(), "learning_rate>=0.05");
        QCOMPARE(listed(panel), QList<qint64>({m_esync, m_fast}));  // newest first
        type(panel.filter(), "mode!=fedavg");
        QCOMPARE(listed(panel), QList<qint64>({m_esync}));
        type(panel.filter(), "learning_rate=0.1");
        QCOMPARE(listed(panel), QList<qint64>({m_fast}));
        type(panel.filter(), "slo");  // text, as before
        QCOMPARE(listed(panel), QList<qint64>({m_slow}));
        type(panel.filter(), "no_such_setting=1");
        QVERIFY(listed(panel).isEmpty());
    }

    // A condition names a setting whole or by its last parts (a party's setting by its own name),
    // compares numbers as numbers and anything else as text; a word without an operator is text.
    void conditionsNameSettingsByTheirLastParts() {
        const QJsonObject settings{{"party2.workers[0].slowdown", "3"}, {"xslowdown", 9}, {"codec", "2bit"}};
        QVERIFY(parseSettingCondition("slowdown>=2")->matches(settings));
        QVERIFY(!parseSettingCondition("slowdown>3")->matches(settings));
        QVERIFY(parseSettingCondition("workers[0].slowdown=3")->matches(settings));
        QVERIFY(!parseSettingCondition("owdown=3")->matches(settings));  // a part, not a piece of one
        QVERIFY(parseSettingCondition("codec=2BIT")->matches(settings));
        QVERIFY(parseSettingCondition("codec != none")->matches(settings));
        QVERIFY(!parseSettingCondition("fedavg"));
        QVERIFY(!parseSettingCondition("=3"));
    }

    void groupByIsPickedFromItsMenu() {
        HistoryPanel panel;
        panel.setStore(m_store.get());
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        auto* button = panel.findChild<QToolButton*>("group_by");
        QVERIFY(button);
        QStringList offered;
        QTimer::singleShot(200, this, [&] {  // the menu is up (the click waits in its event loop)
            auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget());
            QVERIFY(menu);
            QAction* mode = nullptr;
            for (QAction* a : menu->actions()) {
                offered << a->text();
                if (a->text() == "mode") mode = a;
            }
            QVERIFY(mode);
            QTest::mouseClick(menu, Qt::LeftButton, Qt::NoModifier, menu->actionGeometry(mode).center());
        });
        QTest::mouseClick(button, Qt::LeftButton);
        QTRY_COMPARE(panel.groupKey(), QString("mode"));
        QVERIFY(offered.contains("learning_rate") && !offered.contains("rounds"));  // only what differs
        QTableWidget* table = panel.table();
        QVERIFY(!table->isColumnHidden(HistoryPanel::kGroupColumn));
        QCOMPARE(table->horizontalHeaderItem(HistoryPanel::kGroupColumn)->text(), QString("mode"));
        QStringList column;
        for (int row = 0; row < table->rowCount(); ++row) column << table->item(row, HistoryPanel::kGroupColumn)->text();
        QCOMPARE(column, QStringList({"esync", "fedavg", "fedavg"}));  // a group's runs together
        panel.setGroupKey({});
        QVERIFY(table->isColumnHidden(HistoryPanel::kGroupColumn));
    }

    void parallelCoordinatesShowTheListedRunsAndAClickSelectsOne() {
        HistoryPanel panel;
        ParallelCoordinates* view = openParallel(panel);
        QVERIFY(view);
        QVERIFY(view->isVisible());
        QCOMPARE(view->axes(), QStringList({"learning_rate", "mode", "final accuracy"}));
        // Higher on the learning-rate axis for a higher rate; the best score highest on its own.
        QVERIFY(view->pointOf(m_fast, 0).y() < view->pointOf(m_esync, 0).y());
        QVERIFY(view->pointOf(m_esync, 0).y() < view->pointOf(m_slow, 0).y());
        QVERIFY(view->pointOf(m_esync, 2).y() < view->pointOf(m_fast, 2).y());
        const QPoint onSlow = ((view->pointOf(m_slow, 0) + view->pointOf(m_slow, 1)) / 2).toPoint();
        QTest::mouseClick(view, Qt::LeftButton, Qt::NoModifier, onSlow);
        QCOMPARE(panel.selectedRuns(), QList<qint64>({m_slow}));
        type(panel.filter(), "mode=fedavg");  // the view follows the filter: mode no longer differs
        QCOMPARE(view->axes(), QStringList({"learning_rate", "final accuracy"}));
        QVERIFY(view->pointOf(m_esync, 0).isNull());
    }

    // A run that ended before its first evaluation has no score: no point on the score axis (it
    // was drawn at -1, stretching the axis so that the others' scores all came out near its top).
    void aRunNeverEvaluatedHasNoScore() {
        const qint64 failed = m_store->beginRun("failed", "{}", {{"mode", "fedavg"}, {"learning_rate", 0.2}, {"rounds", 2}});
        m_store->finishRun(failed, "failed", {});
        QVERIFY(m_store->flush());
        HistoryPanel panel;
        ParallelCoordinates* view = openParallel(panel);
        QVERIFY(view);
        const int score = int(view->axes().size()) - 1;
        QCOMPARE(view->axes().last(), QString("final accuracy"));
        QVERIFY(view->pointOf(failed, score).isNull());
        QVERIFY(!view->pointOf(failed, 0).isNull());  // (its settings are drawn)
        // The worst evaluated run (0.6) at the score axis's foot, the best (0.85) at its head: as
        // the lowest learning rate (0.01) and the highest (0.2) on theirs.
        QCOMPARE(view->pointOf(m_slow, score).y(), view->pointOf(m_slow, 0).y());
        QCOMPARE(view->pointOf(m_esync, score).y(), view->pointOf(failed, 0).y());
    }
};

QTEST_MAIN(HistorySettingsTest)
#include "tst_historysettings.moc"
