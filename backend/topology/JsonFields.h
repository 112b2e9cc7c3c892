#pragma once
// Typed access to a JSON object that records a TopologyIssue for each missing,
// mistyped or unknown field instead of throwing.
#include "StrategyInfo.h"
#include "TopologyIssue.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QStringList>

namespace hips {

class JsonFields {
public:
    JsonFields(const QJsonObject& object, QString path, TopologyIssues* issues)
        : m_object(object), m_path(std::move(path)), m_issues(issues) {}

    QString path(const QString& key) const { return m_path + '.' + key; }
    bool has(const QString& key) const { return m_object.contains(key); }
    QJsonValue value(const QString& key) const { return m_object.value(key); }

    QString string(const QString& key, const QString& fallback, bool required = false);
    int integer(const QString& key, int fallback, int min, int max, bool required = false);
    double number(const QString& key, double fallback, double min, double max);
    bool boolean(const QString& key, bool fallback);
    std::optional<QJsonObject> object(const QString& key, bool required = false);
    std::optional<QJsonArray> array(const QString& key, bool required = false);
    QString choice(const QString& key, const QString& fallback, const QStringList& allowed);
    // A registry name, or one of its aliases (read as the name).
    QString strategy(const QString& key, const QString& fallback, const StrategyList& list);
    void rejectUnknown(const QStringList& known, const QString& what);

    void issue(const QString& key, const QString& message) const;
    TopologyIssues* issues() const { return m_issues; }

private:
    QJsonObject m_object;
    QString m_path;
    TopologyIssues* m_issues;
};

}  // namespace hips
