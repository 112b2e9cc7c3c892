#pragma once
// The deployment of a remote run, one row per host: its current stage (connecting, uploading,
// starting the agent, …), how long it has taken, and its result or error. Shown while hosts are
// deployed and kept after, so that a failure stays readable with the host named.
#include <QElapsedTimer>
#include <QHash>
#include <QTableWidget>

namespace hips {

class DeploymentTable : public QTableWidget {
    Q_OBJECT
public:
    enum Column { Host, Stage, Seconds, Result, ColumnCount };

    explicit DeploymentTable(QWidget* parent = nullptr);

    void reset(const QStringList& hosts);  // a new deployment: every host waiting
    void onProgress(const QString& host, const QString& stage);
    void onFinished(const QString& host, bool ok, const QString& error, double seconds);
    void markNotStarted(const QString& reason);  // a refused start: no host keeps waiting

    QString stage(const QString& host) const;
    QString result(const QString& host) const;
    bool failed(const QString& host) const { return m_failed.contains(host); }

private:
    int rowOf(const QString& host);
    QHash<QString, QElapsedTimer> m_clocks;
    QSet<QString> m_failed;
    QSet<QString> m_started;  // hosts whose deployment began (every row has a clock from its creation)
};

}  // namespace hips
