#pragma once
// The parties' label spaces and feature columns, compared as their trainers start: every trainer
// whose data names its classes (an image folder's sub-folders, a source's `classes` list) or its
// feature columns (a csv's header) reports the names in its startup record. Label i must mean the
// same class everywhere, and input i the same feature, or the parties' updates train one output,
// or one weight, on different things. Names only, never samples. And a party's source read on
// several hosts must hold the same there (its row count and a digest, startup's source_digest):
// each reader cuts its shard from its own host's copy.
#include <QHash>
#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace hips {

class LabelSpaceCheck {
public:
    // Takes one metric record; returns what disagrees with the names seen before (empty: all
    // agree, or the record names no classes).
    QString ingest(const QJsonObject& record);

private:
    struct FirstNamed {
        QString node;  // the first trainer that named them, and its names
        QStringList names;
    };
    FirstNamed m_classes, m_features;
    QHash<QString, FirstNamed> m_sources;  // by owner: the first reader and its source_digest
};

// What differs between two lists of class names, e.g. `"bird" is only in party2's`.
QString describeLabelDifference(const QStringList& mine, const QString& me, const QStringList& theirs, const QString& them);

}  // namespace hips
