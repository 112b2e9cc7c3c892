#pragma once
// The csv reader's parts (CsvReader.cpp puts them together): splitting a line into fields,
// numbers, labels, the header, and a run of rows parsed on a thread of its own.
#include "DataReaders.h"

#include <QByteArray>
#include <QList>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace hips::csv {

struct Field {
    const char* begin;
    const char* end;
    bool doubledQuotes;  // quoted, with "" standing for a quote inside
};

struct Table {
    QString what;
    char delimiter;
    int columns;
    int labelColumn;
    QList<QByteArray> header;
    bool regression;  // the label column holds a target number, not a class
    QStringList classes;
    QList<QByteArray> classBytes;  // (owns what classIndex views)
    std::unordered_map<std::string_view, int64_t> classIndex;
};

// The header line of [begin, end) (after a UTF-8 byte order mark): its columns and the label's.
// Sets `rows` to where the next line begins. Throws DataError naming `what`:1.
Table tableOf(const char* begin, const char* end, const QString& labelColumn, QChar delimiter, const QString& what,
              const QStringList& classes, bool regression, const char** rows);
void checkDelimiter(QChar delimiter, const QString& what);
bool isBlankText(const char* begin, const char* end);

// Rows parsed on one thread, a block of whole lines at a time. Line numbers count from the first
// line given; `reserveFor`: the bytes of text to make room for (the first run's vectors take the
// others' rows too, so that they are copied once).
struct Rows {
    qint64 reserveFor = 0;
    int64_t lines = 0;
    std::vector<float> features;
    std::vector<int64_t> labels;
    std::vector<float> targets;  // a regression's label column
    int64_t errorLine = -1;  // with `error`; -1: not a line's (the file could not be read)
    QString error;

    void parse(const Table& t, const char* begin, const char* end);

private:
    std::vector<Field> m_fields;
    void parseRow(const Table& t);
};

// The runs' rows as one sample set, in order; the first error (by line) thrown as DataError.
SampleSet samplesOf(const Table& t, std::vector<Rows>& runs);

}  // namespace hips::csv
