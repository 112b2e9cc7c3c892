#include "Versions.h"

#include <QCoreApplication>
#include <QLibraryInfo>
#include <QTranslator>
#include <libssh/libssh.h>
#include <sqlite3.h>
#include <zmq.h>

namespace hips::versions {

QString qt() {
    const QString running = QString::fromLatin1(qVersion());
    return running == QLatin1String(QT_VERSION_STR) ? running
                                                    : QStringLiteral("%1 (built with %2)").arg(running, QLatin1String(QT_VERSION_STR));
}

QString libtorch() { return QStringLiteral(HIPS_TORCH_VERSION); }

QString zeromq() {
    int major = 0, minor = 0, patch = 0;
    zmq_version(&major, &minor, &patch);
    return QStringLiteral("%1.%2.%3").arg(major).arg(minor).arg(patch);
}

QString libssh() { return QString::fromLatin1(ssh_version(0)); }

QString sqlite() { return QString::fromLatin1(sqlite3_libversion()); }

bool installTranslation(const QString& locale) {
    if (locale == QLatin1String("en")) return true;
    auto* translator = new QTranslator(QCoreApplication::instance());
    if (!translator->load(QStringLiteral(":/i18n/hips_%1.qm").arg(locale))) {
        delete translator;
        return false;
    }
    QCoreApplication::installTranslator(translator);
    auto* qtTranslator = new QTranslator(QCoreApplication::instance());  // Qt's own dialogs and buttons
    if (qtTranslator->load(QStringLiteral("qtbase_%1").arg(locale), QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        QCoreApplication::installTranslator(qtTranslator);
    else
        delete qtTranslator;
    return true;
}

}  // namespace hips::versions
