// The Run tab's process table: what it reads from /proc for the processes of a local run.
#include "ProcessTableModel.h"

#include <QJsonObject>
#include <QProcess>
#include <QtTest>

using namespace hips;

namespace {

// `model`'s rows: `ids`, all running in process `pid` (each on the host after its "@", if any).
void runInOneProcess(ProcessTableModel& model, const QStringList& ids, qint64 pid, const QSet<QString>& remoteHosts = {}) {
    QList<Node> nodes;
    for (const QString& id : ids) {
        Node n;
        n.id = id.section('@', 0, 0), n.host = id.section('@', 1), n.kind = RoleKind::Worker;
        if (id.contains("scheduler")) n.kind = RoleKind::Scheduler;
        nodes << n;
    }
    model.reset(nodes, remoteHosts);
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
    // A role's last error line (its stderr, a remote host's output) is drawn as text: an HTML
    // error page it printed was drawn as markup in the tooltip.
    void anErrorIsShownAsText() {
        ProcessTableModel model;
        ProcessInfo worker;
        worker.node.id = QStringLiteral("party1/worker0"), worker.node.kind = RoleKind::Worker;
        model.reset({worker.node});
        worker.state = ProcessInfo::State::Failed;
        worker.error = QStringLiteral("<html><title>502</title></html>");
        model.update(worker);
        const QString tip = model.data(model.index(0, ProcessTableModel::State), Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains("&lt;html&gt;&lt;title&gt;502") && !tip.contains("<title>"), qPrintable(tip));
    }

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

    // Two machines may give their roles the same pid: they are two processes, each with its own
    // figures, not one process's roles "shared". And a remote role that reports nothing (a
    // scheduler) has no CPU or memory here: that pid in this machine's /proc is another process.
    void rolesOfTwoHostsWithOnePidAreTwoProcesses() {
        ProcessTableModel model;
        const qint64 pid = QCoreApplication::applicationPid();  // (one that /proc here has)
        runInOneProcess(model, {"party1/worker0@hostA", "party2/worker0@hostB", "party2/scheduler@hostB"}, pid, {"hostA", "hostB"});
        const auto usage = [](const char* node, double rss) {
            return QJsonObject{{"kind", "usage"}, {"node", node}, {"cpu_percent", 40.0}, {"round", 1}, {"rss_bytes", rss}};
        };
        model.noteUsage(usage("party1/worker0", 100e6));
        model.noteUsage(usage("party2/worker0", 200e6));
        auto cell = [&](int row, int column) { return model.data(model.index(row, column), Qt::DisplayRole).toString(); };
        QCOMPARE(cell(0, ProcessTableModel::Memory), QStringLiteral("100 MB"));
        QCOMPARE(cell(1, ProcessTableModel::Memory), QStringLiteral("200 MB"));
        QCOMPARE(cell(0, ProcessTableModel::Cpu), QStringLiteral("40 %"));
        QCOMPARE(cell(1, ProcessTableModel::Cpu), QStringLiteral("40 %"));
        // The remote scheduler shares its pid with hostB's worker: its row is that process's.
        QCOMPARE(cell(2, ProcessTableModel::Memory), QStringLiteral("shared"));
        // Alone, it shows nothing, while a local scheduler with that pid shows /proc's figures
        // (read in the same pass: once the local one has its CPU, the remote one was passed over).
        ProcessTableModel two;
        runInOneProcess(two, {"party2/scheduler@hostB", "party1/scheduler@local"}, pid, {"hostB"});
        auto shown = [&](int row, int column) { return two.data(two.index(row, column), Qt::DisplayRole).toString(); };
        QTRY_VERIFY_WITH_TIMEOUT(shown(1, ProcessTableModel::Cpu).endsWith(" %"), 10000);
        QVERIFY(shown(1, ProcessTableModel::Memory).endsWith(" MB"));
        QCOMPARE(shown(0, ProcessTableModel::Cpu), QStringLiteral("-"));
        QCOMPARE(shown(0, ProcessTableModel::Memory), QStringLiteral("-"));
    }
};

QTEST_MAIN(ProcessTableTest)
#include "tst_processtable.moc"
