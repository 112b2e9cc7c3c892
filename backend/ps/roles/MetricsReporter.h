#pragma once
// Role processes report metrics as one JSON object per line on stdout, prefixed with
// "@metric ". The agent captures stdout, forwards these lines to the controller, and
// keeps every other line as log text.
#include <QCborMap>
#include <QString>
#include <functional>
#include <vector>

namespace hips {

class MetricsReporter {
public:
    static constexpr const char* kPrefix = "@metric ";

    explicit MetricsReporter(QString node);
    // Writes {"kind": kind, "node": ..., "t": unix seconds, ...fields}. A traffic report (every
    // role's, each round) is followed by the process's usage: its CPU since the last one and its
    // memory now (at most one a second), so that the history holds each process's over time. (A
    // worker that is a thread of a shared trainer counts its own thread's CPU, and the shared
    // process's memory.)
    void report(const QString& kind, QCborMap fields) const;
    // hips simulate: records stamped with the virtual clock (unix seconds) instead of the wall's,
    // and with or without the process's usage (one process plays every node: one of them says it).
    void setClock(std::function<double()> unixSeconds, bool reportsUsage) {
        m_clock = std::move(unixSeconds);
        m_reportsUsage = reportsUsage;
    }

private:
    void reportUsage(const QCborValue& round) const;

    QString m_node;
    QString m_instance;  // this process's of the node (traffic records say it: Vocabulary.h's kProcessInstance)
    std::function<double()> m_clock;  // empty: the wall clock
    bool m_reportsUsage = true;
    // The last usage report's clock (steady, s) and CPU time (s): what the next one counts from.
    mutable double m_usageWall = -1, m_usageCpu = 0;
};

class Channel;
// A channel's traffic (one row per peer and tier), wire errors and undeliverable sends, and
// those of a second channel when given, as the fields of a "traffic" metric.
QCborMap trafficFields(const Channel& a, const Channel* b = nullptr);
QCborMap trafficFields(const std::vector<const Channel*>& channels);
// `links` with one row per peer: a node may reach a peer on several channels (a collective's
// router and its dealer to that peer, a sealed plane beside them), whose counts add up. The
// history and the controller's carry keep one row per node and peer.
QCborArray linksByPeer(const QCborArray& links);
// A trainer's names of its data, into its startup record: each label's (class_names) and each
// feature column's (feature_names), where its source names them. The controller compares them
// across the parties (LabelSpaceCheck).
void insertDataNames(QCborMap& startup, const QStringList& classNames, const QStringList& featureNames);

}  // namespace hips
