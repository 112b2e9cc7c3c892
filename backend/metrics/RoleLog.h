#pragma once
// A metric record as a line of its role's log: what runs/<run>/logs/<party>-<role>.log and the
// Run tab's log pane show of a role that prints nothing itself (its start, each round it trained,
// aggregated or evaluated). Empty for the records too frequent or too detailed for a log
// (traffic counters, each asynchronous push) and for kinds the role already writes to stderr.
#include <QJsonObject>
#include <QString>

namespace hips::metric {

QString roleLogLine(const QJsonObject& record);

}  // namespace hips::metric
