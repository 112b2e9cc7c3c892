// The agent's RoleSupervisor as it starts roles of their own (not forked by a zygote): a role
// whose program cannot start is reported, and its node can be started again; a role's last line
// without its newline is kept.
#include "RoleSupervisor.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace hips;

class RoleSupervisorTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // A start that fails (no such program; fork refused) says so, and leaves the node free: no
    // `finished` follows a failed start, and every later start of the node (a restart's) was
    // refused as already running, unheard, while a stop waited for it for ever.
    void aRoleThatCannotStartCanBeStartedAgain() {
        QTemporaryDir dir;
        RoleSupervisor roles;
        QSignalSpy exited(&roles, &RoleSupervisor::exited);
        RoleLaunch launch;
        launch.node = QStringLiteral("party1/worker0");
        launch.program = dir.filePath(QStringLiteral("no-such-trainer"));
        launch.outDir = dir.path();
        QVERIFY(roles.start(launch));
        QTRY_COMPARE(exited.count(), 1);
        QVERIFY(exited.at(0).at(1).value<RoleExitInfo>().error.contains(QLatin1String("failed to start")));
        QCOMPARE(roles.runningCount(), 0);
        QVERIFY(roles.start(launch));
        QTRY_COMPARE(exited.count(), 2);
    }

    // A role's last words without their newline (it exited, or was killed, mid-line) are its log's
    // last line and its exit's error: they were dropped, and the exit said nothing.
    void theLastLineWithoutANewlineIsKept() {
        QTemporaryDir dir;
        QFile script(dir.filePath(QStringLiteral("role.sh")));
        QVERIFY(script.open(QIODevice::WriteOnly) && script.write("#!/bin/sh\necho started\nprintf 'fatal: no model' >&2\nexit 3\n") > 0);
        script.close();
        QVERIFY(script.setPermissions(QFile::ReadOwner | QFile::ExeOwner));
        RoleSupervisor roles;
        QSignalSpy exited(&roles, &RoleSupervisor::exited), lines(&roles, &RoleSupervisor::logLine);
        RoleLaunch launch;
        launch.node = QStringLiteral("party1/worker0");
        launch.program = script.fileName();
        launch.outDir = dir.path();
        QVERIFY(roles.start(launch));
        QTRY_COMPARE(exited.count(), 1);
        const RoleExitInfo info = exited.at(0).at(1).value<RoleExitInfo>();
        QCOMPARE(info.exitCode, 3);
        QCOMPARE(info.error, QStringLiteral("fatal: no model"));
        QCOMPARE(lines.count(), 2);
        QCOMPARE(lines.at(1).at(2).toString(), QStringLiteral("fatal: no model"));
    }
};

QTEST_GUILESS_MAIN(RoleSupervisorTest)
#include "tst_rolesupervisor.moc"
