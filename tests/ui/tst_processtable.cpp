// The Run tab's process table: what it reads from /proc for the processes of a local run.
#include "ProcessTableModel.h"

#include <QJsonObject>
#include <QProcess>
#include <QtTest>

using namespace hips;

namespace {

// `model`'s rows: `ids`, all running in process `pid`.
void runInOneProcess(ProcessTableModel& model, const QStringList& ids, qint64 pid) {
    QList<Node> nodes;
    for (const QString& id : ids) {
        Node n;
        n.id = id, n.kind = RoleKind::Worker;
        nodes << n;
    }
    model.reset(nodes);
    for (const Node& n : nodes) {
        ProcessInfo p;
        p.node = n, p.state = ProcessInfo::State::Running, p.pid = pid;
        model.update(p);
    }
}

}  // namespace

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
        p.node.kind = RoleKind::GlobalScheduler;
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

    // A scheduler reports nothing between its rendezvous and a change of membership: its "last
    // heard" says so instead of counting up as a hung worker's would.
    void aQuietRoleIsNotShownAsSilent() {
        ProcessTableModel model;
        ProcessInfo scheduler, worker;
        scheduler.node.id = QStringLiteral("party1/scheduler"), scheduler.node.kind = RoleKind::Scheduler;
        worker.node.id = QStringLiteral("party1/worker0"), worker.node.kind = RoleKind::Worker;
        model.reset({scheduler.node, worker.node});
        for (ProcessInfo* p : {&scheduler, &worker}) {
            p->state = ProcessInfo::State::Running;
            p->pid = QCoreApplication::applicationPid();
            model.update(*p);
        }
        auto cell = [&](int row, int role) { return model.data(model.index(row, ProcessTableModel::LastSeen), role).toString(); };
        QCOMPARE(cell(0, Qt::DisplayRole), QStringLiteral("only on changes"));
        QVERIFY2(cell(0, Qt::ToolTipRole).contains("rendezvous"), qPrintable(cell(0, Qt::ToolTipRole)));
        QCOMPARE(cell(1, Qt::DisplayRole), QStringLiteral("0 s ago"));
        QVERIFY(cell(1, Qt::ToolTipRole).isEmpty());
    }

    // hips simulate runs every role in one process: its CPU and memory show once, on its first
    // row; the other rows say "shared" and why, rather than repeating (and seeming to add up) its figures.
    void aProcessOfSeveralRolesShowsItsFiguresOnce() {
        ProcessTableModel model;
        runInOneProcess(model, {"central/global_server0", "party1/worker0", "party1/worker1"}, QCoreApplication::applicationPid());
        QCOMPARE(model.rowOf("party1/worker1"), 2);
        auto cell = [&](int row, int column, int role = Qt::DisplayRole) { return model.data(model.index(row, column), role).toString(); };
        QTRY_VERIFY_WITH_TIMEOUT(cell(0, ProcessTableModel::Memory).endsWith(" MB"), 5000);
        for (int row : {1, 2}) {
            QCOMPARE(cell(row, ProcessTableModel::Memory), QStringLiteral("shared"));
            QCOMPARE(cell(row, ProcessTableModel::Cpu), QStringLiteral("shared"));
            QVERIFY(cell(row, ProcessTableModel::Memory, Qt::ToolTipRole).contains(QString::number(QCoreApplication::applicationPid())));
            QCOMPARE(cell(row, ProcessTableModel::Pid), QString::number(QCoreApplication::applicationPid()));
        }
    }

    // A shared trainer's workers are threads of one process. Only one of them reports the
    // process's memory (MetricsReporter): whichever it is, the figure shows on the process's
    // first row, and a worker's report without it leaves it there. Each reports its own thread's
    // CPU: the first row shows their sum.
    void aSharedTrainersMemoryShowsOnItsFirstRowWhicheverWorkerReportsIt() {
        ProcessTableModel model;
        runInOneProcess(model, {"party1/worker0", "party1/worker1"}, 4242);  // (a shared trainer)
        const auto usage = [](const char* node, std::optional<double> rss) {
            QJsonObject r{{"kind", "usage"}, {"node", node}, {"cpu_percent", 50.0}, {"round", 1}};
            if (rss) r.insert("rss_bytes", *rss);
            return r;
        };
        auto cell = [&](int row, int column) { return model.data(model.index(row, column), Qt::DisplayRole).toString(); };
        model.noteUsage(usage("party1/worker1", 123e6));
        QCOMPARE(cell(0, ProcessTableModel::Memory), QStringLiteral("123 MB"));
        QCOMPARE(cell(1, ProcessTableModel::Memory), QStringLiteral("shared"));
        model.noteUsage(usage("party1/worker0", std::nullopt));
        QCOMPARE(cell(0, ProcessTableModel::Memory), QStringLiteral("123 MB"));
        // Each worker reports its own thread's CPU (50 %): the process takes both.
        QCOMPARE(cell(0, ProcessTableModel::Cpu), QStringLiteral("100 %"));
        QCOMPARE(cell(1, ProcessTableModel::Cpu), QStringLiteral("shared"));
    }
};

QTEST_MAIN(ProcessTableTest)
#include "tst_processtable.moc"
