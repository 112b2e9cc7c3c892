#include "ReportHtml.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonValue>
#include <QMap>
#include <QSet>
#include <algorithm>

namespace hips {

namespace {

constexpr int kMaxEventRows = 300;  // the JSON export has them all

QString esc(const QString& s) {
    return s.toHtmlEscaped();
}

QString when(double unixSeconds) {
    if (unixSeconds <= 0) return QStringLiteral("-");
    return QDateTime::fromMSecsSinceEpoch(qint64(unixSeconds * 1000)).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

QString accuracy(double a) {
    return a < 0 ? QStringLiteral("-") : QString::number(a, 'f', 4);
}

// A two-column table of label/value pairs.
QString factTable(const QList<std::pair<QString, QString>>& rows) {
    QString html = QStringLiteral("<table class=\"facts\" cellspacing=\"0\" cellpadding=\"3\">");
    for (const auto& [label, value] : rows)
        html += QStringLiteral("<tr><th align=\"left\">%1</th><td>%2</td></tr>").arg(esc(label), esc(value));
    return html + QStringLiteral("</table>");
}

QString gridTable(const QStringList& header, const QList<QStringList>& rows) {
    QString html = QStringLiteral("<table class=\"grid\" width=\"100%\" border=\"1\" cellspacing=\"0\" cellpadding=\"3\"><tr>");
    for (const QString& h : header) html += QStringLiteral("<th align=\"left\">%1</th>").arg(esc(h));
    html += QStringLiteral("</tr>");
    for (const QStringList& row : rows) {
        html += QStringLiteral("<tr>");
        for (const QString& cell : row) html += QStringLiteral("<td>%1</td>").arg(esc(cell));
        html += QStringLiteral("</tr>");
    }
    return html + QStringLiteral("</table>");
}

QString settingValue(const QJsonValue& v) {
    if (v.isDouble()) return QString::number(v.toDouble());
    if (v.isBool()) return v.toBool() ? QObject::tr("yes") : QObject::tr("no");
    if (v.isString()) return v.toString();
    return QString::fromUtf8(QJsonDocument::fromVariant(v.toVariant()).toJson(QJsonDocument::Compact));
}

// One row per process. The role and rank are in the process's name (worker0, global_server0),
// and the error column appears only when a process has one: eleven columns broke words on A4.
QString processesSection(const RunReport& r) {
    const bool anyError = std::any_of(r.processes.begin(), r.processes.end(), [](const ProcessRecord& p) { return !p.error.isEmpty(); });
    QList<QStringList> rows;
    for (const ProcessRecord& p : r.processes) {
        const QString runtime = p.started > 0 && p.ended > 0 ? formatSeconds(p.ended - p.started) : QStringLiteral("-");
        const QString exit = p.ended <= 0 ? QStringLiteral("-")
                             : p.crashed  ? QObject::tr("signal %1").arg(p.exitCode)
                                          : QString::number(p.exitCode);
        rows << QStringList{p.party,
                            p.host,
                            p.node.section('/', 1),
                            p.pid ? QString::number(p.pid) : QStringLiteral("-"),
                            p.state,
                            p.started > 0 ? formatSeconds(r.clock.elapsed(p.started)) : QStringLiteral("-"),
                            runtime,
                            exit};
        if (anyError) rows.last() << p.error;
    }
    if (rows.isEmpty()) return QObject::tr("<p>No processes were recorded for this run.</p>");
    QStringList header{QObject::tr("party"), QObject::tr("host"),       QObject::tr("process"), QObject::tr("pid"),
                       QObject::tr("state"), QObject::tr("started at"), QObject::tr("ran for"), QObject::tr("exit")};
    if (anyError) header << QObject::tr("error");
    return gridTable(header, rows);
}

// Rounds with simulated attacks or robust rules at work: who attacked (train.attacked) and how many
// contributions each server's rule rejected (robust.rejected). Empty when the run had neither.
QString byzantineSection(const RunReport& r) {
    QMap<int, QStringList> attackers, rejections;
    QSet<int> rejecting;  // rounds a rule rejected something in (a rule that chooses says so every round, 0 too)
    for (const MetricRecord& m : r.metrics) {
        if (m.name == QLatin1String("train.attacked") && m.value > 0) attackers[m.round] << m.source.section('/', 0, 1);
        if (m.name == QLatin1String("robust.rejected")) {
            rejections[m.round] << QStringLiteral("%1: %2").arg(
                m.source, QString::number(m.value));  // (one arg(): a source holding "%1" is not filled in)
            if (m.value > 0) rejecting.insert(m.round);
        }
    }
    if (attackers.isEmpty() && rejections.isEmpty()) return {};
    QList<int> rounds = attackers.keys() + rejecting.values();
    std::sort(rounds.begin(), rounds.end());
    rounds.erase(std::unique(rounds.begin(), rounds.end()), rounds.end());
    QList<QStringList> rows;
    for (int round : rounds) {
        if (rows.size() == kMaxEventRows) break;
        QStringList who = attackers.value(round);
        who.sort();
        rows << QStringList{QString::number(round), who.isEmpty() ? QStringLiteral("-") : who.join(QStringLiteral(", ")),
                            rejections.value(round).join(QStringLiteral("; "))};
    }
    QString html = QStringLiteral("<h2>%1</h2>").arg(QObject::tr("Attacks and robust aggregation"));
    if (rounds.isEmpty()) return html + QObject::tr("<p>No attacks, and the rules rejected nothing.</p>");
    html += gridTable({QObject::tr("round"), QObject::tr("attackers"), QObject::tr("rejected by the rules")}, rows);
    if (rounds.size() > rows.size()) html += QObject::tr("<p>%1 more rounds in the JSON export.</p>").arg(rounds.size() - rows.size());
    return html;
}

bool isWarning(const EventRecord& e) {
    return e.level == QLatin1String("warning") || e.level == QLatin1String("error");
}

QString eventsSection(const RunReport& r) {
    QList<QStringList> rows;
    int total = 0;
    for (const EventRecord& e : r.events) {
        if (!isWarning(e)) continue;
        if (++total <= kMaxEventRows) rows << QStringList{formatSeconds(r.clock.elapsed(e.t)), e.level, e.source, e.message};
    }
    QString html = gridTable({QObject::tr("at"), QObject::tr("level"), QObject::tr("source"), QObject::tr("message")}, rows);
    if (total > kMaxEventRows) html += QObject::tr("<p>%1 more in the JSON export.</p>").arg(total - kMaxEventRows);
    return html;
}

}  // namespace

QString reportHtml(const RunReport& r, const ReportImages& images, const std::function<QString(const QString&, const QImage&)>& imageSource,
                   ReportStyle style) {
    const int imageWidth = style.imageWidth;
    auto img = [&](const QString& key, const QImage& image) {
        const bool topology = key == QLatin1String("topology");
        int width = std::min(topology ? style.topologyWidth : imageWidth, int(image.width() / image.devicePixelRatio()));
        int height = image.width() > 0 ? width * image.height() / image.width() : 0;  // both: QTextDocument keeps them
        if (topology && style.topologyHeight > 0 && height > style.topologyHeight) {
            width = width * style.topologyHeight / height;
            height = style.topologyHeight;
        }
        return QStringLiteral("<img src=\"%1\" width=\"%2\" height=\"%3\">").arg(imageSource(key, image)).arg(width).arg(height);
    };
    const QString title = QObject::tr("Run report: %1").arg(r.run.name);
    QString html =
        QStringLiteral(
            "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>%1</title><style>%2"
            "h1{font-size:16pt}h2{font-size:12pt;margin-top:1.4em;border-bottom:1px solid #ccc}"
            "table.grid{border-collapse:collapse;font-size:9pt}table.grid th{background:#eef1f5}"
            "table.facts th{padding-right:2em;font-weight:normal;color:#555}"
            "</style></head><body>")
            .arg(esc(title),
                 style.forBrowser
                     ? QStringLiteral("body{font-family:'DejaVu Sans',sans-serif;font-size:10pt;color:#222;max-width:60em;margin:2em auto}")
                     : QString());
    html += QStringLiteral("<h1>%1</h1>").arg(esc(title));
    html += factTable(
        {{QObject::tr("Run"), QString::number(r.run.id)},
         {QObject::tr("Name"), r.run.name},
         {QObject::tr("Tags"), r.run.tags},
         {QObject::tr("Notes"), r.run.notes},
         {QObject::tr("Status"), runReason(r.run).isEmpty() ? r.run.status : r.run.status + QStringLiteral(": ") + runReason(r.run)},
         {QObject::tr("Started"), when(r.run.started)},
         {QObject::tr("Ended"), when(r.run.ended)},
         {QObject::tr("Duration"),
          r.clock.paused() ? QObject::tr("%1 (and %2 paused before a resume)").arg(formatSeconds(r.seconds), formatSeconds(r.pausedSeconds))
                           : formatSeconds(r.seconds)},
         {QObject::tr("Report made"), when(double(QDateTime::currentMSecsSinceEpoch()) / 1000)}});

    html += QStringLiteral("<h2>%1</h2>").arg(QObject::tr("Summary"));
    const qsizetype warnings = std::count_if(r.events.begin(), r.events.end(), isWarning);
    const QString score = r.regression ? QObject::tr("RMSE") : QObject::tr("accuracy");
    const QString target = r.timeToTarget < 0 ? QObject::tr("not reached")
                                              : QObject::tr("%1 (round %2)").arg(formatSeconds(r.timeToTarget)).arg(r.roundToTarget);
    html += factTable(
        {{QObject::tr("Rounds"), QString::number(r.facts.rounds)},
         {QObject::tr("Best test %1").arg(score), r.facts.bestText()},
         {QObject::tr("Final test %1").arg(score), r.facts.finalText()},
         {QObject::tr("Final top-5 accuracy"), r.regression              ? QObject::tr("- (a regression)")
                                               : r.top5ByRound.isEmpty() ? QObject::tr("- (fewer than 5 classes)")
                                                                         : accuracy(r.top5ByRound.last().y())},
         {QObject::tr("Time to %1 accuracy").arg(r.targetAccuracy), r.regression ? QObject::tr("- (a regression)") : target},
         {QObject::tr("Bytes inside parties"), formatBytes(r.bytesInside)},
         {QObject::tr("Bytes across parties"), formatBytes(r.bytesAcross)},
         {QObject::tr("Throughput"), QObject::tr("%1 samples/s").arg(r.samplesPerSecond, 0, 'f', 0)},
         {QObject::tr("Computing-time ratio"), r.computeRatio < 0 ? QStringLiteral("-") : QString::number(r.computeRatio, 'f', 3)},
         {QObject::tr("Warnings and errors"), warnings == 0 ? QObject::tr("none") : QObject::tr("%1, listed at the end").arg(warnings)}});
    if (const QString privacy = privacyText(r.run.summary); !privacy.isEmpty())  // only where the run had it: the page is full
        html += factTable({{QObject::tr("Privacy"), privacy}});

    html += QStringLiteral("<h2>%1</h2>").arg(QObject::tr("Topology"));
    if (!images.topology.isNull()) html += QStringLiteral("<p>%1</p>").arg(img(QStringLiteral("topology"), images.topology));
    else html += QObject::tr("<p>The stored topology could not be read.</p>");

    html += QStringLiteral("<h2>%1</h2>").arg(QObject::tr("Settings"));
    QList<std::pair<QString, QString>> settings;
    for (auto it = r.settings.begin(); it != r.settings.end(); ++it) settings << std::pair{it.key(), settingValue(*it)};
    html += factTable(settings);

    html += QStringLiteral("<h2>%1</h2>").arg(QObject::tr("Charts"));
    for (int i = 0; i < images.charts.size(); ++i) {
        const RenderedChart& c = images.charts[i];
        if (c.image.isNull()) html += QObject::tr("<p>%1: not recorded in this run.</p>").arg(esc(c.title));
        else html += QStringLiteral("<p>%1</p>").arg(img(QStringLiteral("chart%1").arg(i), c.image));
    }

    html += byzantineSection(r);
    html += QStringLiteral("<h2>%1</h2>").arg(QObject::tr("Processes"));
    html += processesSection(r);
    if (warnings > 0) {  // none is said in the summary: a heading and "None." made a near-empty last page
        html += QStringLiteral("<h2>%1</h2>").arg(QObject::tr("Warnings and errors"));
        html += eventsSection(r);
    }
    return html + QStringLiteral("</body></html>");
}

}  // namespace hips
