#pragma once
// `hips check-data TOPOLOGY`: what each party's own data holds, read on its own hosts.
#include <QStringList>

namespace hips {

int checkDataCommand(const QStringList& arguments);

}  // namespace hips
