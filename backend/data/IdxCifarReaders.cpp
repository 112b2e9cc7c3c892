// The two classic byte-image formats: MNIST's IDX files and CIFAR-10's binary batches.
#include "DataReaders.h"

#include "ReaderSupport.h"

#include <QFileInfo>

namespace hips {

namespace {

constexpr qint64 kMaxIdxValues = qint64(1) << 40;  // beyond any data set; keeps the product from overflowing

struct IdxArray {
    std::vector<int64_t> shape;
    QByteArray file;  // the header and the values
    qint64 offset = 0;  // where the values begin
};

// The named file, or where it is missing, the same name without .gz (the downloads are often
// unpacked).
QString existingIdxFile(const QString& path) {
    const QString unpacked = path.endsWith(QLatin1String(".gz")) ? path.chopped(3) : QString();
    return !QFileInfo::exists(path) && !unpacked.isEmpty() && QFileInfo::exists(unpacked) ? unpacked : path;
}

uint32_t bigEndian32(const char* p) {
    const auto* b = reinterpret_cast<const uchar*>(p);
    return uint32_t(b[0]) << 24 | uint32_t(b[1]) << 16 | uint32_t(b[2]) << 8 | b[3];
}

// LeCun's IDX header: bytes 0, 0, a type (0x08: unsigned byte), the number of dimensions; then
// each dimension's size, big-endian uint32.
std::vector<int64_t> idxShape(const QByteArray& header, int dims, const QString& file) {
    if (header.size() < 4 + 4 * dims || header[0] != 0 || header[1] != 0 || header[2] != 0x08 || header[3] != dims)
        fail(QStringLiteral("%1 is not an IDX file of unsigned bytes with %2 dimensions (it begins %3); name the images "
                            "(...-idx3-ubyte) in the source's images option and the labels (...-idx1-ubyte) in labels")
                 .arg(file)
                 .arg(dims)
                 .arg(QString::fromLatin1(header.left(4).toHex(' '))));
    std::vector<int64_t> shape;
    qint64 values = 1;
    for (int d = 0; d < dims; ++d) {
        shape.push_back(bigEndian32(header.constData() + 4 + 4 * d));
        if (shape.back() != 0 && values > kMaxIdxValues / shape.back())
            fail(QStringLiteral("%1: its IDX header promises more values than any data set holds; the file is damaged").arg(file));
        values *= shape.back();
    }
    return shape;
}

IdxArray readIdxArray(const QString& path, int dims) {
    const QString file = existingIdxFile(path);
    const QByteArray bytes = readWholeFile(file);
    const bool gzip = bytes.startsWith("\x1f\x8b");  // by content: a raw file may still be named .gz
    const qint64 headerSize = 4 + 4 * dims;
    IdxArray a;
    a.shape = idxShape(gzip ? gunzipPrefix(bytes, file, headerSize) : bytes.left(headerSize), dims, file);
    qint64 values = 1;
    for (int64_t d : a.shape) values *= d;
    a.file = gzip ? gunzip(bytes, file, headerSize + values) : bytes;
    a.offset = headerSize;
    if (a.file.size() != headerSize + values)
        fail(QStringLiteral("%1: its IDX header promises %2 bytes of values, the file holds %3; download or unpack it again")
                 .arg(file)
                 .arg(values)
                 .arg(a.file.size() - headerSize));
    return a;
}

}  // namespace

SampleSet readIdx(const QString& imagesFile, const QString& labelsFile) {
    const IdxArray images = readIdxArray(imagesFile, 3), labels = readIdxArray(labelsFile, 1);
    if (images.shape[0] != labels.shape[0])
        fail(QStringLiteral("%1 holds %2 images and %3 %4 labels; give the labels file that belongs to the images")
                 .arg(imagesFile)
                 .arg(images.shape[0])
                 .arg(labelsFile)
                 .arg(labels.shape[0]));
    SampleSet set;
    set.sampleShape = {1, images.shape[1], images.shape[2]};
    const auto* pixels = reinterpret_cast<const uint8_t*>(images.file.constData()) + images.offset;
    set.bytes.assign(pixels, pixels + (images.file.size() - images.offset));
    const auto* classes = reinterpret_cast<const uint8_t*>(labels.file.constData()) + labels.offset;
    set.labels.assign(classes, classes + labels.shape[0]);
    return set;
}

// CIFAR-10's binary version: records of one label byte and a 3 x 32 x 32 image (R, G, B planes).
SampleSet readCifarBinary(const QStringList& files) {
    constexpr qsizetype kImage = 3 * 32 * 32, kRecord = 1 + kImage;
    if (files.isEmpty()) fail(QStringLiteral("no CIFAR-10 batch files to read; name them in the source's files option"));
    SampleSet set;
    set.sampleShape = {3, 32, 32};
    for (const QString& file : files) {
        const QByteArray bytes = readWholeFile(file);
        if (bytes.isEmpty() || bytes.size() % kRecord != 0)
            fail(QStringLiteral("%1 is not a CIFAR-10 binary batch: its %2 bytes are not a whole number of %3-byte records "
                                "(a label byte and 3 x 32 x 32 pixels; CIFAR-100's two label bytes are not read)")
                     .arg(file)
                     .arg(bytes.size())
                     .arg(kRecord));
        const auto* p = reinterpret_cast<const uint8_t*>(bytes.constData());
        const qsizetype records = bytes.size() / kRecord;
        set.bytes.reserve(set.bytes.size() + size_t(records * kImage));
        for (qsizetype r = 0; r < records; ++r) {
            set.labels.push_back(p[r * kRecord]);
            set.bytes.insert(set.bytes.end(), p + r * kRecord + 1, p + (r + 1) * kRecord);
        }
    }
    return set;
}

}  // namespace hips
