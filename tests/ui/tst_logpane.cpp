// The Run tab's log pane follows the newest line, also when the lines came while it was hidden
// (another tab shown, as during most of a run), until the user scrolls up; and again once the
// user is back at the bottom.
#include "LogPane.h"

#include <QScrollBar>
#include <QTableView>
#include <QtTest>

using namespace hips;

class LogPaneTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void itFollowsTheNewestLineUntilTheUserScrollsUp() {
        LogPane pane;
        pane.resize(700, 300);
        for (int i = 0; i < 500; ++i) pane.append("party1/worker0", "info", QStringLiteral("round %1").arg(i));  // (hidden)
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        QScrollBar* bar = pane.findChild<QTableView*>()->verticalScrollBar();
        QTRY_VERIFY(bar->maximum() > 0 && bar->value() == bar->maximum());
        pane.append("party1/worker0", "info", "one more");
        QTRY_COMPARE(bar->value(), bar->maximum());

        bar->setValue(0);  // the user scrolls up to read
        for (int i = 0; i < 50; ++i) pane.append("party1/worker0", "info", "later");
        QCoreApplication::processEvents();
        QCOMPARE(bar->value(), 0);

        bar->setValue(bar->maximum());  // and back down
        for (int i = 0; i < 50; ++i) pane.append("party1/worker0", "info", "newest");
        QTRY_COMPARE(bar->value(), bar->maximum());
        QVERIFY(bar->maximum() > 500);
    }
};

QTEST_MAIN(LogPaneTest)
#include "tst_logpane.moc"
