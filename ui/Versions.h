#pragma once
// Versions of the libraries HiPS Studio runs on, for the About box and bug reports.
#include <QString>

namespace hips::versions {

QString qt();  // the Qt the program runs with (and was built against, when they differ)
QString libtorch();  // as found at build time (the GUI itself does not load LibTorch)
QString zeromq();
QString libssh();
QString sqlite();

// Installs the translation for `locale` ("zh_CN"; "en" needs none) before widgets are built.
// Returns false when there is none for it.
bool installTranslation(const QString& locale);

}  // namespace hips::versions
