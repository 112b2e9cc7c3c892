#pragma once
#include <QList>
#include <QString>

namespace hips {

// One problem found in a topology file: where it is (a JSON path such as
// "$.parties[1].roles.servers[0].port") and what is wrong and what to do.
struct TopologyIssue {
    QString path;
    QString message;

    QString toString() const { return path + QStringLiteral(": ") + message; }
};

using TopologyIssues = QList<TopologyIssue>;

}  // namespace hips
