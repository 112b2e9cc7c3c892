#pragma once
// ESync's figure: where each worker's time went in a round, as one horizontal bar per worker:
// computing, communicating (writing and sending its push, receiving the model) and waiting (for
// the others and the servers: from its push to the first slice of the answer). Shows the newest
// round every worker has reported (`train` records: compute_s, comm_s, wait_s).
#include <QChartView>
#include <QJsonObject>
#include <QMap>

class QBarSet;
class QHorizontalStackedBarSeries;
class QBarCategoryAxis;
class QValueAxis;

namespace hips {

// Names with their numbers in numeric order ("party2" before "party10"), as a topology lists them.
QStringList inNaturalOrder(QStringList names);

class WorkerTimeline : public QChartView {
    Q_OBJECT
public:
    explicit WorkerTimeline(QWidget* parent = nullptr);
    void clear();
    // Takes a worker's round; the chart shows the newest complete round at the next event-loop
    // turn (a stored run of thousands of rounds redraws once), or at redrawNow().
    void addRecord(const QJsonObject& record);
    void redrawNow();
    // A bar per party (the mean of its workers' seconds) instead of one per worker: a run of
    // hundreds of workers. The CSV export keeps a row per worker.
    void setPerParty(bool perParty);
    int shownRound() const { return m_shown; }  // 0: none yet
    // Seconds shown for `worker` ("party1/worker0") in the shown round: compute, communication, waiting.
    QList<double> shownSeconds(const QString& worker) const;
    QString savePng(const QString& path);  // the chart as drawn; what went wrong, or nothing
    QString saveCsv(const QString& path) const;  // the shown round: worker, compute_s, comm_s, wait_s

private:
    struct Split {
        double compute = 0, communication = 0, waiting = 0;
    };
    void show(int round);
    // Whether every worker counted now has reported `round`.
    bool complete(int round) const;
    // A worker declared down, or gone from the run (a membership record): the rounds after it are
    // complete without it, until it reports again.
    void forget(const QString& worker);
    void trimAndRedraw();

    QMap<int, QMap<QString, Split>> m_rounds;  // round → worker → split
    QMap<QString, int> m_workers;  // every worker seen (drawn in natural order: worker2 before worker10)
    int m_shown = 0;
    bool m_perParty = false;
    int m_complete = 0;  // the newest round every worker counted has reported
    bool m_redrawQueued = false;
    QHorizontalStackedBarSeries* m_series;
    QBarSet *m_compute, *m_communication, *m_waiting;
    QBarCategoryAxis* m_names;
    QValueAxis* m_seconds;
};

}  // namespace hips
