// The run directory: private modes whatever the umask, whole files replaced atomically, and a
// full disk reported by name and cause, never leaving half a line or a half-written summary.
#include "PrivateFiles.h"
#include "RunDirectory.h"
#include "SmallDisk.h"

#include <QJsonDocument>
#include <QDir>
#include <QFileInfo>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <sys/stat.h>
#include <unistd.h>

using namespace hips;

namespace {

unsigned modeOf(const QString& path) {
    struct stat st {};
    if (::stat(QFile::encodeName(path).constData(), &st) != 0) return 0;
    return st.st_mode & 07777;
}

QByteArray contents(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

}  // namespace

class RunDirectoryTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // A run directory someone else could have made or prepared (issue 44): one others may write
    // in, a logs/ or checkpoint/ that is a link, a log that is a link to a file elsewhere: refused,
    // naming the path, and nothing written through them.
    void aPreparedRunDirectoryIsRefused() {
        QTemporaryDir dir;
        const QString open = dir.filePath("open");
        QVERIFY(QDir().mkpath(open));
        QVERIFY(::chmod(QFile::encodeName(open).constData(), 0777) == 0);
        RunDirectory first;
        QString e = first.create(open, "{}");
        QVERIFY2(e.contains(open + " belongs to another user or others may write in it") && e.contains("mode 777"), qPrintable(e));
        QVERIFY(!QFileInfo::exists(open + "/topology.json"));

        const QString elsewhere = dir.filePath("elsewhere");
        QVERIFY(QDir().mkpath(elsewhere));
        const QString linked = dir.filePath("linked");
        QVERIFY(QDir().mkpath(linked));
        QVERIFY(QFile::link(elsewhere, linked + "/checkpoint"));
        RunDirectory second;
        e = second.create(linked, "{}");
        QVERIFY2(e.contains(linked + "/checkpoint is a symbolic link"), qPrintable(e));

        const QString logs = dir.filePath("logs-link");
        QVERIFY(QDir().mkpath(logs + "/logs"));
        QFile victim(dir.filePath("victim.txt"));
        QVERIFY(victim.open(QIODevice::WriteOnly) && victim.write("mine\n") == 5);
        victim.close();
        QVERIFY(QFile::link(victim.fileName(), logs + "/logs/party1-worker0.log"));
        RunDirectory third;
        QCOMPARE(third.create(logs, "{}"), QString());
        QVERIFY(!third.appendLog("party1/worker0", "hello").isEmpty());  // O_NOFOLLOW
        QCOMPARE(contents(victim.fileName()), QByteArray("mine\n"));
    }

    // A directory that holds a run already is not written over (`--out` twice mixed two runs'
    // files: the first one's history entry then pointed at the second's topology); the default
    // directory of a run started in the same second as another is another one.
    void aDirectoryHoldingARunIsNotWrittenOver() {
        QTemporaryDir dir;
        const QString path = dir.filePath("r");
        {
            RunDirectory first;
            QVERIFY(first.create(path, R"({"name":"first"})").isEmpty());
        }
        RunDirectory second;
        const QString e = second.create(path, R"({"name":"second"})");
        QVERIFY2(e.contains(path + " holds a run already (its topology.json)") && e.contains("--resume"), qPrintable(e));
        QCOMPARE(contents(path + "/topology.json"), QByteArray(R"({"name":"first"})"));

        const QString before = QDir::currentPath();
        QVERIFY(QDir::setCurrent(dir.path()));
        const QString a = RunDirectory::freshDefaultPath("t"), b = RunDirectory::freshDefaultPath("t");
        QVERIFY(QDir::setCurrent(before));
        QVERIFY2(!a.isEmpty() && !b.isEmpty() && a != b && a.startsWith("runs/") && a.endsWith("-t"), qPrintable(a + ' ' + b));
        QCOMPARE(modeOf(dir.filePath(b)), 0700u);
    }

    // The agent's check of a run's output folder below its runs directory: every folder of it,
    // not the runs directory itself; one others may write in, or a link, is named.
    void foldersBelowTheRunsDirectoryAreChecked() {
        QTemporaryDir dir;
        const QString root = dir.filePath("runs"), run = root + "/shared/run1";
        QVERIFY(QDir().mkpath(run));
        QCOMPARE(checkOwnDirectoriesBelow(run, root), QString());
        QVERIFY(::chmod(QFile::encodeName(root).constData(), 0777) == 0);  // the root is the caller's choice
        QCOMPARE(checkOwnDirectoriesBelow(run, root), QString());
        QVERIFY(::chmod(QFile::encodeName(root + "/shared").constData(), 0777) == 0);
        QString e = checkOwnDirectoriesBelow(run, root);
        QVERIFY2(e.contains(root + "/shared belongs to another user or others may write in it"), qPrintable(e));
        QVERIFY(::chmod(QFile::encodeName(root + "/shared").constData(), 0700) == 0);
        QVERIFY(QFile::link(dir.path(), root + "/shared/run2"));
        e = checkOwnDirectoriesBelow(root + "/shared/run2", root);
        QVERIFY2(e.contains("run2 is a symbolic link"), qPrintable(e));
    }

    // The same attacks made by another local user (nobody, through setpriv when the test runs as
    // root) in a shared folder that is sticky as /tmp is: a run directory they made in advance, or
    // one below a folder of theirs (they could rename it away after the checks and put theirs in
    // its place), is refused naming the folder and its owner; a folder others may rename in without
    // the sticky bit likewise; a run directory of our own there is used, and nobody can plant a
    // link in its logs/.
    void anotherUsersFoldersAreRefused() {
        if (::geteuid() != 0 || QStandardPaths::findExecutable("setpriv").isEmpty())
            QSKIP("acting as another user (nobody) needs root and setpriv");
        QTemporaryDir dir;
        QVERIFY(::chmod(QFile::encodeName(dir.path()).constData(), 0755) == 0);
        const QString shared = dir.filePath("shared");
        QVERIFY(QDir().mkpath(shared) && ::chmod(QFile::encodeName(shared).constData(), 01777) == 0);
        auto asNobody = [](const QStringList& command) {
            QProcess p;
            p.start("setpriv", QStringList{"--reuid=65534", "--regid=65534", "--clear-groups", "--"} + command);
            return p.waitForFinished(30000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
        };

        QVERIFY(asNobody({"mkdir", "-m", "0755", shared + "/guessed"}));
        RunDirectory guessed;
        QString e = guessed.create(shared + "/guessed", "{}");
        QVERIFY2(e.contains(shared + "/guessed belongs to another user") && e.contains("owner 65534"), qPrintable(e));

        QVERIFY(asNobody({"mkdir", "-m", "0755", shared + "/theirs"}));
        RunDirectory below;
        e = below.create(shared + "/theirs/run1", "{}");
        QVERIFY2(e.contains(shared + "/theirs belongs to another user or others may rename what it holds") && e.contains("owner 65534"),
                 qPrintable(e));
        QVERIFY(!QFileInfo::exists(shared + "/theirs/run1"));

        QVERIFY(QDir().mkpath(shared + "/open") && ::chmod(QFile::encodeName(shared + "/open").constData(), 0777) == 0);
        RunDirectory unsticky;
        e = unsticky.create(shared + "/open/run1", "{}");
        QVERIFY2(e.contains(shared + "/open belongs to another user or others may rename") && e.contains("mode 777"), qPrintable(e));

        RunDirectory mine;
        QCOMPARE(mine.create(shared + "/mine", "{}"), QString());
        QVERIFY(!asNobody({"ln", "-s", "/etc/passwd", shared + "/mine/logs/party1-worker0.log"}));
        QCOMPARE(mine.appendLog("party1/worker0", "hello"), QString());
        QCOMPARE(contents(shared + "/mine/logs/party1-worker0.log"), QByteArray("hello\n"));
    }

    void everythingIsPrivateWhateverTheUmask() {
        QTemporaryDir dir;
        const mode_t old = ::umask(022);
        RunDirectory run;
        const QString path = dir.filePath("runs/r1");
        QString e = run.create(path, R"({"name":"t"})");
        if (e.isEmpty()) e = run.appendMetric(R"({"round":1})");
        if (e.isEmpty()) e = run.appendLog("party1/worker0", "hello");
        if (e.isEmpty()) e = run.writeSummary({{"ok", true}});
        if (e.isEmpty()) e = writeFileAtomically(dir.filePath("runs/r1/net.params"), "weights");
        ::umask(old);
        QVERIFY2(e.isEmpty(), qPrintable(e));
        QCOMPARE(modeOf(dir.filePath("runs")), 0700u);
        QCOMPARE(modeOf(path), 0700u);
        QCOMPARE(modeOf(path + "/logs"), 0700u);
        for (const char* file : {"topology.json", "metrics.jsonl", "logs/party1-worker0.log", "summary.json", "net.params"})
            QVERIFY2(modeOf(path + '/' + file) == 0600u, file);
        QCOMPARE(contents(path + "/metrics.jsonl"), QByteArray("{\"round\":1}\n"));
        QCOMPARE(contents(path + "/logs/party1-worker0.log"), QByteArray("hello\n"));
        QCOMPARE(QJsonDocument::fromJson(contents(path + "/summary.json")).object().value("ok").toBool(), true);
    }

    // hips attach: metrics.jsonl is read back a record at a time up to what the history holds,
    // whole lines only, and cut back there (the agents send the rest again); appends go on after.
    void reattachingHandsBackTheStoredRecordsAndCutsTheRest() {
        QTemporaryDir dir;
        const QString path = dir.filePath("r");
        {
            RunDirectory run;
            QVERIFY(run.create(path, R"({"name":"t"})").isEmpty());
            for (int r = 1; r <= 3; ++r) QVERIFY(run.appendMetric(QByteArray(R"({"round":)") + QByteArray::number(r) + '}').isEmpty());
        }
        const qint64 line = QByteArray("{\"round\":1}\n").size();
        auto reattach = [&](qint64 held, QList<int>* rounds) {
            RunDirectory run;
            const QString e = run.reattach(path, held, [rounds](const QJsonObject& r) { rounds->append(r.value("round").toInt()); });
            return e.isEmpty() ? run.appendMetric(R"({"round":9})") : e;
        };
        QList<int> rounds;
        QVERIFY(reattach(2 * line + 3, &rounds).isEmpty());  // (the history holds two and part of a third)
        QCOMPARE(rounds, (QList<int>{1, 2}));
        QCOMPARE(contents(path + "/metrics.jsonl"), QByteArray("{\"round\":1}\n{\"round\":2}\n{\"round\":9}\n"));
        rounds.clear();
        QVERIFY(reattach(100 * line, &rounds).isEmpty());  // (more than the file: all of it)
        QCOMPARE(rounds, (QList<int>{1, 2, 9}));
        QCOMPARE(contents(path + "/metrics.jsonl").count('\n'), 4);
        // The history's mark is where a whole line ended (as it always is): that line is kept.
        rounds.clear();
        QVERIFY(reattach(2 * line, &rounds).isEmpty());
        QCOMPARE(rounds, (QList<int>{1, 2}));
        QCOMPARE(contents(path + "/metrics.jsonl"), QByteArray("{\"round\":1}\n{\"round\":2}\n{\"round\":9}\n"));
    }

    // What makes metrics.jsonl durable before the history commits a length of it: there once the
    // file is open, and usable from the history's writer after the directory closed the file (it
    // holds a descriptor of its own).
    void metricsDurabilityOutlivesTheDirectory() {
        QTemporaryDir dir;
        std::function<QString()> durable;
        {
            RunDirectory run;
            QVERIFY(!run.metricsDurability());
            QVERIFY(run.create(dir.filePath("r"), R"({"name":"t"})").isEmpty());
            QVERIFY(run.appendMetric(R"({"round":1})").isEmpty());
            durable = run.metricsDurability();
            QVERIFY(durable);
            QCOMPARE(durable(), QString());
        }
        QCOMPARE(durable(), QString());
    }

    // A role that prints without end: its log moves to .log.1 at kLogBytes and a new one starts,
    // so logs/ holds at most about twice the limit per role, and the newest lines are never lost.
    void aRoleLogIsRotatedAtItsSizeLimit() {
        QTemporaryDir dir;
        RunDirectory run;
        QVERIFY(run.create(dir.filePath("r"), R"({"name":"t"})").isEmpty());
        const QString line(1023, 'x');  // 1 KiB with its newline
        const qint64 lines = 2 * RunDirectory::kLogBytes / 1024 + 10;
        for (qint64 i = 0; i < lines; ++i) QVERIFY(run.appendLog("central/global_server0", i + 1 == lines ? "last" : line).isEmpty());
        const QString log = dir.filePath("r/logs/central-global_server0.log");
        QVERIFY(QFileInfo(log).size() <= RunDirectory::kLogBytes && QFileInfo(log + ".1").size() <= RunDirectory::kLogBytes);
        QVERIFY(QFileInfo(log + ".1").size() > RunDirectory::kLogBytes - 1024);
        QVERIFY(!QFileInfo::exists(log + ".2"));
        QVERIFY(contents(log).endsWith("x\nlast\n"));
        QCOMPARE(modeOf(log), 0600u);
    }

    // A file the user names (a report, a chart, a topology): a new one is 0644, one already there
    // keeps its mode; a path that is no regular file (a folder, a link to a device) is refused and
    // left as it is.
    void userFilesKeepTheirModeAndReplaceOnlyFiles() {
        QTemporaryDir dir;
        const QString fresh = dir.filePath("new.csv"), kept = dir.filePath("kept.csv");
        QCOMPARE(writeUserFile(fresh, "a"), QString());
        QCOMPARE(modeOf(fresh), 0644u);
        QCOMPARE(writeFileAtomically(kept, "old", 0640), QString());
        QCOMPARE(writeUserFile(kept, "new"), QString());
        QCOMPARE(modeOf(kept), 0640u);
        QCOMPARE(contents(kept), QByteArray("new"));
        QVERIFY(QFile::link("/dev/null", dir.filePath("null.csv")));
        QVERIFY(QDir(dir.path()).mkdir("folder.csv"));
        for (const char* name : {"null.csv", "folder.csv"}) {
            const QString e = writeUserFile(dir.filePath(name), "x");
            QVERIFY2(e.contains(name) && e.contains("not a regular file"), qPrintable(e));
        }
        QVERIFY(QFileInfo(dir.filePath("null.csv")).isSymLink());
        QVERIFY(QFileInfo(dir.filePath("folder.csv")).isDir());
    }

    // Appending until the disk is full: the failure names the file and the cause, the file ends
    // with the last whole line, later lines are refused; a summary that no longer fits leaves the
    // previous one intact and no temporary file behind.
    void fullDiskIsReportedAndLeavesWholeFiles() {
        QTemporaryDir dir;
        SmallDisk disk(dir.filePath("small"));
        if (!disk.mounted()) QSKIP(qPrintable(disk.why()));
        RunDirectory run;
        const QString path = disk.filePath("run");
        QString e = run.create(path, "{}");
        QVERIFY2(e.isEmpty(), qPrintable(e));
        QVERIFY(run.writeSummary({{"round", 1}}).isEmpty());
        const QByteArray padding(997, 'x');  // lines of 1,011 bytes straddle the 4 KiB pages
        int written = 0;
        for (; written < 10000; ++written) {
            e = run.appendMetric("{\"pad\":\"" + padding + "\"}");
            if (!e.isEmpty()) break;
        }
        QVERIFY2(!e.isEmpty(), "the disk never filled");
        QVERIFY2(e.contains(path + "/metrics.jsonl") && e.contains("no space left on device"), qPrintable(e));
        QCOMPARE(run.error(), e);
        const QByteArray metrics = contents(path + "/metrics.jsonl");
        QVERIFY(metrics.endsWith('\n'));
        QCOMPARE(metrics.count('\n'), written);
        for (const QByteArray& line : metrics.trimmed().split('\n')) QVERIFY(!QJsonDocument::fromJson(line).isNull());
        QCOMPARE(run.appendMetric("{}"), e);  // refused: nothing glued to the file
        QCOMPARE(contents(path + "/metrics.jsonl").size(), metrics.size());

        const QString summaryError = run.writeSummary({{"big", QString(200000, 'y')}});
        QVERIFY2(summaryError.contains(path + "/summary.json") && summaryError.contains("no space left on device"),
                 qPrintable(summaryError));
        QCOMPARE(QJsonDocument::fromJson(contents(path + "/summary.json")).object().value("round").toInt(), 1);
        QCOMPARE(QDir(path).entryList(QDir::Files), QStringList({"metrics.jsonl", "summary.json", "topology.json"}));
    }

    void unwritableDirectoryIsReported() {
        QTemporaryDir dir;
        QFile blocker(dir.filePath("file"));
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.close();
        RunDirectory run;
        const QString e = run.create(dir.filePath("file/run"), "{}");
        QVERIFY2(e.contains(dir.filePath("file")) && e.contains("not a directory"), qPrintable(e));
    }
};

QTEST_GUILESS_MAIN(RunDirectoryTest)
#include "tst_rundirectory.moc"
