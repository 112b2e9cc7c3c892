#pragma once
// QJsonDocument keeps the last of two equal keys in an object and says nothing, so a topology
// could show one value to a reviewer and run another. This scan finds every repeated key.
#include <QByteArray>

#include "TopologyIssue.h"

namespace hips {

// One issue per repeated key, at the path of the key ("$.parties[1].roles.servers[0].port"), the
// message naming its line and the line of the first occurrence. `json` must already have parsed
// without error (the scan does not diagnose syntax, but never reads out of bounds on bad input).
// Keys are compared after decoding escapes, so "port" and "p\u006frt" are the same key.
TopologyIssues duplicateKeyIssues(const QByteArray& json);

}  // namespace hips
