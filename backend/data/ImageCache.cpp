// The cache file: "HIPSIMG1", the 32-byte digest, channels, height, width and the number of
// samples (int64 little-endian each), the labels (int64 each), then each sample's planar bytes.
#include "ImageCache.h"

#include "PrivateFiles.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QtDebug>
#include <QtEndian>

static_assert(Q_BYTE_ORDER == Q_LITTLE_ENDIAN, "the image cache keeps labels as the machine holds them");

namespace hips {

namespace {

const QByteArray kMagic = QByteArrayLiteral("HIPSIMG1");
constexpr qint64 kHeaderSize = 8 + 32 + 4 * 8;
constexpr qint64 kMaxSide = 1 << 16;

struct CacheHeader {
    QByteArray digest;
    qint64 channels = 0, height = 0, width = 0, samples = 0;
};

bool readHeader(QFile& f, CacheHeader* h) {
    const QByteArray bytes = f.read(kHeaderSize);
    if (bytes.size() != kHeaderSize || !bytes.startsWith(kMagic)) return false;
    h->digest = bytes.mid(8, 32);
    const char* p = bytes.constData() + 40;
    h->channels = qFromLittleEndian<qint64>(p);
    h->height = qFromLittleEndian<qint64>(p + 8);
    h->width = qFromLittleEndian<qint64>(p + 16);
    h->samples = qFromLittleEndian<qint64>(p + 24);
    return (h->channels == 1 || h->channels == 3) && h->height > 0 && h->height <= kMaxSide && h->width > 0 && h->width <= kMaxSide;
}

QByteArray headerBytes(const QByteArray& digest, const SampleSet& set) {
    QByteArray out = kMagic + digest;
    for (qint64 v : {set.sampleShape[0], set.sampleShape[1], set.sampleShape[2], set.size()}) {
        char le[8];
        qToLittleEndian<qint64>(v, le);
        out.append(le, 8);
    }
    return out;
}

}  // namespace

QString imageCachePath(const QString& folder, const ReadOptions& o) {
    const QString settings =
        QStringLiteral("%1\n%2 %3 %4").arg(QFileInfo(folder).absoluteFilePath()).arg(o.channels).arg(o.height).arg(o.width);
    const QByteArray name = QCryptographicHash::hash(settings.toUtf8(), QCryptographicHash::Sha256).toHex().left(24);
    return QDir(o.cacheDir).filePath(QString::fromLatin1(name) + QStringLiteral(".hipsimages"));
}

bool loadImageCache(const QString& path, const QByteArray& digest, int64_t samples, int classes, SampleSet* set) {
    QFile f(path);
    CacheHeader h;
    if (!f.open(QIODevice::ReadOnly) || !readHeader(f, &h) || h.digest != digest || h.samples != samples) return false;
    const qint64 image = h.channels * h.height * h.width;
    if (f.size() != kHeaderSize + samples * (8 + image)) return false;
    std::vector<int64_t> labels(static_cast<size_t>(samples));
    std::vector<uint8_t> bytes(static_cast<size_t>(samples * image));
    if (f.read(reinterpret_cast<char*>(labels.data()), samples * 8) != samples * 8 ||
        f.read(reinterpret_cast<char*>(bytes.data()), qint64(bytes.size())) != qint64(bytes.size()))
        return false;
    for (int64_t label : labels)
        if (label < 0 || label >= classes) return false;
    set->type = SampleSet::Type::UInt8;
    set->sampleShape = {h.channels, h.height, h.width};
    set->labels = std::move(labels);
    set->bytes = std::move(bytes);
    return true;
}

void storeImageCache(const QString& path, const QByteArray& digest, const SampleSet& set) {
    QByteArray bytes = headerBytes(digest, set);
    bytes.reserve(kHeaderSize + qint64(set.labels.size()) * 8 + qint64(set.bytes.size()));
    bytes.append(reinterpret_cast<const char*>(set.labels.data()), qsizetype(set.labels.size()) * 8);
    bytes.append(reinterpret_cast<const char*>(set.bytes.data()), qsizetype(set.bytes.size()));
    QString error = makePrivateDirectory(QFileInfo(path).path());  // (a folder that exists keeps its mode)
    if (error.isEmpty()) error = writeFileAtomically(path, bytes);
    if (!error.isEmpty()) qWarning("hips: %s; the images will be decoded again next time", qPrintable(error));
}

}  // namespace hips
