#include "RunDirectory.h"

#include <QDateTime>
#include <QRegularExpression>
#include <QDir>
#include <QJsonDocument>
#include <QSaveFile>

namespace hips {

QString RunDirectory::defaultPath(const QString& topologyName) {
    QString safe = topologyName;
    safe.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9_.-]")), QStringLiteral("_"));
    return QStringLiteral("runs/%1-%2").arg(QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss")), safe);
}

QString RunDirectory::create(const QString& path, const QByteArray& topologyJson) {
    QDir dir(path);
    if (!dir.mkpath(QStringLiteral("logs")))
        return QStringLiteral("cannot create the run directory %1; check permissions or pass --out").arg(path);
    m_path = dir.absolutePath();
    QFile topology(dir.filePath(QStringLiteral("topology.json")));
    if (!topology.open(QIODevice::WriteOnly) || topology.write(topologyJson) < 0)
        return QStringLiteral("cannot write %1: %2").arg(topology.fileName(), topology.errorString());
    m_metrics.setFileName(dir.filePath(QStringLiteral("metrics.jsonl")));
    if (!m_metrics.open(QIODevice::WriteOnly | QIODevice::Append))
        return QStringLiteral("cannot write %1: %2").arg(m_metrics.fileName(), m_metrics.errorString());
    return {};
}

void RunDirectory::appendMetric(const QByteArray& jsonLine) {
    m_metrics.write(jsonLine);
    m_metrics.write("\n");
    m_metrics.flush();
}

void RunDirectory::appendLog(const QString& node, const QString& line) {
    auto& file = m_logs[node];
    if (!file) {
        QString name = node;
        file = std::make_shared<QFile>(QDir(m_path).filePath(QStringLiteral("logs/") + name.replace('/', '_') + ".log"));
        if (!file->open(QIODevice::WriteOnly | QIODevice::Append)) return;
    }
    file->write(line.toUtf8() + '\n');
    file->flush();
}

void RunDirectory::writeSummary(const QJsonObject& summary) {
    QSaveFile file(QDir(m_path).filePath(QStringLiteral("summary.json")));
    if (file.open(QIODevice::WriteOnly)) {
        file.write(QJsonDocument(summary).toJson());
        file.commit();
    }
}

}  // namespace hips
