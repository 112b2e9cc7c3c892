// A csv table: a header row naming the columns, a label column, numeric feature columns
// (CsvTable.h parses them). The rows are cut into runs of whole lines, one a thread. A file is
// read a block at a time by the thread that parses it: the table is never in memory whole (a
// 200 MB table cost as much to copy in and touch as to parse).
#include "CsvTable.h"
#include "ReaderSupport.h"

#include <algorithm>
#include <cstring>
#include <thread>

namespace hips {

namespace {

constexpr qint64 kMinRun = qint64(1) << 19;  // smaller tables are parsed on one thread
constexpr qint64 kBlock = qint64(1) << 20;  // a file's bytes read at once

int runsFor(qint64 bytes) {
    return int(std::clamp<qint64>(bytes / kMinRun, 1, std::clamp(int(std::thread::hardware_concurrency()), 1, 8)));
}

// Runs `parse(i)` for each run on a thread of its own (the first on this one).
template <typename Parse>
void parseRuns(std::vector<csv::Rows>& runs, const Parse& parse) {
    std::vector<std::thread> pool;
    for (size_t i = 1; i < runs.size(); ++i) pool.emplace_back([&, i] { parse(i); });
    parse(0);
    for (std::thread& t : pool) t.join();
}

// Parses [from, to) of `file` (whole lines) a block at a time; a line begun at a block's end is
// kept for the next.
void parseFileRun(const csv::Table& t, const ReadOnlyFile& file, qint64 from, qint64 to, csv::Rows* rows) {
    std::vector<char> buffer(size_t(std::min(kBlock, std::max<qint64>(to - from, 1))));
    size_t kept = 0;
    try {
        for (qint64 at = from; at < to && rows->error.isEmpty();) {
            if (kept == buffer.size()) buffer.resize(2 * buffer.size());  // a line longer than a block
            const qint64 n = file.readAt(buffer.data() + kept, at, std::min<qint64>(qint64(buffer.size() - kept), to - at));
            if (n <= 0) fail(QStringLiteral("%1 changed while it was read; read it again once it is written whole").arg(file.path()));
            at += n;
            const char* begin = buffer.data();
            const char* end = begin + kept + size_t(n);
            const char* cut = end;  // after the block's last whole line
            if (at < to) {
                while (cut > begin && cut[-1] != '\n') --cut;
            }
            rows->parse(t, begin, cut);
            kept = size_t(end - cut);
            std::memmove(buffer.data(), cut, kept);
        }
    } catch (const DataError& e) {
        rows->error = QString::fromStdString(e.what());
        rows->errorLine = -1;
    }
}

// The header line of `file`, with its '\n'.
QByteArray headerOf(const ReadOnlyFile& file) {
    QByteArray header(file.lineEndAfter(0), Qt::Uninitialized);
    header.resize(file.readAt(header.data(), 0, header.size()));
    return header;
}

}  // namespace

SampleSet parseCsv(const QByteArray& text, const QString& labelColumn, QChar delimiter, const QString& what, const QStringList& classes,
                   bool regression) {
    csv::checkDelimiter(delimiter, what);
    const char* end = text.constData() + text.size();
    if (csv::isBlankText(text.constData(), end))
        fail(QStringLiteral("%1 is empty; a csv source needs a header row and a row a sample").arg(what));
    const char* rows = nullptr;
    const csv::Table table = csv::tableOf(text.constData(), end, labelColumn, delimiter, what, classes, regression, &rows);
    std::vector<csv::Rows> runs(static_cast<size_t>(runsFor(end - rows)));
    std::vector<const char*> cuts{rows};
    for (size_t i = 1; i <= runs.size(); ++i) {
        const char* cut = i == runs.size() ? end : std::max(cuts.back(), rows + (end - rows) * qint64(i) / qint64(runs.size()));
        const char* eol = cut < end ? static_cast<const char*>(std::memchr(cut, '\n', size_t(end - cut))) : nullptr;
        cuts.push_back(eol ? eol + 1 : end);
        runs[i - 1].reserveFor = i == 1 ? end - rows : cuts[i] - cuts[i - 1];
    }
    parseRuns(runs, [&](size_t i) { runs[i].parse(table, cuts[i], cuts[i + 1]); });
    return csv::samplesOf(table, runs);
}

SampleSet readCsv(const QString& path, const QString& labelColumn, QChar delimiter, const QStringList& classes, bool regression) {
    csv::checkDelimiter(delimiter, path);
    const ReadOnlyFile file(path);
    const QByteArray header = headerOf(file);
    if (csv::isBlankText(header.constData(), header.constEnd()) && header.size() == file.size())
        fail(QStringLiteral("%1 is empty; a csv source needs a header row and a row a sample").arg(path));
    const char* ignored = nullptr;
    const csv::Table table =
        csv::tableOf(header.constData(), header.constEnd(), labelColumn, delimiter, path, classes, regression, &ignored);
    const qint64 first = header.size(), size = file.size();
    std::vector<csv::Rows> runs(static_cast<size_t>(runsFor(size - first)));
    std::vector<qint64> cuts{first};
    for (size_t i = 1; i <= runs.size(); ++i) {
        const qint64 cut = i == runs.size() ? size : std::max(cuts.back(), first + (size - first) * qint64(i) / qint64(runs.size()));
        cuts.push_back(cut >= size ? size : file.lineEndAfter(cut));
        runs[i - 1].reserveFor = i == 1 ? size - first : cuts[i] - cuts[i - 1];
    }
    parseRuns(runs, [&](size_t i) { parseFileRun(table, file, cuts[i], cuts[i + 1], &runs[i]); });
    return csv::samplesOf(table, runs);
}

}  // namespace hips
