#include "Versions.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QTranslator>
#include <memory>
#include <libssh/libssh.h>
#include <sqlite3.h>
#include <zmq.h>

namespace hips::versions {

QString qt() {
    const QString running = QString::fromLatin1(qVersion());
    return running == QLatin1String(QT_VERSION_STR) ? running
                                                    : QStringLiteral("%1 (built with %2)").arg(running, QLatin1String(QT_VERSION_STR));
}

QString libtorch() {
    return QStringLiteral(HIPS_TORCH_VERSION);
}

QString zeromq() {
    int major = 0, minor = 0, patch = 0;
    zmq_version(&major, &minor, &patch);
    return QStringLiteral("%1.%2.%3").arg(major).arg(minor).arg(patch);
}

QString libssh() {
    return QString::fromLatin1(ssh_version(0));
}

QString sqlite() {
    return QString::fromLatin1(sqlite3_libversion());
}

bool installTranslation(const QString& locale) {
    // The ones installed before go first: switching back to English must leave only its plurals.
    static QTranslator* ours = nullptr;
    static QTranslator* qts = nullptr;
    for (QTranslator** t : {&ours, &qts}) {
        if (!*t) continue;
        QCoreApplication::removeTranslator(*t);
        delete *t;
        *t = nullptr;
    }
    auto translator = std::make_unique<QTranslator>();  // English: its plural forms only
    if (!translator->load(QStringLiteral(":/i18n/hips_%1.qm").arg(locale))) return false;
    ours = translator.release();
    QCoreApplication::installTranslator(ours);
    if (locale == QLatin1String("en")) return true;
    auto qtTranslator = std::make_unique<QTranslator>();  // Qt's own dialogs and buttons
    if (qtTranslator->load(QStringLiteral("qtbase_%1").arg(locale), QLibraryInfo::path(QLibraryInfo::TranslationsPath))) {
        qts = qtTranslator.release();
        QCoreApplication::installTranslator(qts);
    }
    return true;
}

}  // namespace hips::versions
