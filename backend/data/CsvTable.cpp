// Splitting, numbers and labels of the csv reader. No string is made per field: a million rows of
// 20 features are read in 0.6 s on two cores (bench_dataformats).
#include "CsvTable.h"

#include "ReaderSupport.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <cmath>
#include <cstring>

namespace hips::csv {

namespace {

QByteArray textOf(const Field& f) {
    QByteArray text(f.begin, f.end - f.begin);
    return f.doubledQuotes ? text.replace("\"\"", "\"") : text;
}

bool isBlank(char c) {
    return c == ' ' || c == '\t' || c == '\r';
}

// Splits the line at `p` (up to its '\n' or `end`) into fields, each trimmed of spaces and tabs; a
// field in double quotes loses them and may hold the delimiter ("" is a quote in it; a quoted
// line break is not read). One pass over the bytes. Sets `eol` to the line's end; returns why the
// line cannot be split, or nullptr.
const char* splitLine(const char* p, const char* end, char delimiter, std::vector<Field>* fields, const char** eol) {
    fields->clear();
    const auto ends = [&](const char* q) { return q == end || *q == '\n'; };
    for (;;) {
        while (!ends(p) && *p != delimiter && isBlank(*p)) ++p;
        Field f{p, p, false};
        const char* next = p;  // the delimiter after the field, or the line's end
        if (!ends(p) && *p == '"') {
            const char* q = p + 1;
            for (;; q += 2) {
                while (!ends(q) && *q != '"') ++q;
                if (ends(q)) return *eol = q, "a quote is not closed";
                if (ends(q + 1) || q[1] != '"') break;
                f.doubledQuotes = true;
            }
            f = {p + 1, q, f.doubledQuotes};
            for (next = q + 1; !ends(next) && *next != delimiter && isBlank(*next);) ++next;
            if (!ends(next) && *next != delimiter) {
                while (!ends(next)) ++next;
                return *eol = next, "text follows a closing quote";
            }
        } else {
            while (!ends(next) && *next != delimiter) ++next;
            f.end = next;
            while (f.end > f.begin && isBlank(f.end[-1])) --f.end;
        }
        fields->push_back(f);
        if (ends(next)) return *eol = next, nullptr;
        p = next + 1;
    }
}

// A decimal number of at most 19 significant digits and a power of ten within ±22, by Clinger's
// fast path (W. D. Clinger, "How to Read Floating Point Numbers Accurately", PLDI 1990): digits
// and power are exact doubles, so one multiplication or division rounds correctly. Rounding that
// double to float rounds the exact value the same way unless the double lies exactly halfway
// between two floats; then, and for anything else (more digits, subnormals, inf, nan), false.
// GCC 12's std::from_chars takes about 45 ns a float here, this about 10.
bool fastFloat(const char* p, const char* end, float* out) {
    static constexpr double kPowers[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                         1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const bool negative = p < end && *p == '-';
    p += negative;
    uint64_t digits = 0;
    int significant = 0, exponent = 0, seen = 0;
    for (; p < end && unsigned(*p - '0') < 10; ++p, ++seen) {
        digits = digits * 10 + uint64_t(*p - '0');
        significant += digits != 0;
    }
    if (p < end && *p == '.')
        for (++p; p < end && unsigned(*p - '0') < 10; ++p, ++seen, --exponent) {
            digits = digits * 10 + uint64_t(*p - '0');
            significant += digits != 0;
        }
    if (seen == 0 || significant > 19) return false;
    if (p < end && (*p == 'e' || *p == 'E')) {
        ++p;
        const bool down = p < end && *p == '-';
        p += p < end && (*p == '-' || *p == '+');
        int e = 0, eDigits = 0;
        for (; p < end && unsigned(*p - '0') < 10 && e < 1000; ++p, ++eDigits) e = e * 10 + (*p - '0');
        if (eDigits == 0) return false;
        exponent += down ? -e : e;
    }
    if (p != end || digits > (uint64_t(1) << 53) || exponent < -22 || exponent > 22) return false;
    const double value = exponent >= 0 ? double(digits) * kPowers[exponent] : double(digits) / kPowers[-exponent];
    uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    if ((bits & 0x1FFFFFFF) == 0x10000000 || (value != 0 && (value < 1.2e-38 || value > 3.4e38))) return false;
    *out = negative ? -float(value) : float(value);
    return true;
}

// The field as a double (from_chars's syntax, a leading '+' too); none when it is not a number.
std::optional<double> wideValue(const Field& f) {
    const char* b = f.begin;
    if (b < f.end && *b == '+' && f.end - b > 1 && b[1] != '-') ++b;
    double value = 0;
    const auto [p, ec] = std::from_chars(b, f.end, value);
    return ec == std::errc() && p == f.end && b != f.end ? std::optional(value) : std::nullopt;
}

bool parseFeature(const Field& f, float* out) {
    if (fastFloat(f.begin, f.end, out)) return true;
    const char* b = f.begin;
    if (b < f.end && *b == '+' && f.end - b > 1 && b[1] != '-') ++b;
    const auto [p, ec] = std::from_chars(b, f.end, *out);
    if (ec == std::errc() && p == f.end && b != f.end) return std::isfinite(*out);
    // float's from_chars refuses a value that rounds to 0 (1e-50, as a float64 export holds) as
    // out of range: what a float makes of it, through a double (correctly rounded above).
    const std::optional<double> value = ec == std::errc::result_out_of_range ? wideValue(f) : std::nullopt;
    if (!value || !std::isfinite(float(*value))) return false;
    *out = float(*value);
    return true;
}

// A label: one of the source's classes by name, else a class index (below the classes' count
// where the source names them). Returns why not, or an empty string.
QString parseLabel(const Table& t, const Field& f, int64_t* out) {
    if (!t.classIndex.empty()) {
        const QByteArray unescaped = f.doubledQuotes ? textOf(f) : QByteArray();
        const auto it = f.doubledQuotes ? t.classIndex.find(std::string_view(unescaped.constData(), size_t(unescaped.size())))
                                        : t.classIndex.find(std::string_view(f.begin, size_t(f.end - f.begin)));
        if (it != t.classIndex.end()) {
            *out = it->second;
            return {};
        }
    }
    const auto [p, ec] = std::from_chars(f.begin, f.end, *out);
    const bool number = ec == std::errc() && p == f.end && f.begin != f.end;
    if (number && *out >= 0 && (t.classes.isEmpty() || *out < t.classes.size())) return {};
    if (number && *out >= 0)
        return QStringLiteral("label %1 is not a class index: the source names %2 classes (%3)")
            .arg(*out)
            .arg(t.classes.size())
            .arg(t.classes.join(QStringLiteral(", ")));
    if (t.classes.isEmpty())
        return QStringLiteral("label '%1' is not a whole number >= 0; to use class names, list them in the source's classes option")
            .arg(quoted(f.begin, f.end));
    return QStringLiteral("label '%1' is neither one of the source's classes (%2) nor a class index")
        .arg(quoted(f.begin, f.end), t.classes.join(QStringLiteral(", ")));
}

}  // namespace

void Rows::parseRow(const Table& t) {
    for (int c = 0; c < t.columns; ++c) {
        const Field& f = m_fields[size_t(c)];
        if (c == t.labelColumn && t.regression) {
            float target = 0;
            if (!parseFeature(f, &target))
                error = QStringLiteral("the target column '%1' holds '%2', not a finite number")
                            .arg(QString::fromUtf8(t.header[c]), quoted(f.begin, f.end));
            targets.push_back(target);
        } else if (c == t.labelColumn) {
            int64_t label = 0;
            error = parseLabel(t, f, &label);
            labels.push_back(label);
        } else if (float v = 0; parseFeature(f, &v)) {
            features.push_back(v);
        } else {
            const std::optional<double> wide = wideValue(f);
            error = QStringLiteral("column '%1' holds '%2', %3")
                        .arg(QString::fromUtf8(t.header[c]), quoted(f.begin, f.end),
                             wide && std::isfinite(*wide) ? QStringLiteral("beyond a float32's range (±3.4e38)")
                                                          : QStringLiteral("not a finite number"));
        }
        if (!error.isEmpty()) return;
    }
}

void Rows::parse(const Table& t, const char* begin, const char* end) {
    for (const char* p = begin; p < end && error.isEmpty(); ++lines) {
        const char* eol = end;
        const char* why = splitLine(p, end, t.delimiter, &m_fields, &eol);
        if (labels.empty() && targets.empty() &&
            features.capacity() == 0) {  // room for as many rows as this one's length suggests, and some
            const size_t rows = size_t(reserveFor) / std::max(size_t(eol - p + 1), size_t(2 * t.columns)) * 5 / 4 + 16;
            features.reserve(rows * size_t(t.columns - 1));
            (t.regression ? targets.reserve(rows) : labels.reserve(rows));
        }
        if (why) error = QString::fromLatin1(why);
        else if (m_fields.size() == 1 && m_fields[0].begin == m_fields[0].end && p + 1 >= eol)
            ;  // a blank line (a quoted empty field is not one: "" spans two bytes)
        else if (int(m_fields.size()) != t.columns)
            error = QStringLiteral("%1 fields where the header has %2; every row needs a value in each column")
                        .arg(m_fields.size())
                        .arg(t.columns);
        else parseRow(t);
        if (!error.isEmpty()) errorLine = lines;
        p = eol + 1;
    }
}

bool isBlankText(const char* begin, const char* end) {
    return std::all_of(begin, end, [](char c) { return isBlank(c) || c == '\n'; });
}

Table tableOf(const char* begin, const char* end, const QString& labelColumn, QChar delimiter, const QString& what,
              const QStringList& classes, bool regression, const char** rows) {
    if (end - begin >= 3 && std::memcmp(begin, "\xEF\xBB\xBF", 3) == 0) begin += 3;  // a UTF-8 byte order mark, as spreadsheets write
    Table t{what, char(delimiter.toLatin1()), 0, 0, {}, regression, classes, {}, {}};
    std::vector<Field> fields;
    const char* eol = end;
    if (const char* why = splitLine(begin, end, t.delimiter, &fields, &eol)) fail(QStringLiteral("%1:1: %2").arg(what, QLatin1String(why)));
    *rows = eol < end ? eol + 1 : end;
    for (const Field& f : fields) t.header << textOf(f);
    t.columns = int(t.header.size());
    t.labelColumn = int(t.header.indexOf(labelColumn.toUtf8()));
    if (t.labelColumn < 0) {
        QStringList names;
        for (const QByteArray& h : t.header) names << QString::fromUtf8(h);
        fail(QStringLiteral("%1:1: no column '%2' for the labels; the header has: %3 (set the source's label option to one of them)")
                 .arg(what, labelColumn, names.join(QStringLiteral(", "))));
    }
    if (t.columns < 2) fail(QStringLiteral("%1:1: no feature column beside the label column '%2'").arg(what, labelColumn));
    for (const QString& c : classes) t.classBytes << c.toUtf8();
    for (int i = 0; i < t.classBytes.size(); ++i)
        t.classIndex.emplace(std::string_view(t.classBytes[i].constData(), size_t(t.classBytes[i].size())), i);
    return t;
}

void checkDelimiter(QChar delimiter, const QString& what) {
    const char c = delimiter.toLatin1();
    if (delimiter.unicode() > 0x7f || c == 0 || c == '"' || c == '\n' || c == '\r')
        fail(QStringLiteral("%1: the delimiter '%2' cannot separate csv fields; give one ASCII character such as , ; or a tab")
                 .arg(what, QString(delimiter)));
}

SampleSet samplesOf(const Table& t, std::vector<Rows>& runs) {
    int64_t line = 2;  // the first row's
    size_t samples = 0;
    for (const Rows& r : runs) {
        if (!r.error.isEmpty() && r.errorLine < 0) throw DataError(r.error.toStdString());
        if (!r.error.isEmpty()) fail(QStringLiteral("%1:%2: %3").arg(t.what).arg(line + r.errorLine).arg(r.error));
        line += r.lines;
        samples += t.regression ? r.targets.size() : r.labels.size();
    }
    SampleSet set;
    set.type = SampleSet::Type::Float32;
    set.sampleShape = {int64_t(t.columns - 1)};
    set.classNames = t.classes;
    for (int c = 0; c < t.columns; ++c)
        if (c != t.labelColumn) set.featureNames << QString::fromUtf8(t.header[c]);
    // The first run's vectors have room for every row (reserved, not yet touched): the others'
    // rows are copied after its own, and nothing is copied twice.
    set.labels = std::move(runs[0].labels);
    set.targets = std::move(runs[0].targets);
    set.targetWidth = t.regression ? 1 : 0;
    set.floats = std::move(runs[0].features);
    (t.regression ? set.targets.reserve(samples) : set.labels.reserve(samples));
    set.floats.reserve(samples * size_t(t.columns - 1));
    for (size_t i = 1; i < runs.size(); ++i) {
        set.labels.insert(set.labels.end(), runs[i].labels.begin(), runs[i].labels.end());
        set.targets.insert(set.targets.end(), runs[i].targets.begin(), runs[i].targets.end());
        set.floats.insert(set.floats.end(), runs[i].features.begin(), runs[i].features.end());
    }
    return set;
}

}  // namespace hips::csv
