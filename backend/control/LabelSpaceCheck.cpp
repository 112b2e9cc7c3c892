#include "LabelSpaceCheck.h"

#include "Vocabulary.h"

#include <QJsonArray>

namespace hips {

namespace {

QString partyOf(const QString& node) {
    return node.section(QLatin1Char('/'), 0, 0);
}

QString quoted(const QStringList& names) {
    QStringList out;
    for (const QString& n : names) out << QLatin1Char('"') + n + QLatin1Char('"');
    return out.join(QStringLiteral(", "));
}

}  // namespace

QString describeLabelDifference(const QStringList& mine, const QString& me, const QStringList& theirs, const QString& them) {
    QStringList onlyMine, onlyTheirs;
    for (const QString& n : mine)
        if (!theirs.contains(n)) onlyMine << n;
    for (const QString& n : theirs)
        if (!mine.contains(n)) onlyTheirs << n;
    QStringList parts;
    if (!onlyMine.isEmpty()) parts << QStringLiteral("%1 only in %2's").arg(quoted(onlyMine), me);
    if (!onlyTheirs.isEmpty()) parts << QStringLiteral("%1 only in %2's").arg(quoted(onlyTheirs), them);
    if (parts.isEmpty()) return QStringLiteral("the same names in another order (%1 against %2)").arg(quoted(mine), quoted(theirs));
    return parts.join(QStringLiteral("; "));
}

QString LabelSpaceCheck::ingest(const QJsonObject& record) {
    if (record.value(QStringLiteral("kind")).toString() != metric::kStartup) return {};
    const QJsonArray array = record.value(metric::kClassNames).toArray();
    if (array.isEmpty()) return {};
    QStringList names;
    for (const QJsonValue& v : array) names << v.toString();
    const QString node = record.value(QStringLiteral("node")).toString();
    if (m_firstNode.isEmpty()) {
        m_firstNode = node;
        m_first = names;
        return {};
    }
    if (names == m_first) return {};
    const bool sameParty = partyOf(node) == partyOf(m_firstNode);  // (a party's hosts may have sources of their own)
    const QString me = sameParty ? node : partyOf(node), them = sameParty ? m_firstNode : partyOf(m_firstNode);
    return QStringLiteral(
               "the parties' classes differ: %1 (%2) names %3 classes and %4 (%5) %6: %7. Label i must be the same "
               "class everywhere: give every party the same class folders, or list them in each data "
               "source's \"classes\"")
        .arg(me, node)
        .arg(names.size())
        .arg(them, m_firstNode)
        .arg(m_first.size())
        .arg(describeLabelDifference(names, me, m_first, them));
}

}  // namespace hips
