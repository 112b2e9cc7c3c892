#pragma once
// The processes of the current run: party, host, role, rank, state, pid, uptime, CPU and
// memory, and how long since the process was last heard from. CPU and memory are what a role
// process reports of itself with its traffic (usage records: local or remote alike); for the
// others (schedulers, state services) they are read from /proc when their host is this machine.
// A process that runs several roles (hips simulate runs them all in one) shows its CPU and memory
// on its first row; processes are told apart by host and pid (two hosts' pids may be the same).
#include "RunController.h"

#include <QAbstractTableModel>
#include <QElapsedTimer>
#include <QSet>
#include <QTimer>
#include <optional>

namespace hips {

class ProcessTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Party, Host, Role, Rank, State, Pid, Uptime, Cpu, Memory, LastSeen, ColumnCount };

    explicit ProcessTableModel(QObject* parent = nullptr);

    // A new run: every node, pending. `remoteHosts`: those that are not this machine.
    void reset(const QList<Node>& nodes, const QSet<QString>& remoteHosts = {});
    void update(const ProcessInfo& process);
    void noteActivity(const QString& node);
    void noteUsage(const QJsonObject& record);  // a usage record: the process's own figures
    // The host could not be deployed: its processes never start; each says why, in red.
    void markHostFailed(const QString& host, const QString& error);
    void markNotStarted(const QString& reason);  // a refused start: no row keeps waiting
    QString nodeAt(int row) const;
    int rowOf(const QString& node) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    struct Row {
        ProcessInfo info;
        QElapsedTimer sinceStart, sinceActivity;
        double cpuPercent = -1;
        qint64 rssBytes = -1;
        std::optional<quint64> lastCpuTicks;  // at the last sample
        bool reportsUsage = false;  // it reports its own: /proc here is not read for it
        bool hostFailed = false;  // its host could not be deployed
    };
    void sampleUsage();
    bool sharesAnEarlierRowsProcess(int row) const;
    double processCpuPercent(int row) const;
    QString processKey(int row) const;  // host and pid: "" before it has a pid

    QList<Row> m_rows;
    QHash<QString, int> m_rowOf;  // node → row: a record comes in for one of 1,000 rows many times a second
    QSet<QString> m_remoteHosts;  // another machine's pids mean nothing in /proc here
    QHash<QString, int> m_firstRowOfProcess;  // a process that runs several roles (hips simulate's) shows its figures once
    QTimer m_ticker;  // usage samples and the running clocks, once a second
    QElapsedTimer m_sinceSample;
};

}  // namespace hips
