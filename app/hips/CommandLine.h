#pragma once
// Parses a sub-command's arguments as QCommandLineParser::process() does, but names the
// sub-command: process() prints "Usage: build/bin/hips [options] RUN" (the executable as typed,
// without "report") and "hips: Unknown option 'x'." (without which command refused it).
#include <QCommandLineParser>
#include <cstdio>
#include <cstdlib>

namespace hips {

inline void processCommand(QCommandLineParser& args, const QStringList& arguments, const QString& command) {
    if (!args.parse(arguments)) {
        QString error = args.errorText();
        if (error.endsWith(QLatin1Char('.'))) error.chop(1);
        std::fprintf(stderr, "%s: %s; see %s --help\n", qPrintable(command), qPrintable(error), qPrintable(command));
        std::exit(2);
    }
    if (args.isSet(QStringLiteral("help-all"))) args.process(arguments);  // Qt's options too: Qt prints them, and exits
    if (args.isSet(QStringLiteral("help"))) {
        QString text = args.helpText();
        const QString typed = arguments.value(0);
        const qsizetype at = typed.isEmpty() ? -1 : text.indexOf(typed);
        if (at >= 0) text.replace(at, typed.size(), command);
        std::fputs(qPrintable(text), stdout);
        std::exit(0);
    }
}

}  // namespace hips
