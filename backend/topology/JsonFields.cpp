#include "JsonFields.h"

#include "NumberText.h"

#include <QCoreApplication>
#include <cmath>

namespace hips {

static QString typeName(const QJsonValue& v) {
    switch (v.type()) {
        case QJsonValue::Null: return QStringLiteral("null");
        case QJsonValue::Bool: return QCoreApplication::translate("TopologyCheck", "a boolean");
        case QJsonValue::Double: return QCoreApplication::translate("TopologyCheck", "a number");
        case QJsonValue::String: return QCoreApplication::translate("TopologyCheck", "a string");
        case QJsonValue::Array: return QCoreApplication::translate("TopologyCheck", "an array");
        case QJsonValue::Object: return QCoreApplication::translate("TopologyCheck", "an object");
        default: return QStringLiteral("undefined");
    }
}

void JsonFields::issue(const QString& key, const QString& message) const {
    m_issues->append({key.isEmpty() ? m_path : path(key), message});
}

QString JsonFields::string(const QString& key, const QString& fallback, bool required) {
    const QJsonValue v = value(key);
    if (v.isUndefined()) {
        if (required) issue(key, QCoreApplication::translate("TopologyCheck", "missing; add a string value"));
        return fallback;
    }
    if (!v.isString()) {
        issue(key, QCoreApplication::translate("TopologyCheck", "must be a non-empty string, found %1").arg(typeName(v)));
        return fallback;
    }
    if (v.toString().trimmed().isEmpty()) {  // ("found a string" said it of an empty one)
        issue(key, QCoreApplication::translate("TopologyCheck", "is empty; give it a value"));
        return fallback;
    }
    return v.toString();
}

int JsonFields::integer(const QString& key, int fallback, int min, int max, bool required) {
    const QJsonValue v = value(key);
    if (v.isUndefined()) {
        if (required) issue(key, QCoreApplication::translate("TopologyCheck", "missing; add an integer in [%1, %2]").arg(min).arg(max));
        return fallback;
    }
    const double d = v.toDouble(std::nan(""));
    if (!v.isDouble() || d != std::floor(d)) {
        issue(key,
              QCoreApplication::translate("TopologyCheck", "must be an integer, found %1").arg(v.isDouble() ? numberText(d) : typeName(v)));
        return fallback;
    }
    if (d < min || d > max) {
        issue(key, QCoreApplication::translate("TopologyCheck", "%1 is out of range; use an integer in [%2, %3]")
                       .arg(numberText(d), QString::number(min), QString::number(max)));
        return fallback;
    }
    return static_cast<int>(d);
}

double JsonFields::number(const QString& key, double fallback, double min, double max) {
    const QJsonValue v = value(key);
    if (v.isUndefined()) return fallback;
    if (!v.isDouble() || !std::isfinite(v.toDouble())) {
        issue(key, QCoreApplication::translate("TopologyCheck", "must be a finite number, found %1").arg(typeName(v)));
        return fallback;
    }
    const double d = v.toDouble();
    if (d < min || d > max) {
        issue(key, QCoreApplication::translate("TopologyCheck", "%1 is out of range; use a number in [%2, %3]")
                       .arg(numberText(d), numberText(min), numberText(max)));
        return fallback;
    }
    return d;
}

bool JsonFields::boolean(const QString& key, bool fallback) {
    const QJsonValue v = value(key);
    if (v.isUndefined()) return fallback;
    if (!v.isBool()) {
        issue(key, QCoreApplication::translate("TopologyCheck", "must be true or false, found %1").arg(typeName(v)));
        return fallback;
    }
    return v.toBool();
}

std::optional<QJsonObject> JsonFields::object(const QString& key, bool required) {
    const QJsonValue v = value(key);
    if (v.isUndefined()) {
        if (required) issue(key, QCoreApplication::translate("TopologyCheck", "missing; add an object"));
        return std::nullopt;
    }
    if (!v.isObject()) {
        issue(key, QCoreApplication::translate("TopologyCheck", "must be an object, found %1").arg(typeName(v)));
        return std::nullopt;
    }
    return v.toObject();
}

std::optional<QJsonArray> JsonFields::array(const QString& key, bool required) {
    const QJsonValue v = value(key);
    if (v.isUndefined()) {
        if (required) issue(key, QCoreApplication::translate("TopologyCheck", "missing; add an array"));
        return std::nullopt;
    }
    if (!v.isArray()) {
        issue(key, QCoreApplication::translate("TopologyCheck", "must be an array, found %1").arg(typeName(v)));
        return std::nullopt;
    }
    return v.toArray();
}

QString JsonFields::choice(const QString& key, const QString& fallback, const QStringList& allowed) {
    const QString s = string(key, fallback);
    if (!allowed.contains(s)) {
        issue(key, QCoreApplication::translate("TopologyCheck", "'%1' is not supported; use one of: %2")
                       .arg(s, allowed.join(QStringLiteral(", "))));
        return fallback;
    }
    return s;
}

void JsonFields::rejectUnknown(const QStringList& known, const QString& what) {
    for (const QString& key : m_object.keys())
        if (!known.contains(key))
            issue(key, QCoreApplication::translate("TopologyCheck", "unknown %1 '%2'; expected one of: %3")
                           .arg(what, key, known.join(QStringLiteral(", "))));
}

QString JsonFields::strategy(const QString& key, const QString& fallback, const StrategyList& list) {
    const QString given = string(key, fallback);
    if (const StrategyInfo* s = findStrategy(list, given)) return s->name;
    issue(key, QCoreApplication::translate("TopologyCheck", "'%1' is not supported; use one of: %2")
                   .arg(given, strategyNames(list).join(QStringLiteral(", "))));
    return fallback;
}

}  // namespace hips
