#pragma once
// The files of one run: topology.json, metrics.jsonl (every metric record, as received),
// logs/<party>_<role>.log, summary.json. The master worker writes net.meta / net.params here.
#include <QFile>
#include <QHash>
#include <QJsonObject>
#include <memory>

namespace hips {

class RunDirectory {
public:
    // Creates the directory; returns an error text, empty on success.
    QString create(const QString& path, const QByteArray& topologyJson);
    const QString& path() const { return m_path; }

    void appendMetric(const QByteArray& jsonLine);
    void appendLog(const QString& node, const QString& line);
    void writeSummary(const QJsonObject& summary);

    static QString defaultPath(const QString& topologyName);  // runs/<yyyyMMdd-HHmmss>-<name>

private:
    QString m_path;
    QFile m_metrics;
    QHash<QString, std::shared_ptr<QFile>> m_logs;
};

}  // namespace hips
