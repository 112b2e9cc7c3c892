#include "RunSettings.h"

#include "RunStore.h"
#include "TopologyReader.h"
#include "TopologyShape.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>

namespace hips {

QJsonObject runSettings(const RunStore& store, qint64 run, QStringList* shapeKeys) {
    QJsonObject settings = store.settings(run);
    const TopologyLoad stored = TopologyReader::readJson(store.topologyJson(run));
    const std::optional<Topology>& topology = stored.topology ? stored.topology : stored.draft;
    if (!topology) return settings;
    auto add = [&](const QString& key, const QJsonValue& value) {
        settings.insert(key, value);
        if (shapeKeys && !shapeKeys->contains(key)) shapeKeys->append(key);
    };
    for (const auto& [key, value] : topologyShape(*topology)) add(key, value);
    for (const auto& [key, value] : topologySettings(*topology)) add(key, value);  // each party's and host's own
    return settings;
}

QString settingText(const QJsonValue& v) {
    if (v.isUndefined()) return QStringLiteral("-");
    if (v.isObject()) return QString::fromUtf8(QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact));
    if (v.isArray()) return QString::fromUtf8(QJsonDocument(v.toArray()).toJson(QJsonDocument::Compact));
    return v.toVariant().toString();
}

std::optional<SettingCondition> parseSettingCondition(const QString& term) {
    static const QRegularExpression condition(QStringLiteral("^([^=<>!]+)(!=|<=|>=|=|<|>)(.*)$"));
    const QRegularExpressionMatch m = condition.match(term.trimmed());
    if (!m.hasMatch()) return std::nullopt;
    return SettingCondition{m.captured(1).trimmed(), m.captured(2), m.captured(3).trimmed()};
}

bool SettingCondition::matches(const QJsonObject& settings) const {
    for (auto it = settings.begin(); it != settings.end(); ++it) {
        if (it.key() != key && !it.key().endsWith(QLatin1Char('.') + key)) continue;
        const QString text = settingText(it.value());
        bool numbers = false, ok = false;
        const double have = text.toDouble(&numbers), want = value.toDouble(&ok);
        numbers = numbers && ok;
        const int order = numbers ? (have < want ? -1 : have > want ? 1 : 0) : QString::compare(text, value, Qt::CaseInsensitive);
        const bool met = op == QLatin1String("=")    ? order == 0
                         : op == QLatin1String("!=") ? order != 0
                         : op == QLatin1String("<")  ? order < 0
                         : op == QLatin1String("<=") ? order <= 0
                         : op == QLatin1String(">")  ? order > 0
                                                     : order >= 0;
        if (met) return true;
    }
    return false;
}

}  // namespace hips
