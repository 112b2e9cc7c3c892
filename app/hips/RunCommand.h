#pragma once
// `hips run [TOPOLOGY] [options]`: runs a topology to the end, printing one line per round
// and a summary; exit status 0 on success, 1 when the run failed, 2 on bad input,
// 128+N when stopped by signal N.
#include <QStringList>

namespace hips {

int runCommand(const QStringList& arguments);
// hips simulate: hips run's options, the run on a virtual clock in one process (Simulation.h).
int simulateCommand(const QStringList& arguments);
// `hips attach RUN`: takes up a run whose controller went away, and follows it like hips run.
int attachCommand(const QStringList& arguments);
int validateCommand(const QStringList& arguments);

}  // namespace hips
