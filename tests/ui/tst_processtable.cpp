// The Run tab's process table: what it reads from /proc for the processes of a local run.
#include "ProcessTableModel.h"

#include <QProcess>
#include <QtTest>

using namespace hips;

class ProcessTableTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // A process that has used less than one clock tick (a scheduler waiting for heartbeats)
    // shows 0 %, not "-" as if it could not be read.
    void anIdleProcessShowsZeroCpu() {
        QProcess idle;
        idle.start("sleep", {"60"});
        QVERIFY(idle.waitForStarted());
        ProcessTableModel model;
        ProcessInfo p;
        p.node.id = QStringLiteral("central/global_scheduler");
        p.node.party = QStringLiteral("central");
        model.reset({p.node});
        auto shown = [&](ProcessTableModel::Column c) { return model.data(model.index(0, c), Qt::DisplayRole).toString(); };
        QCOMPARE(shown(ProcessTableModel::Cpu), QStringLiteral("-"));  // pending: nothing to read yet
        p.state = ProcessInfo::State::Running;
        p.pid = idle.processId();
        model.update(p);
        QTRY_COMPARE_WITH_TIMEOUT(shown(ProcessTableModel::Cpu), QStringLiteral("0 %"), 10000);  // two samples, a second apart
        QVERIFY2(shown(ProcessTableModel::Memory).endsWith(" MB"), qPrintable(shown(ProcessTableModel::Memory)));
        idle.kill();
        idle.waitForFinished();
    }
};

QTEST_MAIN(ProcessTableTest)
#include "tst_processtable.moc"
