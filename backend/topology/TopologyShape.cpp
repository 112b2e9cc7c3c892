#include "TopologyShape.h"

#include "TopologyWriter.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QSet>

namespace hips {

QList<std::pair<QString, qint64>> topologyShape(const Topology& t) {
    const QList<Node> nodes = t.nodes();
    QSet<QString> hosts;
    for (const Node& n : nodes) hosts.insert(n.host);
    const Party* central = t.centralParty();
    return {{QStringLiteral("parties"), t.parties.size()},
            {QStringLiteral("hosts"), hosts.size()},
            {QStringLiteral("processes"), nodes.size()},
            {QStringLiteral("training_workers"), t.trainingWorkerCount()},
            {QStringLiteral("servers_per_party"), central ? central->servers.size() : 0}};
}

namespace {

void flatten(const QString& path, const QJsonValue& v, QList<std::pair<QString, QString>>* out) {
    if (v.isObject()) {
        const QJsonObject o = v.toObject();
        for (auto it = o.begin(); it != o.end(); ++it) flatten(path + '.' + it.key(), *it, out);
    } else if (v.isArray()) {
        const QJsonArray a = v.toArray();
        for (int i = 0; i < a.size(); ++i) flatten(QStringLiteral("%1[%2]").arg(path).arg(i), a[i], out);
    } else {
        out->append({path, v.isString()   ? v.toString()
                           : v.isBool()   ? QString::fromLatin1(v.toBool() ? "true" : "false")
                           : v.isDouble() ? QString::number(v.toDouble(), 'g', 12)
                                          : QStringLiteral("null")});
    }
}

// A list of objects with ids ("parties", "hosts"), each under its id: a party added before
// another does not shift every later path.
void flattenById(const QString& prefix, const QJsonArray& list, QList<std::pair<QString, QString>>* out) {
    for (const QJsonValue& v : list) {
        QJsonObject o = v.toObject();
        const QString id = o.take(QStringLiteral("id")).toString();
        if (o.value(QStringLiteral("roles")).isObject()) {  // a party's roles read as its own fields
            const QJsonObject roles = o.take(QStringLiteral("roles")).toObject();
            for (auto it = roles.begin(); it != roles.end(); ++it) o.insert(it.key(), *it);
        }
        flatten(prefix + id, o, out);
    }
}

}  // namespace

QList<std::pair<QString, QString>> topologySettings(const Topology& t) {
    const QJsonObject file = TopologyWriter::toJsonObject(t);
    QList<std::pair<QString, QString>> out;
    flattenById(QString(), file.value(QStringLiteral("parties")).toArray(), &out);
    flattenById(QStringLiteral("hosts."), file.value(QStringLiteral("hosts")).toArray(), &out);
    return out;
}

}  // namespace hips
