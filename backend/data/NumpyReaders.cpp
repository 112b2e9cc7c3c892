// NumPy's .npy format (versions 1-3): "\x93NUMPY", major, minor, a header length (2 bytes little-
// endian, 4 from version 2), a Python dict literal {'descr': ..., 'fortran_order': ...,
// 'shape': (...)} padded with spaces, then the array's bytes.
// https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
// An .npz archive is a zip of such files, one per array (numpy.savez).
#include "DataReaders.h"

#include "ReaderSupport.h"

#include <QRegularExpression>
#include <QtEndian>
#include <algorithm>
#include <cmath>
#include <cstring>

static_assert(Q_BYTE_ORDER == Q_LITTLE_ENDIAN, "the .npy readers copy little-endian values as they are");

namespace hips {

namespace {

constexpr int64_t kMaxElements = int64_t(1) << 40;  // beyond any data set; keeps the product from overflowing
const QString kAccepted = QStringLiteral(
    "the features must be float32 ('<f4') or uint8 ('|u1'), the labels int64 ('<i8'), "
    "int32 ('<i4') or uint8 ('|u1')");

// The text of `key`'s value in the header dict: `pattern` matches it.
QString headerValue(const QString& header, const char* key, const char* pattern, const QString& what) {
    const QRegularExpression re(QStringLiteral("'%1'\\s*:\\s*%2").arg(QLatin1String(key), QLatin1String(pattern)));
    const QRegularExpressionMatch m = re.match(header);
    if (!m.hasMatch()) {
        const QByteArray text = header.toUtf8();
        fail(QStringLiteral("%1: its .npy header has no plain '%2' (it reads %3); save the array with numpy.save")
                 .arg(what, QLatin1String(key), quoted(text.constBegin(), text.constEnd())));
    }
    return m.captured(1);
}

std::vector<int64_t> shapeOf(const QString& tuple, const QString& what) {
    std::vector<int64_t> shape;
    int64_t count = 1;
    for (QString part : tuple.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        part = part.trimmed();
        if (part.endsWith(QLatin1Char('L'))) part.chop(1);  // Python 2 wrote 3L
        bool ok = false;
        const qlonglong d = part.toLongLong(&ok);
        if (!ok || d < 0) fail(QStringLiteral("%1: its .npy shape (%2) is not a tuple of sizes").arg(what, tuple));
        if (d > 0 && count > kMaxElements / d) fail(QStringLiteral("%1: its .npy shape (%2) is larger than any data set").arg(what, tuple));
        count *= std::max<qlonglong>(d, 1);
        shape.push_back(d);
    }
    if (shape.empty()) fail(QStringLiteral("%1 holds a single value; a .npy array of samples needs at least one dimension").arg(what));
    return shape;
}

int elementSize(const QString& descr, const QString& what) {
    if (descr == QLatin1String("<f4") || descr == QLatin1String("<i4")) return 4;
    if (descr == QLatin1String("<i8")) return 8;
    if (descr == QLatin1String("|u1") || descr == QLatin1String("<u1") || descr == QLatin1String("u1")) return 1;
    const QString order = descr.startsWith(QLatin1Char('>')) ? QStringLiteral(" (big-endian)") : QString();
    fail(QStringLiteral("%1 holds '%2' values%3; %4, little-endian (convert with astype, e.g. x.astype(numpy.float32))")
             .arg(what, descr, order, kAccepted));
}

// The header dict's text, after the magic, version and length, checked against the buffer.
QString headerText(const QByteArray& bytes, const QString& what, qint64* dataStart) {
    if (bytes.size() < 10 || std::memcmp(bytes.constData(), "\x93NUMPY", 6) != 0)
        fail(QStringLiteral("%1 is not a NumPy .npy file (no \\x93NUMPY at its start); save the array with numpy.save").arg(what));
    const auto* p = reinterpret_cast<const uchar*>(bytes.constData());
    const int major = p[6];
    if (major < 1 || major > 3) fail(QStringLiteral("%1: .npy format version %2 is not one this reads (1 to 3)").arg(what).arg(major));
    const qint64 lengthBytes = major == 1 ? 2 : 4;
    if (bytes.size() < 8 + lengthBytes) fail(QStringLiteral("%1: its .npy header is cut short").arg(what));
    const qint64 headerLength = major == 1 ? qint64(qFromLittleEndian<quint16>(p + 8)) : qint64(qFromLittleEndian<quint32>(p + 8));
    *dataStart = 8 + lengthBytes + headerLength;
    if (*dataStart > bytes.size()) fail(QStringLiteral("%1: its .npy header is longer than the file; the file is cut short").arg(what));
    const char* header = bytes.constData() + 8 + lengthBytes;
    return major == 3 ? QString::fromUtf8(header, qsizetype(headerLength)) : QString::fromLatin1(header, qsizetype(headerLength));
}

void copyValues(const char* data, int64_t count, NpyArray* a) {
    if (a->descr == QLatin1String("<f4")) {
        a->type = SampleSet::Type::Float32;
        a->floats.resize(size_t(count));
        if (count > 0) std::memcpy(a->floats.data(), data, size_t(count) * 4);
    } else if (a->size == 1) {
        a->type = SampleSet::Type::UInt8;
        a->bytes.assign(reinterpret_cast<const uint8_t*>(data), reinterpret_cast<const uint8_t*>(data) + count);
        if (a->shape.size() == 1) a->integers.assign(a->bytes.begin(), a->bytes.end());
    } else {
        a->integers.resize(size_t(count));
        for (int64_t i = 0; i < count; ++i)
            a->integers[size_t(i)] = a->size == 8 ? qFromLittleEndian<qint64>(data + 8 * i) : qFromLittleEndian<qint32>(data + 4 * i);
    }
}

bool isFloat(const NpyArray& a) {
    return a.descr == QLatin1String("<f4");
}

QString shapeText(const std::vector<int64_t>& shape) {
    QStringList dims;
    for (int64_t d : shape) dims << QString::number(d);
    return dims.join(QStringLiteral(", ")) + (shape.size() == 1 ? QStringLiteral(",") : QString());
}

// The labels of an (N,) array or an (N, 1) column (the same labels), as int64.
std::vector<int64_t> labelValues(const NpyArray& y, int64_t samples, const QString& yWhat) {
    const bool column = y.shape.size() == 1 || (y.shape.size() == 2 && y.shape[1] == 1);
    if (!column || y.shape[0] != samples)
        fail(QStringLiteral("%1 holds labels of shape (%2) for %3 samples; give one label a sample, shape (%3,)")
                 .arg(yWhat, shapeText(y.shape))
                 .arg(samples));
    std::vector<int64_t> labels = y.size == 1 ? std::vector<int64_t>(y.bytes.begin(), y.bytes.end()) : y.integers;
    for (size_t i = 0; i < labels.size(); ++i)
        if (labels[i] < 0)
            fail(QStringLiteral("%1: label %2 of sample %3 is negative; labels are class indices from 0").arg(yWhat).arg(labels[i]).arg(i));
    return labels;
}

// A regression's targets: an (N,) or (N, T) array of finite numbers, as float.
std::vector<float> targetValues(const NpyArray& y, int64_t samples, const QString& yWhat, int64_t* width) {
    if (y.shape[0] != samples || y.shape.size() > 2 || (y.shape.size() == 2 && y.shape[1] < 1))
        fail(QStringLiteral("%1 holds targets of shape (%2) for %3 samples; give (%3,) or (%3, targets)")
                 .arg(yWhat, shapeText(y.shape))
                 .arg(samples));
    *width = y.shape.size() == 2 ? y.shape[1] : 1;
    std::vector<float> out = isFloat(y) ? y.floats : std::vector<float>();
    if (!isFloat(y)) {
        out.reserve(y.size == 1 ? y.bytes.size() : y.integers.size());
        if (y.size == 1) out.assign(y.bytes.begin(), y.bytes.end());
        else
            for (int64_t v : y.integers) out.push_back(float(v));
    }
    for (size_t i = 0; i < out.size(); ++i)
        if (!std::isfinite(out[i]))
            fail(
                QStringLiteral("%1: target %2 of sample %3 is not a finite number").arg(yWhat).arg(double(out[i])).arg(i / size_t(*width)));
    return out;
}

// Features (float32 or uint8, N x ...) and labels (whole numbers, N) or, for a regression,
// targets (numbers, N or N x T) as samples.
SampleSet samplesOf(NpyArray x, const NpyArray& y, const QString& xWhat, const QString& yWhat, bool regression) {
    if (!isFloat(x) && x.size != 1)
        fail(QStringLiteral("%1 holds '%2' features; %3 (pixels of 0 to 255: x.astype(numpy.uint8), which is read as 0 to 1, as "
                            "the other formats' images are; other features: x.astype(numpy.float32))")
                 .arg(xWhat, x.descr, kAccepted));
    if (isFloat(y) && !regression)
        fail(QStringLiteral("%1 holds '%2' labels; %3 (convert with y.astype(numpy.int64)), or train a regression "
                            "(training.task \"regression\")")
                 .arg(yWhat, y.descr, kAccepted));
    SampleSet set;
    if (regression) set.targets = targetValues(y, x.shape[0], yWhat, &set.targetWidth);
    else set.labels = labelValues(y, x.shape[0], yWhat);
    set.type = x.type;
    set.sampleShape.assign(x.shape.begin() + 1, x.shape.end());
    if (set.sampleShape.empty()) set.sampleShape = {1};
    // (A frame's missing values saved as NaN trained to a NaN loss, its pushes refused far from the cause.)
    const size_t perSample = x.floats.empty() ? 1 : x.floats.size() / size_t(std::max<int64_t>(1, x.shape[0]));
    for (size_t i = 0; i < x.floats.size(); ++i)
        if (!std::isfinite(x.floats[i]))
            fail(QStringLiteral("%1: feature %2 of sample %3 is not a finite number (%4); fill or drop missing values before saving")
                     .arg(xWhat)
                     .arg(i % std::max<size_t>(1, perSample))
                     .arg(i / std::max<size_t>(1, perSample))
                     .arg(double(x.floats[i])));
    set.bytes = std::move(x.bytes);
    set.floats = std::move(x.floats);
    return set;
}

QString npyName(const QString& name) {
    return name.endsWith(QLatin1String(".npy")) ? name : name + QStringLiteral(".npy");
}

}  // namespace

NpyArray parseNpy(const QByteArray& bytes, const QString& what) {
    qint64 dataStart = 0;
    const QString header = headerText(bytes, what, &dataStart);
    NpyArray a;
    a.descr = headerValue(header, "descr", "'([^']*)'", what);
    if (headerValue(header, "fortran_order", "(True|False)", what) != QLatin1String("False"))
        fail(QStringLiteral("%1 is stored in Fortran order; save it in C order (numpy.save(f, numpy.ascontiguousarray(a)))").arg(what));
    a.shape = shapeOf(headerValue(header, "shape", "\\(([^)]*)\\)", what), what);
    a.size = elementSize(a.descr, what);
    int64_t count = 1;
    for (int64_t d : a.shape) count *= d;
    if (bytes.size() - dataStart != count * a.size)
        fail(QStringLiteral("%1: its header promises %2 bytes of data, the file holds %3; the file is cut or damaged")
                 .arg(what)
                 .arg(count * a.size)
                 .arg(bytes.size() - dataStart));
    copyValues(bytes.constData() + dataStart, count, &a);
    return a;
}

SampleSet parseNpyPair(const QByteArray& x, const QByteArray& y, const QString& what, bool regression) {
    const QString xWhat = what + QStringLiteral(" (x)"), yWhat = what + QStringLiteral(" (y)");
    return samplesOf(parseNpy(x, xWhat), parseNpy(y, yWhat), xWhat, yWhat, regression);
}

SampleSet readNpyPair(const QString& xFile, const QString& yFile, bool regression) {
    NpyArray x = parseNpy(readWholeFile(xFile), xFile);
    return samplesOf(std::move(x), parseNpy(readWholeFile(yFile), yFile), xFile, yFile, regression);
}

SampleSet readNpz(const QString& file, const QString& xName, const QString& yName, bool regression) {
    const QByteArray archive = readWholeFile(file);
    const QString xWhat = file + QLatin1Char(':') + npyName(xName), yWhat = file + QLatin1Char(':') + npyName(yName);
    NpyArray x = parseNpy(zipMember(archive, npyName(xName), file), xWhat);
    return samplesOf(std::move(x), parseNpy(zipMember(archive, npyName(yName), file), yWhat), xWhat, yWhat, regression);
}

}  // namespace hips
