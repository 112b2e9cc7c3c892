#pragma once
// Where one party's (or one host's) own data lies: a DataFormatRegistry format, a path on that
// party's hosts, and the format's options. Read only on the hosts of the party that declares it.
#include <QMap>
#include <QString>
#include <QStringList>
#include <cstdint>

namespace hips {

struct DataSource {
    QString format;  // a DataFormatRegistry name
    QString path;
    QMap<QString, QString> options;  // the format's options by name; a TextList option comma-joined

    QString option(const QString& name, const QString& fallback = {}) const { return options.value(name, fallback); }
    QStringList listOption(const QString& name) const;  // a TextList option, split and trimmed
    bool operator==(const DataSource& o) const { return format == o.format && path == o.path && options == o.options; }
};

// A number of a source's own, from its `owner` ("party 'hospital1'", "host 'h2'"), the same in
// every process: mixed into the seeds of its holdout, shards, data orders and dropout, so that two
// parties' sources of one size are not cut, shuffled and dropped out alike (each party's worker k
// had the same Dirichlet skew and the same batches). Never 0, the run's own dataset's.
inline uint32_t sourceStream(const QString& owner) {
    uint32_t h = 2166136261u;  // FNV-1a: no per-process seed, as qHash has
    for (const char c : owner.toUtf8()) h = (h ^ uint8_t(c)) * 16777619u;
    return h == 0 ? 1 : h;
}

inline QStringList DataSource::listOption(const QString& name) const {
    QStringList out;
    for (const QString& part : option(name).split(QLatin1Char(','), Qt::SkipEmptyParts)) out << part.trimmed();
    out.removeAll(QString());
    return out;
}

}  // namespace hips
