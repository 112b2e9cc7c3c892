#pragma once
// A stored run's settings as History filters, groups, compares and plots them: its training
// settings, its topology's shape (parties, processes, …) and every party's and host's own setting
// by path ("party2.workers[0].slowdown"), in one flat object. And the filter's terms: free text,
// or a condition on a setting ("mode=esync", "learning_rate<0.1", "slowdown>=2", "codec!=none").
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <optional>

namespace hips {

class RunStore;

// `shapeKeys`, when given, gets the keys that come from the topology, in its order (shape first).
QJsonObject runSettings(const RunStore& store, qint64 run, QStringList* shapeKeys = nullptr);

// A setting's value as text: "-" where the run has none (its file left a default out).
QString settingText(const QJsonValue& value);

struct SettingCondition {
    QString key;  // a whole key, or its last part(s) after a '.' ("slowdown" matches "party2.workers[0].slowdown")
    QString op;  // = != < <= > >=
    QString value;
    // Whether `settings` has a key so named whose value meets the condition (numerically where
    // both sides are numbers, else as text, case-insensitively).
    bool matches(const QJsonObject& settings) const;
};

// "key OP value", or nothing for free text (no operator, or nothing before it).
std::optional<SettingCondition> parseSettingCondition(const QString& term);

}  // namespace hips
