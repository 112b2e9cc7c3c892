#include "ProcessTableModel.h"

#include "LiteralText.h"

#include "MetricRecords.h"

#include <QBrush>
#include <QFile>
#include <unistd.h>

namespace hips {

namespace {

// utime + stime of a process, in clock ticks (0 for a process that has used less than one,
// as a quiet scheduler has); nothing when it is gone.
std::optional<quint64> cpuTicks(qint64 pid) {
    QFile f(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!f.open(QIODevice::ReadOnly)) return std::nullopt;
    const QByteArray stat = f.readAll();
    // The command name (field 2) may hold spaces; fields are counted after its closing ')'.
    const QList<QByteArray> fields = stat.mid(stat.lastIndexOf(')') + 2).split(' ');
    if (fields.size() <= 12) return std::nullopt;
    return fields[11].toULongLong() + fields[12].toULongLong();
}

qint64 rssBytes(qint64 pid) {
    QFile f(QStringLiteral("/proc/%1/statm").arg(pid));
    if (!f.open(QIODevice::ReadOnly)) return -1;
    const QList<QByteArray> fields = f.readAll().split(' ');
    return fields.size() > 1 ? fields[1].toLongLong() * sysconf(_SC_PAGESIZE) : -1;
}

// The state in the interface's language (the history and the CLI keep the English names).
QString stateText(ProcessInfo::State s) {
    switch (s) {
        case ProcessInfo::State::Pending: return ProcessTableModel::tr("pending");
        case ProcessInfo::State::Running: return ProcessTableModel::tr("running");
        case ProcessInfo::State::Exited: return ProcessTableModel::tr("exited");
        case ProcessInfo::State::Failed: return ProcessTableModel::tr("failed");
        case ProcessInfo::State::Stopped: return ProcessTableModel::tr("stopped");
        case ProcessInfo::State::Restarting: return ProcessTableModel::tr("restarting");
    }
    return processStateName(s);
}

// Roles that report nothing once they are under way: schedulers speak only at the rendezvous
// and when a member goes down or comes back, the state service only answers its workers. A
// "last heard" counting up for them would look like a hang.
bool quietByDesign(RoleKind kind) {
    return kind == RoleKind::GlobalScheduler || kind == RoleKind::Scheduler || kind == RoleKind::StateService;
}

QColor stateColor(ProcessInfo::State s) {
    switch (s) {
        case ProcessInfo::State::Running: return QColor(0x2c, 0xa0, 0x2c);
        case ProcessInfo::State::Failed: return QColor(0xd0, 0x30, 0x30);
        case ProcessInfo::State::Stopped: return QColor(0xc0, 0x80, 0x00);
        case ProcessInfo::State::Restarting: return QColor(0xe0, 0x90, 0x10);
        default: return QColor(0x70, 0x70, 0x70);
    }
}

}  // namespace

ProcessTableModel::ProcessTableModel(QObject* parent) : QAbstractTableModel(parent) {
    connect(&m_ticker, &QTimer::timeout, this, &ProcessTableModel::sampleUsage);
    m_ticker.start(1000);
    m_sinceSample.start();
}

void ProcessTableModel::reset(const QList<Node>& nodes, const QSet<QString>& remoteHosts) {
    beginResetModel();
    m_rows.clear();
    m_rowOf.clear();
    m_firstRowOfProcess.clear();
    m_remoteHosts = remoteHosts;
    for (const Node& n : nodes) {
        Row r;
        r.info.node = n;
        m_rowOf.insert(n.id, int(m_rows.size()));
        m_rows << r;
    }
    endResetModel();
}

int ProcessTableModel::rowOf(const QString& node) const {
    return m_rowOf.value(node, -1);
}

// Every host on this machine shares its pids (a local run names several hosts); another machine
// has pids of its own.
QString ProcessTableModel::processKey(int row) const {
    const Row& r = m_rows[row];
    if (r.info.pid <= 0) return {};
    return m_remoteHosts.contains(r.info.node.host) ? r.info.node.host + QLatin1Char('/') + QString::number(r.info.pid)
                                                    : QString::number(r.info.pid);
}

bool ProcessTableModel::sharesAnEarlierRowsProcess(int row) const {
    const QString key = processKey(row);
    return !key.isEmpty() && m_firstRowOfProcess.value(key, row) < row;
}

// The CPU of a row's process. The roles of a shared trainer each report their own thread's: the
// process's first row shows their sum. A process whose roles report nothing: what /proc said.
double ProcessTableModel::processCpuPercent(int row) const {
    const Row& first = m_rows[row];
    const QString key = processKey(row);
    double sum = 0;
    bool reported = false;
    for (int i = 0; i < m_rows.size(); ++i) {
        const Row& r = m_rows[i];
        if (key.isEmpty() || r.info.pid != first.info.pid || processKey(i) != key || !r.reportsUsage || r.cpuPercent < 0) continue;
        if (r.info.state != ProcessInfo::State::Running) continue;
        sum += r.cpuPercent;
        reported = true;
    }
    return reported ? sum : first.cpuPercent;
}

QString ProcessTableModel::nodeAt(int row) const {
    return row >= 0 && row < m_rows.size() ? m_rows[row].info.node.id : QString();
}

void ProcessTableModel::update(const ProcessInfo& p) {
    const int i = rowOf(p.node.id);
    if (i < 0) return;
    Row& r = m_rows[i];
    if (p.state == ProcessInfo::State::Running && r.info.state != ProcessInfo::State::Running) {
        r.sinceStart.start();
        r.sinceActivity.start();
    }
    r.info = p;
    if (const QString key = processKey(i); !key.isEmpty()) {
        const auto first = m_firstRowOfProcess.constFind(key);
        if (first == m_firstRowOfProcess.cend() || *first > i || processKey(*first) != key) m_firstRowOfProcess.insert(key, i);
    }
    Q_EMIT dataChanged(index(i, 0), index(i, ColumnCount - 1));
}

void ProcessTableModel::noteActivity(const QString& node) {
    const int i = rowOf(node);
    if (i >= 0) m_rows[i].sinceActivity.start();
}

void ProcessTableModel::noteUsage(const QJsonObject& record) {
    const auto usage = metric::UsageRecord::from(record);
    const int i = usage ? rowOf(usage->node) : -1;
    if (i < 0) return;
    Row& r = m_rows[i];
    r.reportsUsage = true;
    r.cpuPercent = usage->cpuPercent;
    // A shared trainer's memory is reported by one of its workers (the process's figure): it is
    // shown on the process's first row, whichever worker reported it.
    const QString key = processKey(i);
    int first = key.isEmpty() ? i : m_firstRowOfProcess.value(key, i);
    if (processKey(first) != key) first = i;
    if (usage->rssBytes) m_rows[first].rssBytes = *usage->rssBytes;
    Q_EMIT dataChanged(index(std::min(i, first), Cpu), index(std::max(i, first), Memory));
}

void ProcessTableModel::sampleUsage() {
    const double seconds = double(m_sinceSample.restart()) / 1000.0;
    const double ticksPerSecond = double(sysconf(_SC_CLK_TCK));
    for (int row = 0; row < m_rows.size(); ++row) {
        Row& r = m_rows[row];
        if (r.info.state != ProcessInfo::State::Running || r.info.pid <= 0 || m_remoteHosts.contains(r.info.node.host) || r.reportsUsage ||
            sharesAnEarlierRowsProcess(row))
            continue;
        const std::optional<quint64> ticks = cpuTicks(r.info.pid);
        if (ticks && r.lastCpuTicks && *ticks >= *r.lastCpuTicks && seconds > 0)
            r.cpuPercent = 100.0 * double(*ticks - *r.lastCpuTicks) / ticksPerSecond / seconds;
        r.lastCpuTicks = ticks;
        r.rssBytes = rssBytes(r.info.pid);
    }
    if (!m_rows.isEmpty()) Q_EMIT dataChanged(index(0, Uptime), index(int(m_rows.size()) - 1, LastSeen));
}

int ProcessTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}
int ProcessTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

void ProcessTableModel::markHostFailed(const QString& host, const QString& error) {
    for (int row = 0; row < m_rows.size(); ++row) {
        ProcessInfo& p = m_rows[row].info;
        if (p.node.host != host || p.state != ProcessInfo::State::Pending) continue;
        m_rows[row].hostFailed = true;
        p.state = ProcessInfo::State::Failed;
        p.error = tr("host %1 could not be deployed: %2").arg(host, error);
        Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
    }
}

void ProcessTableModel::markNotStarted(const QString& reason) {
    for (int row = 0; row < m_rows.size(); ++row) {
        ProcessInfo& p = m_rows[row].info;
        if (p.state != ProcessInfo::State::Pending) continue;
        p.state = ProcessInfo::State::Failed;
        p.error = tr("not started: %1").arg(reason);
        Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
    }
}

QVariant ProcessTableModel::data(const QModelIndex& index, int role) const {
    const Row& r = m_rows[index.row()];
    const bool running = r.info.state == ProcessInfo::State::Running;
    if (role == Qt::ForegroundRole && index.column() == State) return QBrush(stateColor(r.info.state));
    if (role == Qt::ForegroundRole && index.column() == Host && r.hostFailed)
        return QBrush(stateColor(ProcessInfo::State::Failed));  // the host that failed, marked
    if (role == Qt::ToolTipRole && !r.info.error.isEmpty()) return literalToolTip(r.info.error);  // (a role's stderr: text)
    const bool shared = sharesAnEarlierRowsProcess(index.row());
    if (role == Qt::ToolTipRole && shared && (index.column() == Cpu || index.column() == Memory))
        return tr("This role runs in process %1 with other roles (hips simulate runs every role in one process): "
                  "its CPU and memory are on the process's first row.")
            .arg(r.info.pid);
    if (role == Qt::ToolTipRole && index.column() == LastSeen && running && quietByDesign(r.info.node.kind))
        return tr(
            "This role reports only when something changes (a scheduler: its rendezvous, a member going down "
            "or coming back). Its agent reports at once if it exits.");
    if (role == Qt::TextAlignmentRole && index.column() >= Rank && index.column() != State) return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole) return {};
    switch (Column(index.column())) {
        case Party: return r.info.node.party;
        case Host: return r.info.node.host;
        case Role: return r.info.node.id.section('/', 1);
        case Rank: return r.info.node.rank;
        case State:
            if (r.hostFailed) return tr("not deployed");
            if (r.info.state == ProcessInfo::State::Failed || r.info.state == ProcessInfo::State::Exited ||
                r.info.state == ProcessInfo::State::Stopped)
                return r.info.crashed ? tr("%1 (signal %2)").arg(stateText(r.info.state)).arg(r.info.exitCode)
                                      : tr("%1 (%2)").arg(stateText(r.info.state)).arg(r.info.exitCode);
            if (r.info.restarts > 0) return tr("%1 (restarts: %2)").arg(stateText(r.info.state)).arg(r.info.restarts);
            return stateText(r.info.state);
        case Pid: return r.info.pid > 0 ? QVariant(r.info.pid) : QVariant(QStringLiteral("-"));
        case Uptime: return running ? tr("%1 s").arg(r.sinceStart.elapsed() / 1000) : QStringLiteral("-");
        case Cpu: {
            const double cpu = running && !shared ? processCpuPercent(index.row()) : -1;
            return running && shared ? tr("shared") : cpu >= 0 ? QStringLiteral("%1 %").arg(cpu, 0, 'f', 0) : QStringLiteral("-");
        }
        case Memory:
            if (running && shared) return tr("shared");
            return running && r.rssBytes >= 0 ? QStringLiteral("%1 MB").arg(double(r.rssBytes) / 1e6, 0, 'f', 0) : QStringLiteral("-");
        case LastSeen:
            if (!running) return QStringLiteral("-");
            return quietByDesign(r.info.node.kind) ? tr("only on changes") : tr("%1 s ago").arg(r.sinceActivity.elapsed() / 1000);
        case ColumnCount: break;
    }
    return {};
}

QVariant ProcessTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    const QStringList names = {tr("Party"), tr("Host"),   tr("Role"), tr("Rank"),   tr("State"),
                               tr("PID"),   tr("Uptime"), tr("CPU"),  tr("Memory"), tr("Last heard")};
    return names.value(section);
}

}  // namespace hips
