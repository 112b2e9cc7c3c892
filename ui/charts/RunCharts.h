#pragma once
// The live charts of a run: test accuracy, loss, traffic per tier (cumulative or rate),
// throughput and computing-time ratio, with one row of controls for all of them.
#include "LiveChart.h"
#include "WorkerTimeline.h"

#include <QHash>
#include <QMap>
#include <QSet>
#include <limits>
#include <QJsonObject>
#include "PrivacyBudget.h"
#include "RunProgress.h"
#include "Topology.h"

class QComboBox;
class QSlider;
class QCheckBox;

namespace hips {

class RunCharts : public QWidget {
    Q_OBJECT
public:
    explicit RunCharts(QWidget* parent = nullptr);

    void clear();  // a new run
    // The run's topology, after clear(): each worker keeps one colour in every chart, live or
    // stored (the topology's order, not the order its records came in), and a mode without
    // stale pushes says so on the staleness chart.
    void setTopology(const Topology& topology);
    // The run's traffic as its summary, the history and the report count it: every byte its
    // servers sent, to its end (the last round's row counts what was sent by its aggregation).
    void setRunTraffic(quint64 inside, quint64 across);
    void addRound(const RoundRow& row, double wallMs);
    // A role's metric record as it came: a worker's local steps in a round (ESync: as many as fit
    // in the slowest device's one), the staleness of a push applied as it came.
    void addRecord(const QJsonObject& record, double wallMs, double elapsed);
    void setLive(bool live);  // a run is under way
    // The run ended: one that ended before its first round says so here (and why, when it failed),
    // instead of "under way". `runDir`: a stored run's directory, where its processes' logs are
    // (empty: the run just ended, and the Run tab shows them).
    void setEnded(bool failed, const QString& reason, const QString& runDir = {});
    void setRefused(const QString& reason);  // an attach or a resume that did not start
    QString factsText() const;
    // The standalone baseline's accuracy (a `local` run of the history) as a dashed reference line,
    // so that every run shows what no distribution gives.
    // The baseline's evaluations at its own times (its wall clock, the time since its start), as
    // a comparison's are drawn: the time axes put them where that run had them.
    struct LocalReferencePoint {
        double round = 0, wallMs = 0, elapsed = 0, accuracy = 0;
    };
    void setLocalReference(const QString& name, const QList<LocalReferencePoint>& points);
    // Another run's rounds over this one's, dashed, on every chart of rounds (accuracy, loss,
    // traffic across parties, throughput, ratio), labelled `name`: runs compared on any x axis.
    void addComparison(const QString& name, const QList<RoundRow>& rows, const QList<double>& wallMs);
    int comparisonCount() const { return int(m_comparisons.size()); }
    LiveChart* accuracy() const { return m_accuracy; }
    LiveChart* loss() const { return m_loss; }
    LiveChart* traffic() const { return m_traffic; }
    LiveChart* throughput() const { return m_throughput; }
    LiveChart* computeRatio() const { return m_ratio; }
    LiveChart* localSteps() const { return m_steps; }
    LiveChart* staleness() const { return m_staleness; }
    WorkerTimeline* timeline() const { return m_timeline; }
    LiveChart* cpu() const { return m_cpu; }
    LiveChart* memory() const { return m_memory; }
    LiveChart* partyAcross() const { return m_partyAcross; }
    // Above this many workers the charts of each worker or process draw a line per party (its
    // workers' mean local steps, its processes' summed CPU and memory, its pushes' staleness)
    // and the timeline a bar per party, until "Every worker" asks for a line each.
    static constexpr int kWorkerLinesMax = 16;
    void setEveryWorker(bool every);
    bool everyWorker() const { return m_everyWorker; }
    QList<LiveChart*> charts() const {
        return {m_accuracy, m_loss, m_traffic, m_throughput, m_ratio, m_steps, m_staleness, m_cpu, m_memory, m_partyAcross};
    }

private:
    void applyTrafficMode();
    void applySmoothing();

    int lineOf(LiveChart* chart, QHash<QString, int>& lines, const QString& node);
    void showFacts();
    // Each process's and each party's (RunChartsPerNode.cpp).
    void clearPerNode();
    void addPerNodeRecord(const QJsonObject& record, double wallMs, double elapsed);
    QString partyFactsHtml() const;
    QString privacyFactHtml(const RoundRow& row) const;
    std::optional<PrivacySettings> m_privacy;  // settled: ε by round in the facts
    // The run with its privacy settled: ε under client sampling counts each worker's draws.
    mutable std::optional<DrawTally> m_draws;
    bool m_secureAggregation = false;

    void showRmse();  // a regression's run: the accuracy chart charts its test RMSE
    bool m_rmse = false;
    int m_top5Line = -1;  // the accuracy chart's top-5 line, added with the first round that has one
    QHash<QString, int> m_heldOutLines;  // a party's own held-out accuracy, by the node that reports it
    LiveChart *m_accuracy, *m_loss, *m_traffic, *m_throughput, *m_ratio, *m_steps, *m_staleness;
    LiveChart *m_cpu, *m_memory, *m_partyAcross;
    WorkerTimeline* m_timeline;
    QHash<QString, int> m_partyAcrossLines;  // a line per party
    QHash<QString, quint64> m_acrossByNode;  // bytes each node has sent across parties so far
    struct PartyFacts {
        QSet<QString> workers;
        QHash<QString, qint64> shards;  // samples of each part of the data its workers hold
        qint64 trained = 0;  // samples, over the rounds
        quint64 across = 0;  // bytes sent across parties
        double heldOut = std::numeric_limits<double>::quiet_NaN();  // its own test's last score
    };
    QMap<QString, PartyFacts> m_parties;
    struct Comparison {
        QString name;
        QList<RoundRow> rows;
        QList<double> wallMs;
    };
    QList<Comparison> m_comparisons;
    void drawComparisonTraffic(const Comparison& c, int index);
    // The charts of each worker or process (local steps, staleness, CPU, memory): their points
    // kept, so that ticking "Every worker" redraws them a line per worker instead of per party.
    struct NodePoint {
        LiveChart* chart;
        QString node;
        double x, wallMs, elapsed, value;  // x: a staleness point's is counted as it is drawn
    };
    struct PartyPoint {  // a party's newest point on one chart, and what it aggregates
        int line = -1;
        double x = 0;
        // Each of its workers' values at x (local steps, staleness), or each of its processes' newest (CPU, memory).
        QHash<QString, double> latest;
    };
    void plotNodePoint(const NodePoint& point);
    void applyEveryWorker();
    QVector<NodePoint> m_nodePoints;
    QHash<LiveChart*, QHash<QString, int>> m_nodeLines;  // a line per worker or process, by chart
    QHash<LiveChart*, QHash<QString, PartyPoint>> m_partyPoints;  // a line per party, by chart
    QHash<QString, int> m_pushes;  // pushes drawn so far, per worker (or per party)
    QHash<QString, int> m_partyColourOf;  // party → its colour's index, the same in every chart
    bool m_everyWorker = true;
    QCheckBox* m_everyWorkerBox;
    QComboBox* m_xAxis;
    QComboBox* m_trafficMode;
    QSlider* m_smoothing;
    QCheckBox* m_logLoss;
    class QLabel* m_facts;  // the latest figures, in words
    QList<RoundRow> m_rows;  // kept to switch traffic between cumulative and rate
    QList<double> m_wall;
    QHash<QString, int> m_colourOf;  // worker → its colour's index, the same in every chart
    std::optional<std::pair<quint64, quint64>> m_runTraffic;  // inside, across: once the run has ended
    class QLabel* m_smoothingValue;
    int m_inside = 0, m_across = 0;
};

}  // namespace hips
