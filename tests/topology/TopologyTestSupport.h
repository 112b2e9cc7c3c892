#pragma once
// What the topology tests share: the shipped default topology, and setting a value deep in a
// JSON document by path ({"parties", "1", "roles", "mixer"}; an undefined value removes the key).
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>
#include <functional>

#include "TopologyReader.h"

namespace hips::test {

inline QByteArray defaultText() {
    QFile f(HIPS_SOURCE_DIR "/resources/topologies/default.json");
    if (!f.open(QIODevice::ReadOnly)) qFatal("cannot open the default topology");
    return f.readAll();
}

inline QJsonObject validTopology() {
    return QJsonDocument::fromJson(defaultText()).object();
}

inline void set(QJsonObject& root, const QStringList& path, const QJsonValue& value);

inline QJsonValue setIn(QJsonValue node, QStringList path, const QJsonValue& value) {
    if (path.isEmpty()) return value;
    const QString key = path.takeFirst();
    bool isIndex = false;
    const int index = key.toInt(&isIndex);
    if (isIndex) {
        QJsonArray a = node.toArray();
        a[index] = setIn(a[index], path, value);
        return a;
    }
    QJsonObject o = node.toObject();
    if (value.isUndefined() && path.isEmpty()) o.remove(key);
    else o[key] = setIn(o.value(key), path, value);
    return o;
}

inline void set(QJsonObject& root, const QStringList& path, const QJsonValue& value) {
    root = setIn(root, path, value).toObject();
}

// A topology file broken one way, and the issue the reader must report for it.
struct BrokenCase {
    const char* name;
    std::function<void(QJsonObject&)> breakIt;
    const char* path;  // expected JSON path of the first issue
    const char* message;  // expected fragment of its message
};

// Reads the default topology broken by `c`; empty when the expected issue is among those
// reported, else what was expected and what came.
inline QString missingIssue(const BrokenCase& c, TopologyLoad* load) {
    QJsonObject t = validTopology();
    c.breakIt(t);
    *load = TopologyReader::readJson(QJsonDocument(t).toJson(), "broken.json");
    for (const TopologyIssue& issue : load->issues)
        if (issue.path == QLatin1String(c.path) && issue.message.contains(QLatin1String(c.message))) return {};
    return QStringLiteral("expected %1: ...%2... in:\n%3").arg(c.path, c.message, load->errorText());
}

}  // namespace hips::test
