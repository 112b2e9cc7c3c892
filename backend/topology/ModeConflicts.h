#pragma once
// What a mode's traits rule out among the other training settings, as one table over the traits
// (ModePolicy): a new mode is checked by the rows its traits meet, with no line of its own, and
// every "use instead" names the modes the registry says fit.
#include "Topology.h"
#include "TopologyIssue.h"

#include <QMap>

namespace hips {

void checkModeConflicts(const TrainingSettings& s, TopologyIssues* issues);

// The training settings the mode (with the hierarchy) leaves without effect, by key ("compression"),
// each with why: the designer greys them out. A setting the mode refuses is never among them, so
// that the field that has to change stays editable.
QMap<QString, QString> settingsIgnoredByMode(const TrainingSettings& s);

}  // namespace hips
