#pragma once
// Files made byte by byte for the data readers' tests (tst_dataformats, tst_imagefolder): npy
// headers, zip archives, gzip, IDX, images; and a reader's refusal as text.
#include "DataReaders.h"

#include <QImage>
#include <QTemporaryDir>
#include <QtTest>
#include <charconv>
#include <cmath>
#include <cstring>
#include <random>
#include <functional>
#include <zlib.h>

namespace hips::test {

// One .npy file: format `version` (1: 2-byte header length, 2 and 3: 4 bytes), C order unless `fortran`.
inline QByteArray npy(const QByteArray& descr, const QByteArray& shape, const QByteArray& data, bool fortran = false, int version = 1) {
    QByteArray header = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': (" + shape + "), }";
    const int prefix = version == 1 ? 10 : 12;
    while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    QByteArray out = QByteArray("\x93NUMPY", 6) + char(version) + char(0);
    for (int i = 0; i < prefix - 8; ++i) out += char((header.size() >> (8 * i)) & 0xff);
    return out + header + data;
}

template <typename T>
inline QByteArray raw(std::initializer_list<T> values) {
    QByteArray out;
    for (T v : values) out += QByteArray(reinterpret_cast<const char*>(&v), sizeof v);
    return out;
}

inline void le(QByteArray& out, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out += char((v >> (8 * i)) & 0xff);
}

// zlib's deflate: `windowBits` -15 raw (zip), 31 gzip.
inline QByteArray deflated(const QByteArray& data, int windowBits) {
    QByteArray out(qsizetype(compressBound(uLong(data.size())) + 64), Qt::Uninitialized);
    z_stream z{};
    deflateInit2(&z, 6, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.constData()));
    z.avail_in = uInt(data.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = uInt(out.size());
    deflate(&z, Z_FINISH);
    out.resize(qsizetype(z.total_out));
    deflateEnd(&z);
    return out;
}

inline QByteArray gzip(const QByteArray& data) {
    return deflated(data, 16 + MAX_WBITS);
}

struct ZipOptions {
    bool deflate = false;
    bool zip64 = false;  // sizes and offsets in zip64 extra fields and a zip64 end record, as for huge arrays
    uint16_t flags = 0;
    uint16_t method = 0xFFFF;  // 0xFFFF: 0 or 8 as `deflate` says
};

// A zip archive of `members`, as numpy.savez (stored) or savez_compressed (deflated) writes it.
inline QByteArray zip(const QList<std::pair<QByteArray, QByteArray>>& members, ZipOptions o = {}) {
    QByteArray out, central;
    for (const auto& [name, content] : members) {
        const QByteArray packed = o.deflate ? deflated(content, -MAX_WBITS) : content;
        const uint32_t crc = uint32_t(crc32(0, reinterpret_cast<const Bytef*>(content.constData()), uInt(content.size())));
        const uint64_t offset = uint64_t(out.size());
        QByteArray extra;
        if (o.zip64)
            le(extra, 1, 2), le(extra, 24, 2), le(extra, uint64_t(content.size()), 8), le(extra, uint64_t(packed.size()), 8),
                le(extra, offset, 8);
        const uint32_t small = o.zip64 ? 0xFFFFFFFFu : 0;
        QByteArray common;  // from "version needed" to the extra field's length, in both headers
        le(common, 20, 2), le(common, o.flags, 2), le(common, o.method != 0xFFFF ? o.method : o.deflate ? 8 : 0, 2), le(common, 0, 4);
        le(common, crc, 4), le(common, small ? small : uint32_t(packed.size()), 4), le(common, small ? small : uint32_t(content.size()), 4);
        le(common, uint64_t(name.size()), 2), le(common, uint64_t(extra.size()), 2);
        le(out, 0x04034b50, 4);
        out += common + name + extra + packed;
        le(central, 0x02014b50, 4), le(central, 45, 2);
        central += common;
        le(central, 0, 2), le(central, 0, 2), le(central, 0, 2), le(central, 0, 4), le(central, small ? small : offset, 4);
        central += name + extra;
    }
    const uint64_t start = uint64_t(out.size());
    out += central;
    if (o.zip64) {
        const uint64_t record = uint64_t(out.size());
        le(out, 0x06064b50, 4), le(out, 44, 8), le(out, 45, 2), le(out, 45, 2), le(out, 0, 4), le(out, 0, 4);
        le(out, uint64_t(members.size()), 8), le(out, uint64_t(members.size()), 8), le(out, uint64_t(central.size()), 8), le(out, start, 8);
        le(out, 0x07064b50, 4), le(out, 0, 4), le(out, record, 8), le(out, 1, 4);
    }
    le(out, 0x06054b50, 4), le(out, 0, 2), le(out, 0, 2);
    le(out, o.zip64 ? 0xFFFF : uint64_t(members.size()), 2), le(out, o.zip64 ? 0xFFFF : uint64_t(members.size()), 2);
    le(out, o.zip64 ? 0xFFFFFFFFu : uint64_t(central.size()), 4), le(out, o.zip64 ? 0xFFFFFFFFu : start, 4), le(out, 0, 2);
    return out;
}

// An IDX file of unsigned bytes: magic 0, 0, 8, dims; big-endian sizes; the values.
inline QByteArray idxFile(const QList<uint32_t>& shape, const QByteArray& values) {
    QByteArray out("\0\0\x08", 3);
    out += char(shape.size());
    for (uint32_t d : shape) out += char(d >> 24) + QByteArray(1, char(d >> 16)) + char(d >> 8) + char(d);
    return out + values;
}

inline bool write(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    return QDir().mkpath(QFileInfo(path).path()) && f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

inline QByteArray contents(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

inline QString refusal(const std::function<void()>& read) {
    try {
        read();
    } catch (const DataError& e) {
        return QString::fromStdString(e.what());
    }
    return QStringLiteral("(accepted)");
}

// A w x h image of one colour per pixel from `pixel(x, y)`.
inline QImage image(int w, int h, QImage::Format format, const std::function<QRgb(int, int)>& pixel) {
    QImage out(w, h, format);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) out.setPixel(x, y, format == QImage::Format_Grayscale8 ? qGray(pixel(x, y)) : pixel(x, y));
    return out;
}

inline QImage filled(int w, int h, QColor colour) {
    QImage out(w, h, QImage::Format_RGB32);
    out.fill(colour);
    return out;
}

// Saves `image` as `path`, making its folder.
inline bool save(const QImage& image, const QString& path, const char* format = nullptr, int quality = -1) {
    return QDir().mkpath(QFileInfo(path).path()) && image.save(path, format, quality);
}

inline QByteArray bytes(std::initializer_list<int> values) {
    QByteArray out;
    for (int v : values) out += char(v);
    return out;
}

// A PNG of 8-bit samples, made byte by byte: colour type `type` (0 grey, 2 RGB, 4 grey and alpha,
// 6 RGBA), `pixels` row by row; `gamma` (if not 0) as its gAMA chunk (100000: 1.0).
inline QByteArray png(int w, int h, int type, const QByteArray& pixels, uint32_t gamma = 0) {
    const auto be = [](QByteArray& out, uint32_t v) {
        for (int i = 3; i >= 0; --i) out += char((v >> (8 * i)) & 0xff);
    };
    const auto chunk = [&](QByteArray& out, const char* name, const QByteArray& data) {
        be(out, uint32_t(data.size()));
        const QByteArray body = QByteArray(name, 4) + data;
        out += body;
        be(out, uint32_t(crc32(0, reinterpret_cast<const Bytef*>(body.constData()), uInt(body.size()))));
    };
    const int channels = type == 0 ? 1 : type == 2 ? 3 : type == 4 ? 2 : 4;
    QByteArray header, rows, out("\x89PNG\r\n\x1a\n", 8);
    be(header, uint32_t(w));
    be(header, uint32_t(h));
    header += bytes({8, type, 0, 0, 0});
    for (int y = 0; y < h; ++y) rows += QByteArray(1, '\0') + pixels.mid(y * w * channels, w * channels);
    chunk(out, "IHDR", header);
    if (gamma) {
        QByteArray g;
        be(g, gamma);
        chunk(out, "gAMA", g);
    }
    chunk(out, "IDAT", deflated(rows, MAX_WBITS));
    chunk(out, "IEND", {});
    return out;
}

QStringList cacheFiles(const QString& dir) {
    return QDir(dir).entryList(QDir::Files | QDir::Hidden);
}

}  // namespace hips::test
