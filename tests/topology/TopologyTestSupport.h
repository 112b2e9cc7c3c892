#pragma once
// What the topology tests share: the shipped default topology, and setting a value deep in a
// JSON document by path ({"parties", "1", "roles", "mixer"}; an undefined value removes the key).
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>

namespace hips::test {

inline QByteArray defaultText() {
    QFile f(HIPS_SOURCE_DIR "/resources/topologies/default.json");
    if (!f.open(QIODevice::ReadOnly)) qFatal("cannot open the default topology");
    return f.readAll();
}

inline QJsonObject validTopology() { return QJsonDocument::fromJson(defaultText()).object(); }

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


}  // namespace hips::test
