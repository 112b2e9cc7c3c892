// `hips history` as a user types it: list with a filter, and the labels (rename, tag, note) that
// the History tab edits in place, written to a real history file and read back by the CLI.
#include "HistoryTestSupport.h"
#include "RunStore.h"

#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace hips;
using namespace hips::test;

namespace {
const QString kHips = QStringLiteral(HIPS_BIN_DIR "/hips");
}

class HistoryCliTest : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_path;

    // `hips history <words> --history <file>`: {exit status, stdout + stderr}.
    std::pair<int, QString> history(const QStringList& words) {
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(kHips, QStringList{"history"} + words + QStringList{"--history", m_path});
        if (!p.waitForFinished(30000)) return {-1, "hips history did not end"};
        return {p.exitCode(), QString::fromUtf8(p.readAll())};
    }

private Q_SLOTS:
    // Two runs: a finished "cnn-baseline" and a failed "mlp-try" whose reason names a dead worker.
    void init() {
        m_path = m_dir.filePath(QStringLiteral("h%1.sqlite").arg(QDateTime::currentMSecsSinceEpoch()));
        QString error;
        auto store = RunStore::open(m_path, &error);
        QVERIFY2(store, qPrintable(error));
        const qint64 first = store->beginRun("cnn-baseline", R"({"name":"cnn-baseline"})", {{"rounds", 3}});
        store->finishRun(first, "finished", {});
        const qint64 second = store->beginRun("mlp-try", R"({"name":"mlp-try"})", {{"rounds", 3}});
        store->finishRun(second, "failed", {{"reason", "party1/worker0 died with signal 9"}});
        QVERIFY(store->flush());
    }

    // A crafted history's status and events hold terminal escape sequences: list and show print
    // them escaped, never raw (ESC would reach the terminal).
    void storedTextIsPrintedEscaped() {
        {
            QString error;
            auto store = RunStore::open(m_path, &error);
            QVERIFY2(store, qPrintable(error));
            store->appendEvent(1, 1, "error", "party1/worker0", "boom \x1b]0;owned\x07 \x1b[2J");
            QVERIFY(store->flush());
        }
        rawSql(m_path, {"UPDATE runs SET status = 'fin\x1b[31mished' WHERE id = 1"});
        for (const QStringList& words : {QStringList{"list"}, QStringList{"show", "1"}}) {
            const auto [status, out] = history(words);
            QCOMPARE(status, 0);
            QVERIFY2(!out.contains(QChar(0x1b)), qPrintable(words.join(' ') + ": " + out));
        }
        const auto [status, out] = history({"show", "1"});
        QVERIFY2(out.contains("error: party1/worker0: boom \\x1b]0;owned"), qPrintable(out));
    }

    void listFiltersByNameStatusAndReason() {
        for (const auto& [text, shown, hidden] :
             {std::tuple{"BASELINE", "cnn-baseline", "mlp-try"}, std::tuple{"failed", "mlp-try", "cnn-baseline"},
              std::tuple{"signal 9", "mlp-try", "cnn-baseline"}}) {
            const auto [status, out] = history({"list", text});
            QCOMPARE(status, 0);
            QVERIFY2(out.contains(shown) && !out.contains(hidden), qPrintable(text + (": " + out)));
        }
        const auto [status, out] = history({"list", "nothing-like-this"});
        QCOMPARE(status, 0);
        QVERIFY2(out.contains("no run matches 'nothing-like-this'"), qPrintable(out));
    }

    // Newest first, as the History tab sorts them.
    void listShowsTheNewestRunFirst() {
        const auto [status, out] = history({"list"});
        QCOMPARE(status, 0);
        const QStringList ids = [&] {
            QStringList found;
            for (const QString& line : out.split('\n').mid(1))
                if (const QString id = line.section(' ', 0, 0, QString::SectionSkipEmpty); !id.isEmpty()) found << id;
            return found;
        }();
        QVERIFY2(ids.size() >= 2, qPrintable(out));
        for (int i = 1; i < ids.size(); ++i) QVERIFY2(ids[i - 1].toInt() > ids[i].toInt(), qPrintable(out));
    }

    // Tags given as words or comma lists are stored once each, listed, and found by the filter;
    // a note and a new name land beside them, and the other labels are kept.
    void labelsAreStoredListedAndSearched() {
        QCOMPARE(history({"tag", "2", "fedprox,", "non-iid", "fedprox"}).first, 0);
        QCOMPARE(history({"note", "2", "lr", "too", "high"}).first, 0);
        QCOMPARE(history({"rename", "2", "  mlp   lr 0.5 "}).first, 0);
        const auto [status, shown] = history({"show", "2"});
        QCOMPARE(status, 0);
        QVERIFY2(
            shown.contains("run 2: mlp lr 0.5\n") && shown.contains("tags: fedprox, non-iid\n") && shown.contains("notes: lr too high\n"),
            qPrintable(shown));
        const QString list = history({"list", "non-iid"}).second;
        QVERIFY2(list.contains("mlp lr 0.5") && list.contains("fedprox, non-iid") && !list.contains("cnn-baseline"), qPrintable(list));
        QVERIFY2(history({"list", "too high"}).second.contains("mlp lr 0.5"), "notes are searched too");
        QCOMPARE(history({"tag", "2", ""}).first, 0);  // "" clears the tags
        QVERIFY(!history({"show", "2"}).second.contains("tags:"));
    }

    // Wrong input is refused with what to do, and changes nothing.
    void badLabelsAreRefused() {
        auto [status, out] = history({"rename", "1", "  "});
        QCOMPARE(status, 2);
        QVERIFY2(out.contains("a run's name cannot be empty"), qPrintable(out));
        std::tie(status, out) = history({"tag", "7", "x"});
        QCOMPARE(status, 2);
        QVERIFY2(out.contains("no run '7'"), qPrintable(out));
        std::tie(status, out) = history({"note", "1"});
        QCOMPARE(status, 2);
        QVERIFY2(out.contains("hips history: note takes a RUN and the TEXT of its note\nusage: hips history"), qPrintable(out));
        std::tie(status, out) = history({"shwo", "1"});  // a misspelt sub-command is named
        QCOMPARE(status, 2);
        QVERIFY2(out.contains("hips history: 'shwo' is not a sub-command"), qPrintable(out));
        QVERIFY(history({"show", "1"}).second.contains("run 1: cnn-baseline\n"));
        // A mistyped history is named, not made anew (empty) to find no run in.
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        const QString typo = m_dir.filePath("hsitory.sqlite");
        p.start(kHips, {"history", "delete", "1", "--history", typo});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 2);
        QVERIFY2(p.readAll().contains("there is no history at " + typo.toUtf8()), "");
        QVERIFY(!QFileInfo::exists(typo));
    }

    // `hips report` with a run id that is not one says what RUN is (it printed only the usage).
    void reportNamesABadRunId() {
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(kHips, {"report", "latest", "--out", m_dir.filePath("r.pdf"), "--history", m_path});
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 2);
        const QString out = QString::fromUtf8(p.readAll());
        if (!HIPS_WITH_REPORTS) {  // a build without reports (the GPU check's headless one) says so first
            QVERIFY2(out.contains("this hips was built without reports"), qPrintable(out));
            return;
        }
        QVERIFY2(out.contains("RUN is a run's id, a number") && out.contains("got 'latest'"), qPrintable(out));
    }

    // A read that fails (here a table gone; a file locked past the busy timeout alike) is said,
    // with a failing status: show printed the rest as if complete, and report wrote a report of
    // what it could read, exit 0.
    void aFailedReadIsSaidNotShownAsNothing() {
        rawSql(m_path, {"ALTER TABLE traffic RENAME TO traffic_gone"});
        const auto [status, out] = history({"show", "1"});
        QCOMPARE(status, 1);
        QVERIFY2(out.contains("hips history: history: no such table: traffic") && out.contains("may be incomplete"), qPrintable(out));
        if (!HIPS_WITH_REPORTS) return;
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(kHips, {"report", "1", "--out", m_dir.filePath("r.csv"), "--history", m_path});
        QVERIFY(p.waitForFinished(30000));
        const QString report = QString::fromUtf8(p.readAll());
        QCOMPARE(p.exitCode(), 2);
        QVERIFY2(report.contains("no such table: traffic") && report.contains("nothing written"), qPrintable(report));
        QVERIFY(!QFileInfo::exists(m_dir.filePath("r.csv")));
    }

    // A label with terminal controls in it is stored as typed but printed escaped.
    void labelsPrintEscaped() {
        QCOMPARE(history({"note", "1", "red\x1b[31m text"}).first, 0);
        const QString shown = history({"show", "1"}).second;
        QVERIFY2(shown.contains("notes: red\\x1b[31m text") && !shown.contains('\x1b'), qPrintable(shown));
    }
};

QTEST_GUILESS_MAIN(HistoryCliTest)
#include "tst_historycli.moc"
