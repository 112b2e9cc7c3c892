#include "AgentRoster.h"

#include "PrivateFiles.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace hips {

QString AgentRoster::pathIn(const QString& runDir) {
    return QDir(runDir).filePath(QStringLiteral("agents.json"));
}

QString AgentRoster::save(const QString& runDir) const {
    QJsonArray list;
    for (const Agent& a : agents)
        list.append(
            QJsonObject{{"host", a.host}, {"label", a.label}, {"endpoint", a.endpoint}, {"public_key", QString::fromLatin1(a.publicKey)}});
    const QJsonObject o{{"controller", QString::fromLatin1(controller.toText())}, {"agents", list}};
    return writeFileAtomically(pathIn(runDir), QJsonDocument(o).toJson());
}

std::optional<AgentRoster> AgentRoster::load(const QString& runDir, QString* error) {
    QFile f(pathIn(runDir));
    if (!f.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral(
                     "%1 is missing (%2): its run never had all its agents up, or was started by a version "
                     "without hips attach")
                     .arg(f.fileName(), f.errorString());
        return std::nullopt;
    }
    const QJsonObject o = QJsonDocument::fromJson(f.read(1 << 20)).object();
    AgentRoster roster;
    roster.controller = CurveKeyPair::fromText(o.value("controller").toString().toLatin1());
    for (const QJsonValue& v : o.value("agents").toArray()) {
        const QJsonObject a = v.toObject();
        roster.agents << Agent{a.value("host").toString(), a.value("label").toString(), a.value("endpoint").toString(),
                               a.value("public_key").toString().toLatin1()};
        if (roster.agents.last().endpoint.isEmpty() || roster.agents.last().publicKey.size() != 40) roster.agents.clear();
        if (roster.agents.isEmpty()) break;
    }
    if (roster.controller.isNull() || roster.agents.isEmpty()) {
        *error = QStringLiteral("%1 is damaged (no controller key, or an agent without endpoint or key)").arg(f.fileName());
        return std::nullopt;
    }
    return roster;
}

}  // namespace hips
