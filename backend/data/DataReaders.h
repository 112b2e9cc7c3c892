#pragma once
// Readers for the parties' own data (DataFormatRegistry): torch-free, so that they can be fuzzed
// and so that only backend/train includes LibTorch. Every reader checks sizes and values before it
// trusts them (the files may come from anyone) and throws DataError naming the file (file:line
// for csv) and what to do.
#include "DataSource.h"

#include <QString>
#include <QStringList>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace hips {

class DataError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Samples in memory: N samples of `sampleShape` each (C x H x W for images, F for a feature
// vector), features either bytes (scaled to [0, 1] by the trainer) or float32 as stored.
struct SampleSet {
    enum class Type { UInt8, Float32 };
    Type type = Type::UInt8;
    std::vector<int64_t> sampleShape;
    std::vector<uint8_t> bytes;  // Type::UInt8: N * elements()
    std::vector<float> floats;  // Type::Float32: N * elements()
    std::vector<int64_t> labels;  // N class indices, each >= 0 (classification)
    std::vector<float> targets;  // regression: N * targetWidth finite numbers, sample by sample
    int64_t targetWidth = 0;  // the targets a sample has; 0: a classification set (labels)
    QStringList classNames;  // image-folder (and a source's `classes`): the name of each index
    QStringList featureNames;  // csv: each feature column's name (its header), in the order the features are

    bool regression() const { return targetWidth > 0; }
    int64_t size() const { return regression() ? int64_t(targets.size()) / targetWidth : int64_t(labels.size()); }
    int64_t elements() const;  // per sample: the product of sampleShape
    std::vector<int64_t> classCounts(int classes) const;  // samples of each class in [0, classes)
};

struct ReadOptions {
    // The model's input for image sources: every image is decoded to `channels` (1 grey, 3 RGB)
    // and resized to height x width; 0: keep the files' own size (then all must match).
    int channels = 0, height = 0, width = 0;
    // Where an image folder's decoded copy may be cached (keyed by the files' names, sizes and
    // modification times); empty: no cache.
    QString cacheDir;
    int threads = 0;  // decoding threads; 0: one per core
    // The host's list of the folders runs may read (DataRoots.h); empty: no list.
    QString dataRoots;
    // `task: regression`: the label column / y array holds float targets (SampleSet::targets).
    bool regression = false;
    // What the run's model takes, for the data check (checkSource, DataCheck.h): its sample shape
    // (empty: the data's own) and classes (a regression's outputs; 0: not checked).
    std::vector<int64_t> modelShape;
    int classes = 0;
};

// Reads `source` whole. Throws DataError.
SampleSet readSamples(const DataSource& source, const ReadOptions& options = {});

// What a source holds, counts only: "6000 samples of 1 x 28 x 28; by class: 0: 612, 1: 597, …"
// (the classes' names where it names them); a regression set's by its targets a sample, no values.
QString describeSamples(const SampleSet& set);

// Format-level entry points (readSamples dispatches to them), exposed for tests and fuzzing.
SampleSet readIdx(const QString& imagesFile, const QString& labelsFile);  // .gz or raw
SampleSet readCifarBinary(const QStringList& files);
// `regression`: y holds float targets, (N,) or (N, T), of any type the readers take.
SampleSet readNpyPair(const QString& xFile, const QString& yFile, bool regression = false);
SampleSet readNpz(const QString& file, const QString& xName, const QString& yName, bool regression = false);
// csv: labels are whole numbers >= 0, or with `classes` given, the classes' names too; with
// `regression`, the label column holds finite numbers (the targets).
SampleSet readCsv(const QString& file, const QString& labelColumn, QChar delimiter = QLatin1Char(','), const QStringList& classes = {},
                  bool regression = false);
SampleSet readImageFolder(const QString& folder, const QStringList& classes, const ReadOptions& options);

// In-memory parsers (the file readers share their code; the fuzzers drive them): `what` names the
// source in errors. (readCsv reads its file a block at a time rather than through parseCsv.)
SampleSet parseNpyPair(const QByteArray& x, const QByteArray& y, const QString& what, bool regression = false);
SampleSet parseCsv(const QByteArray& text, const QString& labelColumn, QChar delimiter, const QString& what,
                   const QStringList& classes = {}, bool regression = false);
// One .npy array of a type the readers take: float32 ('<f4'), uint8 ('|u1'), int32 ('<i4') or
// int64 ('<i8'), little-endian, C order. Any other type is refused naming the type found.
struct NpyArray {
    std::vector<int64_t> shape;
    SampleSet::Type type = SampleSet::Type::Float32;  // float32: `floats`; uint8: `bytes`; integers: see `integers`
    std::vector<uint8_t> bytes;
    std::vector<float> floats;
    std::vector<int64_t> integers;  // int32 and int64 arrays, and one-dimensional uint8 ones (labels), as int64
    int size = 0;  // bytes per element in the file
    QString descr;  // the file's dtype as NumPy writes it ('<f4', '|u1', ...)
};
NpyArray parseNpy(const QByteArray& bytes, const QString& what);
// The named members of a zip archive (stored or deflated), for npz.
QByteArray zipMember(const QByteArray& archive, const QString& name, const QString& what);

}  // namespace hips
