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
    const QString node = record.value(QStringLiteral("node")).toString();
    const auto differs = [&](QLatin1String key, FirstNamed& first, const QString& what) -> QString {
        QStringList names;
        for (const QJsonValue& v : record.value(key).toArray()) names << v.toString();
        if (names.isEmpty()) return {};
        if (first.node.isEmpty()) first = {node, names};
        if (names == first.names) return {};
        const bool sameParty = partyOf(node) == partyOf(first.node);  // (a party's hosts may have sources of their own)
        const QString me = sameParty ? node : partyOf(node), them = sameParty ? first.node : partyOf(first.node);
        return what.arg(me, node)
            .arg(names.size())
            .arg(them, first.node)
            .arg(first.names.size())
            .arg(describeLabelDifference(names, me, first.names, them));
    };
    const QString classes = differs(metric::kClassNames, m_classes,
                                    QStringLiteral("the parties' classes differ: %1 (%2) names %3 classes and %4 (%5) %6: %7. Label i must "
                                                   "be the same class everywhere: give every party the same class folders, or list them "
                                                   "in each data source's \"classes\""));
    if (!classes.isEmpty()) return classes;
    if (const QString source = record.value(metric::kDataSource).toString(); !source.isEmpty()) {
        const QString digest = record.value(metric::kSourceDigest).toString();
        FirstNamed& first = m_sources[source];
        if (first.node.isEmpty()) first = {node, {digest}};
        if (first.names.value(0) != digest)
            return QStringLiteral(
                       "%1's data differs between the hosts that read it: %2 read %3 and %4 read %5. Each reader cuts its shard "
                       "from its own host's copy: copies that differ overlap (rows trained twice, others never, held-out rows "
                       "trained on). Put the same file on every host of the party, or give each host data of its own (hosts[].data)")
                .arg(source, first.node, first.names.value(0), node, digest);
    }
    return differs(
        metric::kFeatureNames, m_features,
        QStringLiteral("the feature columns differ: %1 (%2) has %3 columns and %4 (%5) %6: %7. Input i is one weight of the model "
                       "for every party: give every party's csv, and the master's evaluation_data, the same columns in the "
                       "same order"));
}

}  // namespace hips
