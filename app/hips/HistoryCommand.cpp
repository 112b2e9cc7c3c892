#include "HistoryCommand.h"

#include "CommandLine.h"
#include "PrintableText.h"
#include "RunStore.h"
#include "TopologyReader.h"
#include "TopologyShape.h"

#include <QCommandLineParser>
#include <QDateTime>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <cstdio>
#include <optional>
#include <utility>

namespace hips {

// Text a user typed into a history (a name, tags, notes), safe to print on a terminal.
static QString shown(const QString& text, qsizetype maxChars = -1) {
    return printableText(text, maxChars);
}

// The runs whose id, name, status, reason, tags or notes contain `filter` (any case), as the
// History tab filters them; every run when it is empty. Newest first, as the History tab sorts.
// When a run began, or "-" when the file does not say (RunStoreReads: no time a run could have).
static QString startedText(double started) {
    return started > 0 ? QDateTime::fromMSecsSinceEpoch(qint64(started * 1000)).toString("yyyy-MM-dd HH:mm:ss") : QStringLiteral("-");
}

static int listRuns(const RunStore& store, const QString& filter) {
    QList<RunListEntry> runs = store.runList();
    if (const QString e = store.readError(); !e.isEmpty()) {  // (an empty list is no answer to a file that cannot be read)
        std::fprintf(stderr, "hips history: %s\n", qPrintable(e));
        return 1;
    }
    runs.removeIf([&](const RunListEntry& e) { return !runMatches(e.run, filter); });
    std::reverse(runs.begin(), runs.end());  // (the store lists them by id: oldest first)
    if (runs.isEmpty() && !filter.isEmpty()) {
        std::printf("no run matches '%s' (the id, name, status, reason, tags and notes are searched)\n", qPrintable(shown(filter)));
        return 0;
    }
    std::printf("%4s  %-20s  %-19s  %9s  %-11s  %11s  %11s  %6s  %9s  %s\n", "id", "name", "start", "duration", "status", "best_acc",
                "final", "rounds", "across_MB", "tags");
    for (const auto& [r, f] : runs) {
        const QString start = startedText(r.started);
        const QString duration = r.ended > 0 ? QString::number(store.duration(r), 'f', 1) + 's' : QStringLiteral("-");
        const QString tags = r.tags.isEmpty() ? QString() : QStringLiteral("  ") + shown(r.tags, 40);  // no trailing blanks
        std::printf("%4lld  %-20s  %-19s  %9s  %-11s  %11s  %11s  %6d  %9.1f%s\n", static_cast<long long>(r.id),
                    qPrintable(shown(r.name).left(20)), qPrintable(start), qPrintable(duration), qPrintable(shown(r.status, 11)),
                    qPrintable(f.bestText()), qPrintable(f.finalText()), f.rounds, f.bytesAcross / 1e6, qPrintable(tags));
    }
    return 0;
}

static std::optional<RunRecord> findRun(const RunStore& store, const QString& idText) {
    bool ok = false;
    const qint64 id = idText.toLongLong(&ok);
    const auto run = ok ? store.run(id) : std::nullopt;
    if (!run && !store.readError().isEmpty()) std::fprintf(stderr, "hips history: %s\n", qPrintable(store.readError()));
    else if (!run) std::fprintf(stderr, "hips history: no run '%s' in this history; see `hips history list`\n", qPrintable(idText));
    return run;
}

// A run under attack warns every round: the first few say what happened, the report has them all.
static void printWarnings(const QStringList& warnings, qint64 run) {
    constexpr int kShown = 10;
    for (const QString& w : warnings.mid(0, kShown)) std::printf("warning: %s\n", qPrintable(shown(w)));
    if (warnings.size() > kShown)
        std::printf("… and %lld more warnings (hips report %lld --out FILE.json lists every one)\n",
                    static_cast<long long>(warnings.size() - kShown), static_cast<long long>(run));
}

// A setting's value as typed: a string bare, anything else as compact JSON.
static QString jsonText(const QJsonValue& v) {
    if (v.isString()) return v.toString();
    return QString::fromUtf8(QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact)).mid(1).chopped(1);  // "[v]" → v
}

// The run's topology in numbers and its training settings as key=value, wrapped for a terminal.
// "label: a=1 b=2 …", wrapped at 100 columns under the label; nothing for no items.
static void printWrapped(const QString& label, const QStringList& items) {
    if (items.isEmpty()) return;
    QString line = label;
    for (const QString& item : items) {
        if (line.size() + 1 + item.size() > 100 && line.size() > label.size()) {
            std::printf("%s\n", qPrintable(line));
            line = QString(label.size(), ' ');
        }
        line += ' ' + item;
    }
    std::printf("%s\n", qPrintable(line));
}

static void printSetup(const RunStore& store, qint64 run) {
    const TopologyLoad stored = TopologyReader::readJson(store.topologyJson(run));
    if (const std::optional<Topology>& t = stored.topology ? stored.topology : stored.draft) {
        QStringList shape;
        for (const auto& [key, value] : topologyShape(*t)) shape << QStringLiteral("%1 %2").arg(key).arg(value);
        std::printf("topology: %s\n", qPrintable(shape.join(QStringLiteral(", "))));
        // Each party's own settings (worker groups' slowdown, device, adversary; data; WAN), not
        // its ports and hosts: what compare sets side by side.
        QStringList own;
        for (const auto& [key, value] : topologySettings(*t))
            if (!key.startsWith(QLatin1String("hosts.")) && !key.endsWith(QLatin1String(".port")))
                own << QStringLiteral("%1=%2").arg(shown(key, 64), shown(value, 300));
        printWrapped(QStringLiteral("parties:"), own);
    }
    const QJsonObject settings = store.settings(run);
    QStringList items;
    for (auto it = settings.begin(); it != settings.end(); ++it)
        items << QStringLiteral("%1=%2").arg(shown(it.key(), 64), shown(jsonText(*it), 300));
    printWrapped(QStringLiteral("settings:"), items);
}

static int showRun(const RunStore& store, const QString& idText) {
    const auto r = findRun(store, idText);
    if (!r) return 2;
    const RunFacts f = store.facts(r->id);
    std::printf("run %lld: %s\nstatus: %s\nstarted: %s\n", static_cast<long long>(r->id), qPrintable(shown(r->name)),
                qPrintable(shown(r->status, 64)), qPrintable(startedText(r->started)));
    if (const QString reason = runReason(*r); !reason.isEmpty()) std::printf("reason: %s\n", qPrintable(shown(reason)));
    if (r->ended > 0) std::printf("duration: %.1f s\n", store.duration(*r));
    printSetup(store, r->id);
    if (!r->tags.isEmpty()) std::printf("tags: %s\n", qPrintable(shown(r->tags)));
    if (!r->notes.isEmpty()) std::printf("notes: %s\n", qPrintable(shown(r->notes)));
    const char* score = f.regression() ? "test RMSE" : "test accuracy";
    std::printf("rounds: %d\nbest %s: %s\nfinal %s: %s\nbytes across parties: %.1f MB\n", f.rounds, score, qPrintable(f.bestText()), score,
                qPrintable(f.finalText()), f.bytesAcross / 1e6);
    if (const QString privacy = privacyText(r->summary); !privacy.isEmpty()) std::printf("privacy: %s\n", qPrintable(privacy));
    if (const QString run_dir = r->summary.value("run_dir").toString(); !run_dir.isEmpty())
        std::printf("run directory: %s\n", qPrintable(shown(run_dir)));
    for (const QString& e : store.eventMessages(r->id, "simulated")) std::printf("simulated: %s\n", qPrintable(shown(e)));
    for (const QString& e : store.eventMessages(r->id, "device")) std::printf("device: %s\n", qPrintable(shown(e)));
    for (const QString& e : store.eventMessages(r->id, "data")) std::printf("data: %s\n", qPrintable(shown(e)));
    for (const QString& e : store.eventMessages(r->id, "classes")) std::printf("classes: %s\n", qPrintable(shown(e)));
    for (const QString& e : store.eventMessages(r->id, "sample")) std::printf("sample: %s\n", qPrintable(shown(e)));
    for (const QString& e : store.eventMessages(r->id, "fault")) std::printf("fault: %s\n", qPrintable(shown(e)));
    for (const QString& e : store.eventMessages(r->id, "error")) std::printf("error: %s\n", qPrintable(shown(e)));
    printWarnings(store.eventMessages(r->id, "warning"), r->id);
    if (const QString e = store.readError(); !e.isEmpty()) {
        std::fprintf(stderr, "hips history: %s; what is shown above may be incomplete\n", qPrintable(e));
        return 1;
    }
    return 0;
}

// Waits for the commit, saying once if another program holds the history locked meanwhile.
static bool waitForCommit(RunStore& store) {
    bool told = false;
    return store.flush([&] {
        if (const QString notice = store.lockedNotice(); !notice.isEmpty() && !std::exchange(told, true))
            std::fprintf(stderr, "hips %s\n", qPrintable(notice));
        return true;
    });
}

static int deleteRun(RunStore& store, const QString& idText) {
    const auto r = findRun(store, idText);
    if (!r) return 2;
    // (Its controller would fail its next record, and with it every later write of the history.)
    if (const auto pid = store.liveController(r->id)) {
        std::fprintf(stderr, "hips history: run %lld is under way (its controller, pid %lld, is running); stop it first\n",
                     static_cast<long long>(r->id), static_cast<long long>(*pid));
        return 2;
    }
    store.deleteRun(r->id);
    if (!waitForCommit(store)) {
        std::fprintf(stderr, "hips history: run %lld was not deleted: %s\n", static_cast<long long>(r->id), qPrintable(store.writeError()));
        return 1;
    }
    std::printf("deleted run %lld (%s)\n", static_cast<long long>(r->id), qPrintable(shown(r->name)));
    return 0;
}

// `rename RUN NAME`, `tag RUN TAG...` (stored comma-separated; "" clears them), `note RUN TEXT`:
// the labels the History tab edits in place.
static int relabelRun(RunStore& store, const QString& command, const QString& idText, const QStringList& words) {
    const auto r = findRun(store, idText);
    if (!r) return 2;
    QString name = r->name, tags = r->tags, notes = r->notes;
    if (command == QLatin1String("rename")) {
        name = words.join(' ').simplified();
        if (name.isEmpty()) {
            std::fprintf(stderr, "hips history: a run's name cannot be empty; give one, e.g. `hips history rename %lld baseline`\n",
                         static_cast<long long>(r->id));
            return 2;
        }
    } else if (command == QLatin1String("tag")) {
        QStringList each;
        for (const QString& w : words)
            for (const QString& t : w.split(',', Qt::SkipEmptyParts))
                if (const QString tag = t.simplified(); !tag.isEmpty() && !each.contains(tag)) each << tag;
        tags = each.join(QStringLiteral(", "));
    } else {
        notes = words.join(' ').trimmed();
    }
    store.setRunLabels(r->id, name, tags, notes);
    if (!waitForCommit(store)) {
        std::fprintf(stderr, "hips history: run %lld was not changed: %s\n", static_cast<long long>(r->id), qPrintable(store.writeError()));
        return 1;
    }
    std::printf("run %lld: name '%s', tags '%s', notes '%s'\n", static_cast<long long>(r->id), qPrintable(shown(name)),
                qPrintable(shown(tags)), qPrintable(shown(notes, 60)));
    return 0;
}

static const char kUsage[] =
    "usage: hips history list [TEXT] | show RUN | delete RUN | rename RUN NAME | tag RUN TAG... | note RUN TEXT"
    "  [--history PATH]\n";

// What is wrong with a history command line that is not one of the usage's forms.
static QString misuse(const QString& command) {
    if (command.isEmpty()) return QStringLiteral("which sub-command?");
    if (command == QLatin1String("list"))
        return QStringLiteral("list takes at most one TEXT (quote several words: hips history list \"two words\")");
    if (command == QLatin1String("show") || command == QLatin1String("delete"))
        return QStringLiteral("%1 takes one RUN, its id from hips history list").arg(command);
    if (command == QLatin1String("rename")) return QStringLiteral("rename takes a RUN and its new NAME");
    if (command == QLatin1String("tag")) return QStringLiteral("tag takes a RUN and its TAGs (\"\" clears them)");
    if (command == QLatin1String("note")) return QStringLiteral("note takes a RUN and the TEXT of its note");
    return QStringLiteral("'%1' is not a sub-command").arg(command);
}

int historyCommand(const QStringList& arguments) {
    QCommandLineParser args;
    args.setApplicationDescription(
        "The run history. Sub-commands: list [TEXT] (the runs whose id, name, status, reason, tags or notes contain "
        "TEXT), show RUN, delete RUN, rename RUN NAME, tag RUN TAG... (\"\" clears the tags), note RUN TEXT.");
    args.addPositionalArgument("command", "list [TEXT] | show RUN | delete RUN | rename RUN NAME | tag RUN TAG... | note RUN TEXT",
                               "COMMAND [ARGUMENTS]");
    args.addOption({"history", "History file (default: the user's application data directory).", "PATH", RunStore::defaultPath()});
    args.addHelpOption();
    processCommand(args, arguments, QStringLiteral("hips history"));
    const QStringList words = args.positionalArguments();
    const QString command = words.value(0);
    const bool relabels = QStringList{"rename", "tag", "note"}.contains(command);
    const bool valid = (command == QLatin1String("list") && words.size() <= 2) ||
                       ((command == QLatin1String("show") || command == QLatin1String("delete")) && words.size() == 2) ||
                       (relabels && words.size() >= 3);
    if (!valid) {
        std::fprintf(stderr, "hips history: %s\n", qPrintable(misuse(command)));
        std::fprintf(stderr, "%s", kUsage);
        return 2;
    }
    const QString path = args.value("history");
    if (command == QLatin1String("list") && !QFileInfo::exists(path)) {
        std::printf("no runs yet (there is no history at %s)\n", qPrintable(path));
        return 0;
    }
    // Looking never writes (a history on a read-only mount or in a 0444 file can be read); only
    // delete and the labels open it for writing.
    const bool writes = command == QLatin1String("delete") || relabels;
    if (!QFileInfo::exists(path)) {  // (opened for writing, a mistyped path became a new, empty history)
        std::fprintf(stderr, "hips history: there is no history at %s (--history PATH names it)\n", qPrintable(path));
        return 2;
    }
    QString error;
    const auto store = RunStore::open(path, &error, writes ? RunStore::ReadWrite : RunStore::ReadOnly);
    if (!store) {
        std::fprintf(stderr, "hips history: %s\n", qPrintable(error));
        return 2;
    }
    if (command == QLatin1String("show")) return showRun(*store, words[1]);
    if (command == QLatin1String("delete")) return deleteRun(*store, words[1]);
    if (relabels) return relabelRun(*store, command, words[1], words.mid(2));
    return listRuns(*store, words.value(1).trimmed());
}

}  // namespace hips
