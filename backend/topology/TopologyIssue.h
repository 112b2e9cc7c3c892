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

// What the reader and the validator hand out: every path and message escaped with printableText
// (ids and keys from a file may hold NUL, newlines or bidi controls), each cut to a readable
// length, and at most kMaxIssues issues, the rest counted in a last one.
TopologyIssues presentableIssues(TopologyIssues issues);

}  // namespace hips
