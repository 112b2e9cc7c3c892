#pragma once
// `hips history list | show RUN | delete RUN [--history PATH]`: the runs kept in the run history.
#include <QStringList>

namespace hips {

int historyCommand(const QStringList& arguments);

}  // namespace hips
