#include "AvailabilityTrace.h"

#include <QFile>
#include <QFileInfo>
#include <algorithm>
#include <cmath>

namespace hips {

bool availabilityIsProbability(const QString& setting, double* p) {
    bool ok = false;
    const double value = setting.toDouble(&ok);
    if (p && ok) *p = value;
    return ok;
}

namespace {

// One line's interval; false when it is no "START END" (a blank or comment line gives none, true).
bool parseLine(QByteArray text, std::optional<std::pair<double, double>>* interval) {
    const qsizetype comment = text.indexOf('#');
    if (comment >= 0) text.truncate(comment);
    text = text.replace(',', ' ').simplified();
    interval->reset();
    if (text.isEmpty()) return true;
    const qsizetype space = text.indexOf(' ');
    if (space < 0 || text.indexOf(' ', space + 1) >= 0) return false;
    bool okOn = false, okOff = false;
    const double on = text.left(space).toDouble(&okOn), off = text.mid(space + 1).toDouble(&okOff);
    if (!okOn || !okOff || !std::isfinite(on) || !std::isfinite(off) || on < 0 || off <= on) return false;
    *interval = std::pair{on, off};
    return true;
}

}  // namespace

QString readAvailabilityTrace(const QString& path, OnIntervals* intervals) {
    const auto fail = [&path](const QString& why) { return QStringLiteral("availability trace %1: %2").arg(path, why); };
    QFile f(path);
    if (!QFileInfo::exists(path))
        return fail(QStringLiteral("does not exist; availability takes \"always\", a probability, or a trace file"));
    if (!QFileInfo(f).isFile()) return fail(QStringLiteral("is not a file; availability takes \"always\", a probability, or a trace file"));
    if (!f.open(QIODevice::ReadOnly)) return fail(f.errorString());
    const QByteArray bytes = f.read(kMaxTraceBytes + 1);
    if (bytes.size() > kMaxTraceBytes) return fail(QStringLiteral("is larger than 16 MiB"));
    OnIntervals out;
    int line = 0;
    // Line by line in place: a file of millions of short lines is not first cut into as many copies.
    for (qsizetype at = bytes.startsWith("\xEF\xBB\xBF") ? 3 : 0; at <= bytes.size();) {  // (a UTF-8 byte order mark skipped)
        qsizetype end = bytes.indexOf('\n', at);
        if (end < 0) end = bytes.size();
        ++line;
        std::optional<std::pair<double, double>> interval;
        if (!parseLine(QByteArray::fromRawData(bytes.constData() + at, end - at), &interval))
            return fail(QStringLiteral("line %1 is not \"START END\" (virtual seconds, 0 <= START < END)").arg(line));
        if (interval) out.push_back(*interval);
        at = end + 1;
    }
    if (out.empty()) return fail(QStringLiteral("holds no interval: its workers would never train"));
    std::sort(out.begin(), out.end());
    intervals->clear();  // overlapping or touching intervals as one
    for (const auto& i : out) {
        if (!intervals->empty() && i.first <= intervals->back().second)
            intervals->back().second = std::max(intervals->back().second, i.second);
        else intervals->push_back(i);
    }
    return {};
}

QString readAvailabilityTraces(const Topology& topology, QHash<QString, OnIntervals>* traces) {
    QHash<QString, OnIntervals> read;
    qint64 bytes = 0;
    for (qsizetype p = 0; p < topology.parties.size(); ++p)
        for (qsizetype g = 0; g < topology.parties[p].workers.size(); ++g) {
            const QString& setting = topology.parties[p].workers[g].availability;
            if (setting.isEmpty() || availabilityIsProbability(setting) || read.contains(setting)) continue;
            const QString where = QStringLiteral("$.parties[%1].roles.workers[%2].availability: ").arg(p).arg(g);
            if ((bytes += QFileInfo(setting).size()) > kMaxTracesBytes)
                return where + QStringLiteral("the availability traces together are larger than 256 MiB");
            OnIntervals intervals;
            if (const QString why = readAvailabilityTrace(setting, &intervals); !why.isEmpty()) return where + why;
            read.insert(setting, std::move(intervals));
        }
    if (traces) *traces = std::move(read);
    return {};
}

}  // namespace hips
