// hips-studio: the desktop control center.
//   hips-studio [TOPOLOGY] [--history PATH] [--language zh_CN|en]
//   hips-studio [TOPOLOGY] --screenshot FILE.png [--tab design|run|charts|history] [--show-run ID]
// --screenshot writes a PNG of the main window once it is laid out, and exits; with --show-run,
// the Charts tab shows that stored run (and --tab picks which tab the picture shows).
#include "HistoryPanel.h"
#include "MainWindow.h"
#include "PrivateFiles.h"
#include "StudioSettings.h"
#include "Versions.h"

#include <QApplication>
#include <QBuffer>
#include <QCommandLineParser>
#include <QSettings>
#include <QTemporaryDir>
#include <QTimer>
#include <cstdio>
#include <sys/stat.h>
#include <functional>
#include <memory>
#include <string>

// Without a display Qt aborts with a message about platform plugins. Help, the version and a
// screenshot need none (they run offscreen); a window does, and then the user is told what to use.
static bool haveDisplayFor(int argc, char** argv) {
    for (const char* name : {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"})
        if (!qEnvironmentVariableIsEmpty(name)) return true;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "-h" || a == "--help" || a == "--help-all" || a == "-v" || a == "--version" || a.rfind("--screenshot", 0) == 0) {
            qputenv("QT_QPA_PLATFORM", "offscreen");
            return true;
        }
    }
    std::fprintf(stderr,
                 "hips-studio: there is no display to open a window on (DISPLAY and WAYLAND_DISPLAY are not "
                 "set). Start it on a desktop or over `ssh -X`; on this machine the `hips` command does the "
                 "same work: hips run, hips history, hips report (hips --help).\n");
    return false;
}

int main(int argc, char** argv) {
    ::umask(077);  // the history, run directories and checkpoints are for this user only
    if (!haveDisplayFor(argc, argv)) return 2;
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("hips-studio"));
    QApplication::setOrganizationName(QStringLiteral("hips-studio"));
    QApplication::setApplicationVersion(QStringLiteral(HIPS_VERSION));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/hips.svg")));

    QCommandLineParser args;
    args.setApplicationDescription(QStringLiteral("HiPS Studio: design, run and watch two-layer parameter-server training."));
    args.addPositionalArgument(QStringLiteral("TOPOLOGY"), QStringLiteral("Topology file (default: the shipped default)."));
    args.addOption({"history", "Run history file (default: the user's application data directory).", "PATH"});
    args.addOption({"language", "Interface language: en or zh_CN (default: the last one chosen).", "LOCALE"});
    args.addOption({"screenshot", "Write a PNG of the window and exit.", "FILE"});
    args.addOption({"tab", "Tab to show: design, run, charts, history.", "TAB", "design"});
    args.addOption({"show-run", "Show this stored run in the Charts tab.", "ID"});
    args.addOption({"select-runs",
                    "Select these stored runs in the History tab (comma-separated ids; two or "
                    "more: the compare view).",
                    "IDS"});
    args.addHelpOption();
    args.addVersionOption();
    args.process(app);

    const QString language = args.isSet("language") ? args.value("language") : hips::StudioSettings::language();
    if (!hips::versions::installTranslation(language))
        std::fprintf(stderr, "hips-studio: no translation for '%s'; using English\n", qPrintable(language));

    // A picture for the docs leaves the user's settings (window, tab, recent files) as they were.
    QTemporaryDir scratchSettings;
    if (args.isSet("screenshot")) QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, scratchSettings.path());

    auto window = std::make_unique<hips::MainWindow>(args.value("history"));
    if (!window->historyError().isEmpty())
        std::fprintf(stderr, "hips-studio: the run history is unavailable: %s\n", qPrintable(window->historyError()));
    const QStringList files = args.positionalArguments();
    if (files.isEmpty()) window->openDefaultTopology();
    else if (!args.isSet("screenshot")) window->openTopology(files.first());
    else if (QString error; !window->openTopology(files.first(), &error)) {
        std::fprintf(stderr, "hips-studio: %s\n", qPrintable(error));  // it names the file
        return 2;
    }

    const QStringList tabs = {"design", "run", "charts", "history"};
    const int tab = int(tabs.indexOf(args.value("tab")));
    if (tab < 0) {
        std::fprintf(stderr, "hips-studio: --tab must be one of %s\n", qPrintable(tabs.join(", ")));
        return 2;
    }
    if (args.isSet("show-run") && !window->showStoredRun(args.value("show-run").toLongLong())) {
        std::fprintf(stderr, "hips-studio: no run '%s' in the history\n", qPrintable(args.value("show-run")));
        return 2;
    }
    if (args.isSet("select-runs")) {
        QList<qint64> ids;
        for (const QString& id : args.value("select-runs").split(',', Qt::SkipEmptyParts)) ids << id.trimmed().toLongLong();
        window->history()->selectRuns(ids);
    }
    window->setTab(hips::MainWindow::Tab(tab));
    if (args.isSet("screenshot")) window->resize(1500, 900);
    window->show();
    if (!args.isSet("screenshot")) {
        // A language switch builds the window anew in that language; the old one hands over.
        std::function<void(const QString&)> switchLanguage = [&](const QString& locale) {
            hips::versions::installTranslation(locale);
            auto next = std::make_unique<hips::MainWindow>(args.value("history"));
            next->adoptFrom(*window);
            QObject::connect(next.get(), &hips::MainWindow::languageChangeRequested, &app, switchLanguage, Qt::QueuedConnection);
            next->show();
            window.release()->deleteLater();  // we are inside one of its signals
            window = std::move(next);
        };
        QObject::connect(window.get(), &hips::MainWindow::languageChangeRequested, &app, switchLanguage, Qt::QueuedConnection);
        return app.exec();
    }

    // Let the layouts, the fit-to-view and the charts settle, then take the picture.
    const QString file = args.value("screenshot");
    int status = 1;
    QTimer::singleShot(600, window.get(), [&] {
        QByteArray png;
        QBuffer buffer(&png);
        buffer.open(QIODevice::WriteOnly);
        const QString error =
            window->grab().save(&buffer, "PNG") ? hips::writeUserFile(file, png) : QStringLiteral("cannot draw the window");
        status = error.isEmpty() ? 0 : 1;
        if (status) std::fprintf(stderr, "hips-studio: %s\n", qPrintable(error));
        app.quit();
    });
    app.exec();
    return status;
}
