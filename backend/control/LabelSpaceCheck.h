#pragma once
// The parties' label spaces, compared as their trainers start: every trainer whose data names its
// classes (an image folder's sub-folders, a source's `classes` list) reports the names in its
// startup record, and label i must mean the same class everywhere, or the parties' updates train
// one output on different things. Names only, never samples.
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
    QString m_firstNode;  // the first trainer that named its classes, and its names
    QStringList m_first;
};

// What differs between two lists of class names, e.g. `"bird" is only in party2's`.
QString describeLabelDifference(const QStringList& mine, const QString& me, const QStringList& theirs, const QString& them);

}  // namespace hips
