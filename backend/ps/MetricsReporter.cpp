#include "MetricsReporter.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>
#include <cstdio>

namespace hips {

void MetricsReporter::report(const QString& kind, QCborMap fields) const {
    fields.insert(QStringLiteral("kind"), kind);
    fields.insert(QStringLiteral("node"), m_node);
    fields.insert(QStringLiteral("t"), double(QDateTime::currentMSecsSinceEpoch()) / 1000.0);
    const QByteArray line = QJsonDocument(fields.toJsonObject()).toJson(QJsonDocument::Compact);
    std::fprintf(stdout, "%s%s\n", kPrefix, line.constData());
    std::fflush(stdout);
}

}  // namespace hips
