#pragma once
// The formats a party's own data may come in (`"data": {"format": …, "path": …}`): the only list
// of them. Each entry names its options (string-valued: file and array names, a column, a class
// list); the topology reader checks a source against it, `hips run --help` and the designer list
// from it. The readers themselves live in backend/data (DataReaders.h).
#include <QList>
#include <QString>
#include <QStringList>

namespace hips {

struct DataOption {
    enum class Kind { Text, TextList, Number };
    QString name;
    Kind kind = Kind::Text;
    QString defaultValue;  // TextList: comma-separated; empty: none (the reader decides)
    QString help;
    // In training.evaluation_data, where the default names the training split's files: the test
    // split's (the master's test set is not the rows the parties train on).
    QString evaluationDefault = {};
};

struct DataFormatInfo {
    QString name;
    QString summary;
    QString pathHelp;  // what `path` must name: a folder, a file
    QList<DataOption> options;
    QStringList pathOptions;  // the options whose values name files or folders under `path` (data roots check them)
    bool classLabels = false;  // labels are classes only: no float targets (regression)

    const DataOption* option(const QString& name) const;
};

class DataFormatRegistry {
public:
    static const QList<DataFormatInfo>& all();
    static const DataFormatInfo* find(const QString& name);
    static QStringList names();
    static QString help();  // for --help: every format, its path and its options
};

}  // namespace hips
