// One member of a zip archive (numpy.savez stores, savez_compressed deflates), found through the
// central directory. PKWARE's APPNOTE.TXT: end of central directory 0x06054b50 (zip64: locator
// 0x07064b50, record 0x06064b50), central header 0x02014b50, local header 0x04034b50, zip64 sizes
// in extra field 0x0001. Every offset and size is checked against the archive before it is used.
#include "DataReaders.h"

#include "ReaderSupport.h"

#include <algorithm>
#include <zlib.h>

namespace hips {

namespace {

constexpr uint64_t k32 = 0xFFFFFFFFu;
constexpr qint64 kZlibChunk = qint64(1) << 30;  // zlib counts in 32-bit uInt
constexpr uint64_t kMaxDeflateRatio = 1032;  // deflate's best: 258 bytes from 2 bits

// Little-endian fields of the archive, each read only inside it.
struct Archive {
    const QByteArray& bytes;
    QString what;

    bool holds(uint64_t at, uint64_t n) const { return at <= uint64_t(bytes.size()) && n <= uint64_t(bytes.size()) - at; }
    uint64_t le(uint64_t at, int n) const {
        if (!holds(at, uint64_t(n))) broken(QStringLiteral("a record runs past its end"));
        uint64_t v = 0;
        for (int i = n - 1; i >= 0; --i) v = v << 8 | uint8_t(bytes[qsizetype(at) + i]);
        return v;
    }
    [[noreturn]] void broken(const QString& why) const {
        fail(QStringLiteral("%1 is not a whole zip archive (%2); save it again with numpy.savez").arg(what, why));
    }
};

struct Directory {
    uint64_t entries = 0, offset = 0;
};

struct Entry {
    QString name;
    uint64_t flags = 0, method = 0, crc = 0, packed = 0, raw = 0, local = 0;
};

Directory zip64Directory(const Archive& a, uint64_t end) {
    if (end < 20 || a.le(end - 20, 4) != 0x07064b50) a.broken(QStringLiteral("its zip64 end of central directory is missing"));
    const uint64_t record = a.le(end - 20 + 8, 8);
    if (a.le(record, 4) != 0x06064b50) a.broken(QStringLiteral("its zip64 end of central directory is damaged"));
    return {a.le(record + 32, 8), a.le(record + 48, 8)};
}

// The end of central directory record: the last one, within a comment's reach of the end.
Directory centralDirectory(const Archive& a) {
    const qint64 last = a.bytes.size() - 22;
    for (qint64 at = last; at >= 0 && at >= last - 65535; --at) {
        if (a.bytes[at] != 'P' || a.le(uint64_t(at), 4) != 0x06054b50) continue;
        const Directory d{a.le(uint64_t(at) + 10, 2), a.le(uint64_t(at) + 16, 4)};
        return d.entries == 0xFFFF || d.offset == k32 ? zip64Directory(a, uint64_t(at)) : d;
    }
    fail(QStringLiteral("%1 is not a zip archive (no end of central directory); an npz source names a numpy.savez file").arg(a.what));
}

// Sizes and offset from the zip64 extra field, where the 32-bit ones are 0xFFFFFFFF.
void readZip64Extra(const Archive& a, uint64_t extra, uint64_t length, Entry* e) {
    for (uint64_t at = extra; at + 4 <= extra + length;) {
        const uint64_t id = a.le(at, 2), size = a.le(at + 2, 2);
        if (id == 1) {
            uint64_t field = at + 4;
            for (uint64_t* v : {&e->raw, &e->packed, &e->local})
                if (*v == k32) {
                    *v = a.le(field, 8);
                    field += 8;
                }
            return;
        }
        at += 4 + size;
    }
}

// The central header at `at`; `at` moves on to the next.
Entry readEntry(const Archive& a, uint64_t* at) {
    if (a.le(*at, 4) != 0x02014b50) a.broken(QStringLiteral("its central directory is damaged"));
    Entry e;
    e.flags = a.le(*at + 8, 2);
    e.method = a.le(*at + 10, 2);
    e.crc = a.le(*at + 16, 4);
    e.packed = a.le(*at + 20, 4);
    e.raw = a.le(*at + 24, 4);
    const uint64_t nameLength = a.le(*at + 28, 2), extraLength = a.le(*at + 30, 2), commentLength = a.le(*at + 32, 2);
    e.local = a.le(*at + 42, 4);
    if (!a.holds(*at + 46, nameLength + extraLength)) a.broken(QStringLiteral("its central directory is cut"));
    e.name = QString::fromUtf8(a.bytes.constData() + *at + 46, qsizetype(nameLength));
    readZip64Extra(a, *at + 46 + nameLength, extraLength, &e);
    *at += 46 + nameLength + extraLength + commentLength;
    return e;
}

// The output grows as the data inflates, up to the size the archive claims: a hostile 20 MB
// member claiming 1032 times that was allocated whole before a byte of it was inflated.
QByteArray inflateRaw(const char* data, uint64_t packed, uint64_t raw, const QString& what) {
    constexpr uint64_t kGrowth = 1 << 20;
    QByteArray out(qsizetype(std::min<uint64_t>(raw, 4 * packed + kGrowth)), Qt::Uninitialized);
    z_stream z{};
    if (inflateInit2(&z, -MAX_WBITS) != Z_OK) fail(QStringLiteral("zlib could not start inflating %1").arg(what));
    uint64_t consumed = 0, produced = 0;
    int status = Z_OK;
    while (status == Z_OK) {
        if (z.avail_in == 0 && consumed < packed) {
            z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data + consumed));
            z.avail_in = uInt(std::min<uint64_t>(kZlibChunk, packed - consumed));
            consumed += z.avail_in;
        }
        if (produced == uint64_t(out.size()) && produced < raw) out.resize(qsizetype(std::min<uint64_t>(raw, 2 * produced + kGrowth)));
        z.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
        z.avail_out = uInt(std::min<uint64_t>(kZlibChunk, uint64_t(out.size()) - produced));
        const uInt room = z.avail_out;
        status = inflate(&z, Z_NO_FLUSH);
        produced += room - z.avail_out;  // (full while the stream goes on, or cut: Z_BUF_ERROR)
    }
    inflateEnd(&z);
    if (status != Z_STREAM_END || produced != raw)
        fail(QStringLiteral("%1 is damaged (its deflated data does not inflate to its %2 bytes); save it again").arg(what).arg(raw));
    return out;
}

uint32_t crcOf(const QByteArray& data) {
    uLong crc = crc32(0, nullptr, 0);
    for (qint64 at = 0; at < data.size(); at += kZlibChunk)
        crc = crc32(crc, reinterpret_cast<const Bytef*>(data.constData() + at), uInt(std::min(kZlibChunk, data.size() - at)));
    return uint32_t(crc);
}

QByteArray extract(const Archive& a, const Entry& e) {
    const QString what = a.what + QLatin1Char(':') + e.name;
    if (e.flags & 1) fail(QStringLiteral("%1 is encrypted; save the arrays with numpy.savez, without a password").arg(what));
    if (e.method != 0 && e.method != 8)
        fail(QStringLiteral("%1 is compressed with zip method %2; save it with numpy.savez or savez_compressed").arg(what).arg(e.method));
    if (a.le(e.local, 4) != 0x04034b50) a.broken(QStringLiteral("the local header of %1 is missing").arg(e.name));
    const uint64_t data = e.local + 30 + a.le(e.local + 26, 2) + a.le(e.local + 28, 2);
    if (!a.holds(data, e.packed)) a.broken(QStringLiteral("%1 is cut short").arg(e.name));
    // A stored member is its bytes; a deflated one inflates to at most 1032 times its size (and
    // its buffer grows only as it does: inflateRaw).
    if ((e.method == 0 && e.packed != e.raw) || (e.method == 8 && e.raw > e.packed * kMaxDeflateRatio + 64))
        a.broken(QStringLiteral("the sizes of %1 do not agree").arg(e.name));
    const QByteArray out =
        e.method == 0 ? a.bytes.mid(qsizetype(data), qsizetype(e.raw)) : inflateRaw(a.bytes.constData() + data, e.packed, e.raw, what);
    if (crcOf(out) != e.crc) fail(QStringLiteral("%1 is damaged (its CRC-32 does not match); save it again").arg(what));
    return out;
}

}  // namespace

QByteArray zipMember(const QByteArray& archive, const QString& name, const QString& what) {
    const Archive a{archive, what};
    const Directory directory = centralDirectory(a);
    uint64_t at = directory.offset;
    QStringList names;
    for (uint64_t i = 0; i < directory.entries; ++i) {
        const Entry e = readEntry(a, &at);
        if (e.name == name) return extract(a, e);
        names << e.name;
    }
    fail(QStringLiteral("%1 holds no array '%2' (it holds: %3); set the source's x and y options to the arrays' names")
             .arg(what, name.endsWith(QLatin1String(".npy")) ? name.chopped(4) : name,
                  names.isEmpty() ? QStringLiteral("nothing") : names.join(QStringLiteral(", "))));
}

}  // namespace hips
