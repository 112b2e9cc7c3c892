#pragma once
// The metric records the roles report ("@metric {"kind": ..., fields}", as the controller passes
// them on and the run directory keeps them), read into types: the charts, the progress table and
// the report read these and never spell a field. Each `from` returns nothing for a record of
// another kind, and reads a missing or malformed field as absent, never as a crash: the records
// come from role processes and files that may be damaged.
#include "Vocabulary.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <optional>

namespace hips::metric {

// A worker's round (kind train): where its time went, and its loss.
struct TrainRecord {
    QString node;
    int round = -1;
    double loss = 0;  // NaN for a null loss (a diverged worker): never a 0
    qint64 samples = 0;
    double computeSeconds = 0, commSeconds = 0;
    double waitSeconds = 0;  // the part of commSeconds spent waiting for the answer, within [0, comm]
    std::optional<double> localSteps;  // where the mode reports them (ESync, FedAvg's local steps)

    static std::optional<TrainRecord> from(const QJsonObject& record);
};

// A test score: the master's (kind eval) or a party's on its own held-out rows (party_eval).
struct ScoreRecord {
    QString node;
    QLatin1String kind;  // kEval or kPartyEval
    int round = -1;
    bool rmse = false;  // a regression's RMSE (lower is better), else an accuracy in [0, 1]
    double score = 0;
    std::optional<double> loss;

    static std::optional<ScoreRecord> from(const QJsonObject& record);
};

// A push an asynchronous server applied as it came (kind async_push).
struct AsyncPushRecord {
    QString origin = QStringLiteral("?");  // the worker whose push it was
    double staleness = 0;

    static std::optional<AsyncPushRecord> from(const QJsonObject& record);
};

// A role process's CPU (100 = one core, since its last report) and memory (kind usage).
struct UsageRecord {
    QString node;
    int round = -1;  // of the traffic report it came with
    double cpuPercent = 0;
    std::optional<qint64> rssBytes;

    static std::optional<UsageRecord> from(const QJsonObject& record);
};

// A node's traffic so far (kind traffic), one entry per link.
struct LinkTraffic {
    QString peer;
    bool across = false;  // between parties (the WAN tier), else within one
    quint64 sent = 0, received = 0;
};
struct TrafficRecord {
    QString node;
    int round = -1;
    QList<LinkTraffic> links;
    quint64 sent(bool across) const;  // bytes sent on the links of one tier

    static std::optional<TrafficRecord> from(const QJsonObject& record);
};

}  // namespace hips::metric
