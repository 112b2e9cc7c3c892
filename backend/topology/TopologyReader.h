#pragma once
// Reads a topology JSON document (format "hips-topology", version 1) and validates it.
// Every problem is reported with its JSON path; nothing is silently defaulted that the
// file got wrong. The format is documented in docs/topology.md ("Topology files"). Files are untrusted:
// size, ids, addresses and counts are bounded (TopologyLimits.h) and checked before anything is
// expanded, repeated keys are refused, and every message is escaped (PrintableText.h).
#include "Topology.h"
#include "TopologyIssue.h"

#include <QByteArray>
#include <optional>

namespace hips {

struct TopologyLoad {
    std::optional<Topology> topology;  // set only when issues is empty
    std::optional<Topology> draft;  // set when well-formed, even with semantic issues (the designer opens it)
    TopologyIssues issues;
    QString source;  // file name, for messages

    bool ok() const { return topology.has_value(); }
    QString errorText() const;  // one line per issue, prefixed by the source
};

class TopologyReader {
public:
    static TopologyLoad readFile(const QString& path);
    static TopologyLoad readJson(const QByteArray& json, const QString& source = QStringLiteral("<topology>"));
    // Semantic checks on a topology built in memory (the designer uses this too).
    // Also enforces the limits of TopologyLimits.h and the field rules of FieldRules.h.
    static TopologyIssues validate(const Topology& topology);

private:
    // Size, UTF-8, syntax, duplicate keys, structure, then validate(); draft set when well-formed.
    static TopologyIssues readDocument(const QByteArray& json, std::optional<Topology>* draft);
    // validate() before its issues are escaped and counted.
    static TopologyIssues checkTopology(const Topology& topology);
};

}  // namespace hips
