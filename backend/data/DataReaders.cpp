// readSamples: a source's format picks its reader, and the source's options (or the registry's
// defaults) its files.
#include "DataReaders.h"

#include "DataFormatRegistry.h"
#include "DataRoots.h"
#include "ReaderSupport.h"

#include <QDir>
#include <QFileInfo>
#include <algorithm>
#include <map>

namespace hips {

namespace {

// An option's value: the source's own, or the registry's default where it gives none.
QString optionOf(const DataSource& s, const QString& name) {
    const QString own = s.option(name);
    if (!own.isEmpty()) return own;
    const DataFormatInfo* format = DataFormatRegistry::find(s.format);
    const DataOption* option = format ? format->option(name) : nullptr;
    return option ? option->defaultValue : QString();
}

// A file an option names, relative to the source's folder (an absolute name stays as it is).
QString fileOption(const DataSource& s, const QString& name) {
    return QDir(s.path).filePath(optionOf(s, name));
}

void expectFolder(const DataSource& s, bool folder) {
    if (QFileInfo(s.path).isDir() == folder) return;
    const DataFormatInfo* format = DataFormatRegistry::find(s.format);
    fail(QStringLiteral("%1 is %2; for the %3 format the path names %4")
             .arg(s.path, folder ? QStringLiteral("not a folder") : QStringLiteral("a folder"), s.format, format->pathHelp));
}

// Every file or folder a source reads: its path, and the files its options name (which may be
// absolute), for the host's data roots.
QStringList pathsRead(const DataSource& s) {
    QStringList out{s.path};
    const auto each = [&](const QString& option) {
        for (const QString& name : optionOf(s, option).split(QLatin1Char(','), Qt::SkipEmptyParts))
            out << QDir(s.path).filePath(name.trimmed());
    };
    if (const DataFormatInfo* format = DataFormatRegistry::find(s.format))
        for (const QString& option : format->pathOptions) each(option);
    return out;
}

SampleSet readIdxSource(const DataSource& s, const ReadOptions&) {
    expectFolder(s, true);
    return readIdx(fileOption(s, QStringLiteral("images")), fileOption(s, QStringLiteral("labels")));
}

SampleSet readCifarSource(const DataSource& s, const ReadOptions&) {
    if (QFileInfo(s.path).isFile()) return readCifarBinary({s.path});
    QStringList files;
    for (const QString& name : optionOf(s, QStringLiteral("files")).split(QLatin1Char(','), Qt::SkipEmptyParts))
        files << QDir(s.path).filePath(name.trimmed());
    return readCifarBinary(files);
}

SampleSet readNpySource(const DataSource& s, const ReadOptions& options) {
    expectFolder(s, true);
    return readNpyPair(fileOption(s, QStringLiteral("x")), fileOption(s, QStringLiteral("y")), options.regression);
}

SampleSet readNpzSource(const DataSource& s, const ReadOptions& options) {
    expectFolder(s, false);
    return readNpz(s.path, optionOf(s, QStringLiteral("x")), optionOf(s, QStringLiteral("y")), options.regression);
}

SampleSet readCsvSource(const DataSource& s, const ReadOptions& options) {
    expectFolder(s, false);
    const QString delimiter = optionOf(s, QStringLiteral("delimiter"));
    if (delimiter.size() != 1)
        fail(QStringLiteral("the csv source %1 has delimiter '%2'; give one character (a tab: \"\\t\" in the topology's JSON)")
                 .arg(s.path, delimiter));
    return readCsv(s.path, optionOf(s, QStringLiteral("label")), delimiter.at(0), s.listOption(QStringLiteral("classes")),
                   options.regression);
}

SampleSet readImageFolderSource(const DataSource& s, const ReadOptions& options) {
    expectFolder(s, true);
    return readImageFolder(s.path, s.listOption(QStringLiteral("classes")), options);
}

using SourceReader = SampleSet (*)(const DataSource&, const ReadOptions&);

SourceReader readerOf(const QString& format) {
    static const QList<std::pair<QString, SourceReader>> readers{
        {QStringLiteral("idx"), readIdxSource},
        {QStringLiteral("cifar-binary"), readCifarSource},
        {QStringLiteral("image-folder"), readImageFolderSource},
        {QStringLiteral("npy"), readNpySource},
        {QStringLiteral("npz"), readNpzSource},
        {QStringLiteral("csv"), readCsvSource},
    };
    for (const auto& [name, reader] : readers)
        if (name == format) return reader;
    return nullptr;
}

}  // namespace

int64_t SampleSet::elements() const {
    int64_t n = 1;
    for (int64_t d : sampleShape) n *= d;
    return n;
}

QString describeSamples(const SampleSet& set) {
    QStringList dims;
    for (int64_t d : set.sampleShape) dims << QString::number(d);
    if (set.regression())  // (no range or mean: an extreme is one sample's value)
        return QStringLiteral("%1 samples of %2; %3 target(s) a sample")
            .arg(set.size())
            .arg(dims.join(QStringLiteral(" x ")))
            .arg(set.targetWidth);
    // The labels there are (a table's ID column read as labels holds 10⁹: a count for each label
    // up to the largest filled memory), and the named classes, empty ones too.
    std::map<int64_t, int64_t> byLabel;
    for (int64_t label : set.labels) ++byLabel[label];
    for (qsizetype c = 0; c < set.classNames.size(); ++c) byLabel.try_emplace(c, 0);
    constexpr size_t kMostShown = 100;
    QStringList classes;
    for (const auto& [label, count] : byLabel) {
        if (size_t(classes.size()) == kMostShown) {
            classes << QStringLiteral("and %1 more labels, the largest %2").arg(byLabel.size() - kMostShown).arg(byLabel.rbegin()->first);
            break;
        }
        classes << QStringLiteral("%1: %2")
                       .arg(label >= 0 && label < set.classNames.size() ? set.classNames[qsizetype(label)] : QString::number(label))
                       .arg(count);
    }
    return QStringLiteral("%1 samples of %2; by class: %3")
        .arg(set.size())
        .arg(dims.join(QStringLiteral(" x ")), classes.join(QStringLiteral(", ")));
}

std::vector<int64_t> SampleSet::classCounts(int classes) const {
    std::vector<int64_t> counts(size_t(std::max(classes, 0)), 0);
    for (int64_t label : labels)
        if (label >= 0 && label < classes) ++counts[size_t(label)];
    return counts;
}

SampleSet readSamples(const DataSource& source, const ReadOptions& options) {
    const SourceReader reader = readerOf(source.format);
    if (!reader || !DataFormatRegistry::find(source.format))
        fail(QStringLiteral("'%1' is not a data format; use one of: %2")
                 .arg(source.format, DataFormatRegistry::names().join(QStringLiteral(", "))));
    if (source.path.isEmpty()) fail(QStringLiteral("the %1 data source has no path; set its path").arg(source.format));
    if (!options.dataRoots.isEmpty())
        for (const QString& path : pathsRead(source))
            if (const QString problem = dataRootsProblem(path, options.dataRoots); !problem.isEmpty()) fail(problem);
    if (!QFileInfo::exists(source.path)) fail(QStringLiteral("%1 does not exist; check the data source's path").arg(source.path));
    if (options.regression && DataFormatRegistry::find(source.format)->classLabels) {
        QStringList floats;
        for (const DataFormatInfo& f : DataFormatRegistry::all())
            if (!f.classLabels) floats << f.name;
        fail(QStringLiteral("%1 holds class labels, and a regression learns float targets; give it as %2")
                 .arg(source.path, floats.join(QStringLiteral(", "))));
    }
    SampleSet set = reader(source, options);
    if (set.classNames.isEmpty()) set.classNames = source.listOption(QStringLiteral("classes"));
    return set;
}

}  // namespace hips
