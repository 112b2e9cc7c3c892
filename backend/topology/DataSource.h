#pragma once
// Where one party's (or one host's) own data lies: a DataFormatRegistry format, a path on that
// party's hosts, and the format's options. Read only on the hosts of the party that declares it.
#include <QMap>
#include <QString>
#include <QStringList>

namespace hips {

struct DataSource {
    QString format;  // a DataFormatRegistry name
    QString path;
    QMap<QString, QString> options;  // the format's options by name; a TextList option comma-joined

    QString option(const QString& name, const QString& fallback = {}) const { return options.value(name, fallback); }
    QStringList listOption(const QString& name) const;  // a TextList option, split and trimmed
    bool operator==(const DataSource& o) const { return format == o.format && path == o.path && options == o.options; }
};

inline QStringList DataSource::listOption(const QString& name) const {
    QStringList out;
    for (const QString& part : option(name).split(QLatin1Char(','), Qt::SkipEmptyParts)) out << part.trimmed();
    out.removeAll(QString());
    return out;
}

}  // namespace hips
