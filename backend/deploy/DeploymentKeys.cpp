#include "DeploymentKeys.h"

#include "PrivateFiles.h"

#include <QRegularExpression>
#include <QFileInfo>
#include <QStandardPaths>

namespace hips {

DeploymentKeys DeploymentKeys::generate() {
    return {CurveKeyPair::generate(), {}};
}

QString DeploymentKeys::pathFor(const Topology& topology) {
    QString name = topology.name;
    name.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9._-]")), QStringLiteral("_"));
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) +
           QStringLiteral("/hips-studio/deployments/%1.keys").arg(name);
}

QString DeploymentKeys::save(const QString& path) const {
    if (const QString e = makePrivateDirectory(QFileInfo(path).absolutePath()); !e.isEmpty()) return e;
    QByteArray text = "controller " + controller.toText() + '\n';
    for (auto it = agents.begin(); it != agents.end(); ++it) text += "agent " + it.key().toUtf8() + ' ' + it.value() + '\n';
    return writeFileAtomically(path, text);  // 0600: it holds the controller's secret key
}

std::optional<DeploymentKeys> DeploymentKeys::load(const QString& path, QString* error) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("no deployment keys at %1; deploy first (hips deploy), from this machine").arg(path);
        return std::nullopt;
    }
    DeploymentKeys keys;
    for (const QByteArray& line : f.readAll().split('\n')) {
        const QList<QByteArray> words = line.split(' ');
        if (words.value(0) == "controller" && words.size() == 3) keys.controller = CurveKeyPair::fromText(words[1] + ' ' + words[2]);
        else if (words.value(0) == "agent" && words.size() == 3) keys.agents.insert(QString::fromUtf8(words[1]), words[2]);
    }
    if (keys.controller.isNull()) {
        *error = QStringLiteral("%1 holds no controller key; deploy again").arg(path);
        return std::nullopt;
    }
    return keys;
}

}  // namespace hips
