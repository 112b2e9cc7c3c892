// Run reports: each format's content, built from a history the test writes itself; the
// charts (Qt Charts offscreen) and the topology diagram; LTTB decimation; bad output paths.
#include "Lttb.h"
#include "ReportCharts.h"
#include "ReportHtml.h"
#include "ReportWriter.h"
#include "RunClock.h"
#include "RunReport.h"
#include "RunStore.h"
#include "TopologyDiagram.h"
#include "TopologyEdits.h"
#include "TopologyReader.h"
#include "TopologyWriter.h"
#include "../history/SmallDisk.h"

#include <QFile>
#include <QFontMetrics>
#include <QGuiApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QValueAxis>
#include <memory>
#include <QtTest>

using namespace hips;

namespace {

const QColor kAccuracyBlue(0x1f, 0x77, 0xb4);

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Pixels close to `color` (anti-aliasing blends the edges of lines).
int pixelsNear(const QImage& image, const QColor& color) {
    int n = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            const QColor c = image.pixelColor(x, y);
            n += std::abs(c.red() - color.red()) + std::abs(c.green() - color.green()) + std::abs(c.blue() - color.blue()) < 40;
        }
    return n;
}

// A finished run of the small topology: 5 rounds, two parties, one failed-and-named worker warning.
qint64 writeRun(RunStore& store, int rounds = 5) {
    const QByteArray topology = readAll(HIPS_SOURCE_DIR "/tests/data/topologies/small.json");
    const qint64 run = store.beginRun("report-test", topology, {{"rounds", rounds}, {"model", "mlp"}});
    const double t0 = store.run(run)->started;
    for (const char* node : {"central/global_scheduler", "central/global_server0", "central/master_worker", "party1/server0",
                             "party1/worker0", "party2/worker0"}) {
        ProcessRecord p;
        p.node = node, p.role = QString(node).section('/', 1), p.party = QString(node).section('/', 0, 0);
        p.host = "local", p.state = "exited", p.pid = 1000, p.started = t0 + 0.1, p.ended = t0 + rounds + 1;
        store.recordProcess(run, p);
    }
    for (int round = 1; round <= rounds; ++round) {
        const double t = t0 + round;
        for (const char* w : {"party1/worker0", "party2/worker0"}) {
            store.appendMetric(run, t, w, round, "train.samples", 320);
            store.appendMetric(run, t, w, round, "train.loss", 2.0 / round);
            store.appendMetric(run, t, w, round, "train.compute_s", 0.8);
            store.appendMetric(run, t, w, round, "train.comm_s", 0.2);
        }
        store.appendMetric(run, t, "central/global_server0", round, "aggregate.apply_s", 0.01);
        store.appendMetric(run, t, "central/global_server0", round, "aggregate.round_s", 1.0);
        store.appendMetric(run, t + 0.2, "central/master_worker", round, "eval.test_acc", 0.6 + 0.05 * round);
        store.appendMetric(run, t + 0.2, "central/master_worker", round, "eval.test_loss", 1.0 / round);
        store.appendTraffic(run, {t, "party1/server0>central/global_server0", "across", 400000LL * round, round});
        store.appendTraffic(run, {t, "party1/worker0>party1/server0", "inside", 800000LL * round, round});
    }
    store.appendEvent(run, t0 + 2, "warning", "party2/worker0", "disk <slow> & noisy");
    store.finishRun(run, "finished", {});
    store.flush();
    return run;
}

}  // namespace

class ReportTest : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    std::unique_ptr<RunStore> m_store;
    std::optional<RunReport> m_report;

    QString path(const QString& name) const { return m_dir.filePath(name); }

private Q_SLOTS:
    void initTestCase() {
        QString error;
        m_store = RunStore::open(path("h.sqlite"), &error);
        QVERIFY2(m_store, qPrintable(error));
        const qint64 run = writeRun(*m_store);
        m_report = RunReport::load(*m_store, run, 0.78, &error);
        QVERIFY2(m_report, qPrintable(error));
    }

    void htmlIsSelfContainedWithChartsAndTables() {
        QCOMPARE(writeReport(*m_report, path("r.html")), QString());
        const QString html = QString::fromUtf8(readAll(path("r.html")));
        QVERIFY(html.contains("Run report: report-test"));
        QVERIFY(html.contains("0.8500"));  // final and best accuracy (0.6 + 0.05 × 5)
        QVERIFY(html.contains("4.2 s (round 4)"));  // time to 0.78: round 4 (0.80) was evaluated at t0 + 4.2
        for (const char* party : {"central", "party1", "party2"}) QVERIFY(html.contains(party));
        QVERIFY(html.contains("disk &lt;slow&gt; &amp; noisy"));  // escaped, never raw markup
        // Topology plus six charts, all inline: a report must open on a machine without the history.
        const QRegularExpression img("<img src=\"data:image/png;base64,([A-Za-z0-9+/=]+)\"");
        QList<QImage> images;
        for (auto it = img.globalMatch(html); it.hasNext();)
            images << QImage::fromData(QByteArray::fromBase64(it.next().captured(1).toLatin1()), "PNG");
        QCOMPARE(images.size(), 7);
        for (const QImage& i : images) QVERIFY(!i.isNull() && i.width() > 200);
        QVERIFY(pixelsNear(images[1], kAccuracyBlue) > 100);  // the accuracy line is drawn
        QVERIFY(!html.contains("src=\"http"));
        QCOMPARE(html.count("<tr><td>central</td>") + html.count("<tr><td>party1</td>") + html.count("<tr><td>party2</td>"), 6);
    }

    // A run under attack: the report marks the rounds, the attackers and what the rules rejected;
    // a run without either has no such section.
    void attacksAndRejectionsAreMarkedByRound() {
        QString error;
        QVERIFY(!QString::fromUtf8(readAll(path("r.html"))).contains("Attacks and robust aggregation"));
        const qint64 run = writeRun(*m_store, 3);
        const double t = m_store->run(run)->started;
        m_store->appendMetric(run, t + 2, "party2/worker0", 2, "train.attacked", 1);
        m_store->appendMetric(run, t + 2, "party1/worker0", 2, "train.attacked", 0);
        m_store->appendMetric(run, t + 2, "party2/server0", 2, "robust.rejected", 1);
        m_store->flush();
        const auto report = RunReport::load(*m_store, run, 0.78, &error);
        QVERIFY2(report, qPrintable(error));
        QCOMPARE(writeReport(*report, path("attacked.html")), QString());
        const QString html = QString::fromUtf8(readAll(path("attacked.html")));
        QVERIFY(html.contains("Attacks and robust aggregation"));
        QVERIFY2(html.contains("<tr><td>2</td><td>party2/worker0</td><td>party2/server0: 1</td></tr>"), qPrintable(html.right(3000)));
        QVERIFY(!html.contains("party1/worker0</td><td>party2"));  // an honest round is no attack

        // A rule that chooses says what it rejected every round, 0 too: only rounds with an attack
        // or a rejection are rows, and no more than the events' (a 5,000-round run laid out 5,000).
        for (int round = 1; round <= 3; round += 2) m_store->appendMetric(run, t + 3, "party1/server0", round, "robust.rejected", 0);
        for (int round = 10; round < 410; ++round) m_store->appendMetric(run, t + 3, "party1/server0", round, "robust.rejected", 2);
        m_store->flush();
        const auto many = RunReport::load(*m_store, run, 0.78, &error);
        QVERIFY2(many, qPrintable(error));
        QCOMPARE(writeReport(*many, path("many.html")), QString());
        const QString long_ = QString::fromUtf8(readAll(path("many.html")));
        QVERIFY(!long_.contains("<tr><td>1</td><td>-</td>") && !long_.contains("<tr><td>3</td><td>-</td>"));
        QVERIFY(long_.contains("<tr><td>10</td><td>-</td><td>party1/server0: 2</td></tr>"));
        QVERIFY(long_.contains("<tr><td>308</td>") && !long_.contains("<tr><td>309</td>"));  // round 2, then 10 … 308: 300 rows
        QVERIFY2(long_.contains("101 more rounds in the JSON export"), qPrintable(long_.right(2000)));
    }

    void pdfHoldsTheTextAndThePages() {
        QCOMPARE(writeReport(*m_report, path("r.pdf")), QString());
        QVERIFY(readAll(path("r.pdf")).startsWith("%PDF"));
        if (QStandardPaths::findExecutable("pdftotext").isEmpty()) QSKIP("pdftotext (poppler-utils) is not installed");
        QProcess p;
        p.start("pdftotext", {path("r.pdf"), "-"});
        QVERIFY(p.waitForFinished(30000));
        const QByteArray text = p.readAllStandardOutput();
        for (const char* expected : {"report-test", "0.8500", "party1", "party2", "Processes", "finished", "Warnings and errors",
                                     "global_scheduler", "exited"})  // whole words: eleven columns broke "exite d" on A4
            QVERIFY2(text.contains(expected), expected);
    }

    // A run without warnings says so in its summary; no heading and "None." left alone on a last page.
    void aRunWithoutWarningsEndsOnItsProcesses() {
        RunReport report = *m_report;
        report.events.clear();
        QCOMPARE(writeReport(report, path("quiet.html")), QString());
        const QString html = QString::fromUtf8(readAll(path("quiet.html")));
        QVERIFY2(html.contains("<th align=\"left\">Warnings and errors</th><td>none</td>"), qPrintable(html.left(3000)));
        QCOMPARE(html.count("Warnings and errors"), 1);
        QCOMPARE(writeReport(*m_report, path("noisy.html")), QString());
        QVERIFY(QString::fromUtf8(readAll(path("noisy.html")))
                    .contains("<th align=\"left\">Warnings and errors</th><td>1, listed at the end</td>"));
        if (QStandardPaths::findExecutable("pdftotext").isEmpty()) QSKIP("pdftotext (poppler-utils) is not installed");
        QCOMPARE(writeReport(report, path("quiet.pdf")), QString());
        QProcess p;
        p.start("pdftotext", {path("quiet.pdf"), "-"});
        QVERIFY(p.waitForFinished(30000));
        QList<QByteArray> pages = p.readAllStandardOutput().split('\f');
        while (!pages.isEmpty() && pages.last().trimmed().isEmpty()) pages.removeLast();
        QVERIFY(!pages.isEmpty());
        QVERIFY2(pages.last().contains("exited"), pages.last().constData());  // the processes' table
    }

    // A tall diagram (key slicing: four servers in every party) stays under the summary on the
    // first page: it used to move to the second, leaving its heading alone on half a page.
    void aTallTopologyStaysOnTheFirstPage() {
        if (QStandardPaths::findExecutable("pdfimages").isEmpty()) QSKIP("pdfimages (poppler-utils) is not installed");
        TopologyLoad small = TopologyReader::readJson(m_report->topologyJson);
        QVERIFY(small.ok());
        Topology t = *small.topology;
        QVERIFY(edits::setServerCount(t, 4).isEmpty());
        RunReport report = *m_report;
        report.topologyJson = TopologyWriter::toJson(t);
        QCOMPARE(writeReport(report, path("tall.pdf")), QString());
        QProcess p;
        p.start("pdfimages", {"-list", "-f", "1", "-l", "1", path("tall.pdf")});
        QVERIFY(p.waitForFinished(30000));
        const QList<QByteArray> lines = p.readAllStandardOutput().trimmed().split('\n');
        QCOMPARE(lines.size(), 3);  // two header lines, then the diagram
        QVERIFY(lines[2].simplified().startsWith("1 0 image"));
    }

    // No section heading is left at the foot of a page with its section on the next ("Settings"
    // above one of its rows): whatever the diagram's height and the number of settings.
    void noHeadingIsLeftAtTheFootOfAPage() {
        if (QStandardPaths::findExecutable("pdftotext").isEmpty()) QSKIP("pdftotext (poppler-utils) is not installed");
        const QRegularExpression page("<page width=\"[0-9.]+\" height=\"([0-9.]+)\">"),
            heading(
                "<word xMin=\"[0-9.]+\" yMin=\"[0-9.]+\" xMax=\"[0-9.]+\" yMax=\"([0-9.]+)\">"
                "(Summary|Topology|Settings|Charts|Processes|Warnings)</word>");
        const TopologyLoad shipped = TopologyReader::readFile(HIPS_SOURCE_DIR "/resources/topologies/default.json");
        QVERIFY(shipped.ok());
        int headings = 0;
        for (int servers = 1; servers <= 4; ++servers)
            for (int extraSettings = 0; extraSettings <= 14; extraSettings += 2) {
                Topology t = *shipped.topology;
                QVERIFY(edits::setServerCount(t, servers).isEmpty());
                RunReport report = *m_report;
                report.topologyJson = TopologyWriter::toJson(t);
                for (int k = 0; k < extraSettings; ++k) report.settings.insert(QStringLiteral("zz_extra_%1").arg(k), k);
                const QString pdf = path(QStringLiteral("feet-%1-%2.pdf").arg(servers).arg(extraSettings));
                QCOMPARE(writeReport(report, pdf), QString());
                QProcess p;
                p.start("pdftotext", {"-bbox", pdf, "-"});
                QVERIFY(p.waitForFinished(30000));
                const QString text = QString::fromUtf8(p.readAllStandardOutput());
                const QStringList pages = text.split("</page>");
                for (int n = 0; n < pages.size(); ++n) {
                    const auto size = page.match(pages[n]);
                    if (!size.hasMatch()) continue;
                    const double foot = size.captured(1).toDouble() - 42.5 - 30;  // 15 mm margin, then about 3 lines
                    for (auto it = heading.globalMatch(pages[n]); it.hasNext(); ++headings) {
                        const auto h = it.next();
                        QVERIFY2(h.captured(1).toDouble() < foot, qPrintable(QStringLiteral("%1 servers, %2 more settings: '%3' "
                                                                                            "at the foot of page %4 (y %5)")
                                                                                 .arg(servers)
                                                                                 .arg(extraSettings)
                                                                                 .arg(h.captured(2))
                                                                                 .arg(n + 1)
                                                                                 .arg(h.captured(1))));
                    }
                }
            }
        QVERIFY(headings >= 32 * 6);
    }

    void processesHaveAnErrorColumnOnlyWhenOneFailed() {
        RunReport report = *m_report;
        const auto html = [&] { return reportHtml(report, {}, [](const QString&, const QImage&) { return QString(); }, {}); };
        QVERIFY(!html().contains("<th align=\"left\">error</th>"));
        report.processes[4].error = "killed by signal 9";
        QVERIFY(html().contains("<th align=\"left\">error</th>"));
        QVERIFY(html().contains("<td>killed by signal 9</td>"));
    }

    void csvIsLongFormatWithEveryRow() {
        QCOMPARE(writeReport(*m_report, path("r.csv")), QString());
        const QList<QByteArray> lines = readAll(path("r.csv")).trimmed().split('\n');
        QCOMPARE(lines.first(), QByteArray("run_id,t,source,round,name,value"));
        QCOMPARE(lines.size() - 1, m_report->metricPointCount());
        QCOMPARE(lines.size() - 1, 5 * 12 + 5 * 2);
        for (const QByteArray& line : lines) QCOMPARE(line.count(','), 5);
        auto count = [&](const char* part) {
            return std::count_if(lines.begin(), lines.end(), [&](const QByteArray& l) { return l.contains(part); });
        };
        QCOMPARE(count(",eval.test_acc,0.85"), 1);
        QCOMPARE(count(",traffic.across,"), 5);
        QCOMPARE(count(",party1/server0>central/global_server0,3,traffic.across,1200000"), 1);  // (its round, stored: it was empty)
    }

    void jsonCarriesRowsAndFigures() {
        QCOMPARE(writeReport(*m_report, path("r.json")), QString());
        const QJsonObject json = QJsonDocument::fromJson(readAll(path("r.json"))).object();
        QCOMPARE(json["run"].toObject()["name"].toString(), QStringLiteral("report-test"));
        QCOMPARE(json["processes"].toArray().size(), 6);
        QCOMPARE(json["metrics"].toArray().size(), 60);
        const QJsonObject summary = json["summary"].toObject();
        QCOMPARE(summary["rounds"].toInt(), 5);
        QCOMPARE(summary["bytes_across"].toDouble(), 2e6);
        QCOMPARE(summary["compute_ratio"].toDouble(), 0.8);
        QCOMPARE(json["series"].toObject()["test_acc_by_round"].toArray().size(), 5);
        QCOMPARE(json["topology"].toObject()["parties"].toArray().size(), 3);
    }

    void badOutputPathsSayWhatToDo() {
        QString e = writeReport(*m_report, path("r.docx"));
        QVERIFY2(e.contains(".html") && e.contains(".pdf"), qPrintable(e));
        e = writeReport(*m_report, path("missing/dir/r.html"));
        QVERIFY2(e.contains("does not exist"), qPrintable(e));
        QVERIFY(!QFile::exists(path("missing/dir/r.html")));
        QVERIFY(QDir().mkpath(path("folder.html")));  // refused, not replaced by a file
        e = writeReport(*m_report, path("folder.html"));
        QVERIFY2(e.contains("not a regular file"), qPrintable(e));
        QVERIFY(QFileInfo(path("folder.html")).isDir());
    }

    // On a full disk every format says so, and a report already there is left as it was: none is
    // reported written when part of it is (the PDF was: QPdfWriter does not check its writes).
    void aFullDiskIsReportedAndKeepsTheOldReport() {
        SmallDisk disk(path("small"), "size=256k,mode=0755");
        if (!disk.mounted()) QSKIP(qPrintable(disk.why()));
        for (const QString& format : reportFormats()) {
            QFile old(disk.filePath("r." + format));
            QVERIFY(old.open(QIODevice::WriteOnly) && old.write("old") == 3);
            old.close();
        }
        QFile filler(disk.filePath("filler"));
        QVERIFY(filler.open(QIODevice::WriteOnly | QIODevice::Unbuffered));
        while (filler.write(QByteArray(4096, 'x')) == 4096) {
        }
        for (const QString& format : reportFormats()) {
            const QString target = disk.filePath("r." + format);
            const QString e = writeReport(*m_report, target);
            QVERIFY2(e.contains(target) && e.contains("no space left"), qPrintable(format + ": " + e));
            QCOMPARE(readAll(target), QByteArray("old"));
        }
    }

    // A run stopped after round 2 and resumed 100 s later: its warnings and processes are placed
    // on the time it ran, as its charts are, not 100 s later.
    void aResumedRunsEventsLeaveOutThePause() {
        const qint64 run = m_store->beginRun("resumed", readAll(HIPS_SOURCE_DIR "/tests/data/topologies/small.json"), {{"rounds", 4}});
        const double t0 = m_store->run(run)->started;
        for (int r = 1; r <= 2; ++r) m_store->appendMetric(run, t0 + r + 0.5, "central/master_worker", r, "eval.test_acc", 0.8);
        m_store->appendEvent(run, t0 + 102.5, "info", "controller", kResumedEventPrefix + "2");
        ProcessRecord p;
        p.node = "party1/worker0", p.role = "worker0", p.party = "party1", p.host = "local", p.state = "exited", p.pid = 1001;
        p.started = t0 + 102.9, p.ended = t0 + 104;
        m_store->recordProcess(run, p);
        m_store->appendEvent(run, t0 + 103, "warning", "party1/worker0", "slow disk");
        m_store->appendMetric(run, t0 + 104, "central/master_worker", 3, "eval.test_acc", 0.8);
        m_store->finishRun(run, "finished", {});
        QVERIFY(m_store->flush());
        QString error;
        const auto report = RunReport::load(*m_store, run, 0.85, &error);
        QVERIFY2(report && report->clock.paused(), qPrintable(error));
        QCOMPARE(writeReport(*report, path("resumed.html")), QString());
        const QString html = QString::fromUtf8(readAll(path("resumed.html")));
        QVERIFY2(html.contains("<tr><td>3.0 s</td><td>warning</td><td>party1/worker0</td>"), qPrintable(html.right(2000)));
        QVERIFY2(html.contains("<td>exited</td><td>2.9 s</td><td>1.1 s</td>"),
                 qPrintable(html.mid(html.indexOf("party1/worker0") - 300, 600)));
    }

    void aRunWithNoRowsStillReports() {
        const qint64 empty = m_store->beginRun("empty", "not json", {});
        m_store->flush();
        QString error;
        const auto report = RunReport::load(*m_store, empty, 0.85, &error);
        QVERIFY(report);
        QCOMPARE(writeReport(*report, path("empty.html")), QString());
        const QString html = QString::fromUtf8(readAll(path("empty.html")));
        QVERIFY(html.contains("not recorded in this run"));
        QVERIFY(html.contains("could not be read"));
    }

    void chartDrawsItsLinesAndSkipsNothing() {
        ChartSpec spec{"t", "x", "y", {{"a", {{0, 0}, {1, 1}, {2, 0.5}}, kAccuracyBlue}}};
        const QImage image = renderLineChart(spec, QSize(300, 200), 1.0);
        QCOMPARE(image.size(), QSize(300, 200));
        QVERIFY(pixelsNear(image, kAccuracyBlue) > 50);
        spec.lines[0].points.clear();
        QVERIFY(spec.isEmpty());
    }

    // A diverged run's loss (inf), or NaN from a history file: left out, the rest drawn on a valid
    // axis (the range went invalid, and the chart with it).
    void aValueThatIsNotFiniteIsLeftOut() {
        QTest::failOnWarning(QRegularExpression(QStringLiteral("invalid range|Invalid range")));
        const ChartSpec spec{"loss", "round", "loss", {{"a", {{1, 2.3}, {2, 1.1}, {3, qInf()}, {4, qQNaN()}}, kAccuracyBlue}}};
        const QImage image = renderLineChart(spec, QSize(300, 200), 1.0);
        QVERIFY(pixelsNear(image, kAccuracyBlue) > 50);
    }

    // A resumed run's traffic began at 0.3 s with 0 MB; its axes read -5 s and -10 MB.
    void axesStayAtOrAboveZeroForDataThatDoes() {
        for (const auto& [lo, hi] : {std::pair{0.0, 27.2}, {0.3, 11.4}, {0.48, 0.87}, {0.0, 0.0}, {5.0, 5.0}}) {
            std::unique_ptr<QValueAxis> axis(reportAxis("y", lo, hi, false));
            QVERIFY2(axis->min() >= 0 && axis->min() <= lo && axis->max() > hi, qPrintable(QString("%1..%2").arg(lo).arg(hi)));
        }
        std::unique_ptr<QValueAxis> signedAxis(reportAxis("y", -3, 4, false));
        QVERIFY(signedAxis->min() < -3 && signedAxis->max() > 4);
        // Labels with the decimals their ticks need: seconds 0, 5, 10, 15; accuracies 0.40 .. 0.90 by 0.1.
        QCOMPARE(std::unique_ptr<QValueAxis>(reportAxis("s", 0.3, 11.4, false))->labelFormat(), QString("%.0f"));
        QCOMPARE(std::unique_ptr<QValueAxis>(reportAxis("acc", 0.48, 0.87, false))->labelFormat(), QString("%.1f"));
        // Rounds end at the last one: 20 rounds drew an axis to 30.
        std::unique_ptr<QValueAxis> rounds(reportAxis("round", 1, 20, true));
        QVERIFY2(rounds->min() == 0 && rounds->max() == 20, qPrintable(QString("%1..%2").arg(rounds->min()).arg(rounds->max())));
        // A tick on every round of a short run, and only there: two rounds were labelled 1 1 1 2 2 2.
        for (int last : {2, 3, 4}) {
            std::unique_ptr<QValueAxis> few(reportAxis("round", 1, last, true));
            const double step = (few->max() - few->min()) / (few->tickCount() - 1);
            QVERIFY2(step == 1 && few->min() == std::floor(few->min()) && few->max() >= last,
                     qPrintable(QString("%1..%2 by %3").arg(few->min()).arg(few->max()).arg(step)));
        }
    }

    // The diagram's boxes are as wide as their titles, which are bold: a long party name was cut
    // off ("…-denmark-resear") when the box was measured in the regular font.
    void aLongPartyNameFitsItsBoxInTheDiagram() {
        TopologyLoad small = TopologyReader::readFile(HIPS_SOURCE_DIR "/tests/data/topologies/small.json");
        QVERIFY(small.ok());
        Topology t = *small.topology;
        const QString name = "university-hospital-of-southern-denmark-research-unit";
        QVERIFY(edits::renameParty(t, "central", name).isEmpty());
        t.parties = {*t.centralParty()};  // alone: the picture is as wide as its box and margins
        const QImage diagram = drawTopologyDiagram(t, 1.0);
        QFont bold = QGuiApplication::font();
        bold.setPointSizeF(9);
        bold.setBold(true);
        constexpr int kBoxPadding = 2 * 10, kMargins = 2 * 14;
        const int title = QFontMetrics(bold).horizontalAdvance(name + " (central party)");
        QVERIFY2(diagram.width() >= title + kBoxPadding + kMargins,
                 qPrintable(QString("%1 px for a %2 px title").arg(diagram.width()).arg(title)));
    }

    // A hundred parties of a hundred workers: the picture keeps its shape within the bound (at
    // full scale it took 650 MB, on the GUI thread).
    void aHugeTopologysDiagramIsBounded() {
        TopologyLoad small = TopologyReader::readFile(HIPS_SOURCE_DIR "/tests/data/topologies/small.json");
        QVERIFY(small.ok());
        Topology t = *small.topology;
        const Party model = t.parties.last();
        QVERIFY(!model.central);
        while (t.parties.size() < 100) {
            Party p = model;
            p.id = QStringLiteral("party%1").arg(t.parties.size());
            t.parties.append(p);
        }
        const QImage diagram = drawTopologyDiagram(t);
        QVERIFY(!diagram.isNull());
        QVERIFY2(std::max(diagram.width(), diagram.height()) <= kDiagramMaxPixels,
                 qPrintable(QString("%1 × %2 px").arg(diagram.width()).arg(diagram.height())));
        QVERIFY(diagram.width() > 4 * diagram.height());  // (a row of 99 parties under the central one)
    }

    void lttbKeepsEndsCountAndPeaks() {
        QList<QPointF> points;
        for (int i = 0; i < 100000; ++i) points << QPointF(i, i == 54321 ? 100.0 : std::sin(i / 1000.0));
        const QList<QPointF> out = lttb(points, 1000);
        QCOMPARE(out.size(), 1000);
        QCOMPARE(out.first(), points.first());
        QCOMPARE(out.last(), points.last());
        QVERIFY(out.contains(QPointF(54321, 100.0)));  // a one-point spike survives
        for (int i = 1; i < out.size(); ++i) QVERIFY(out[i].x() > out[i - 1].x());
        QCOMPARE(lttb(points.mid(0, 10), 1000).size(), 10);  // short series pass through
    }
};

QTEST_MAIN(ReportTest)
#include "tst_report.moc"
