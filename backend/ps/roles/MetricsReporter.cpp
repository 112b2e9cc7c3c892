#include "MetricsReporter.h"

#include "Channel.h"

#include <QCborArray>
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

QCborMap trafficFields(const Channel& a, const Channel* b) {
    return trafficFields(b ? std::vector<const Channel*>{&a, b} : std::vector<const Channel*>{&a});
}

QCborMap trafficFields(const std::vector<const Channel*>& channels) {
    QCborArray links;
    quint64 errors = 0, undeliverable = 0;
    for (const Channel* c : channels) {
        for (const QCborValue& v : c->traffic().toCbor()) links.append(v);
        errors += c->stats().totalErrors();
        undeliverable += c->undeliverable();
    }
    return {{QStringLiteral("links"), links},
            {QStringLiteral("wire_errors"), qint64(errors)},
            {QStringLiteral("undeliverable"), qint64(undeliverable)}};
}

}  // namespace hips
