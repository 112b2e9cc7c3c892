// libFuzzer target: the parsers of the parties' own data files, on bytes as a stranger's file
// holds them. The first byte picks the parser, the second is its parameter:
//   0  one .npy array (parseNpy)
//   1  a features and a labels .npy (parseNpyPair): the next two bytes (little-endian) give the
//      features' length, the rest are the labels (a regression's targets for an odd parameter)
//   2  a zip archive's member x.npy or y.npy (zipMember, as for npz), then parsed as .npy
//   3  a csv table (parseCsv): delimiter ',' or ';', class names or not, or a regression's targets
//   4  a gzip stream (as IDX files come), inflated to at most 64 KiB or its first bytes only
//
// An accepted array holds exactly the values its shape promises; an accepted sample set exactly
// size() x elements() values of its type and labels >= 0 (or size() x targetWidth finite targets); a refused input says why (DataError),
// never crashes, reads out of bounds or allocates past what the input could hold.
#include "DataReaders.h"
#include "FuzzSupport.h"
#include "ReaderSupport.h"

#include <cmath>

using namespace hips;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    fuzz::quietQt();
    return 0;
}

namespace {

void checkSet(const SampleSet& s) {
    const size_t values = size_t(s.size()) * size_t(s.elements());
    FUZZ_CHECK(s.elements() >= 0);
    FUZZ_CHECK(s.type == SampleSet::Type::Float32 ? s.floats.size() == values && s.bytes.empty()
                                                  : s.bytes.size() == values && s.floats.empty());
    for (int64_t l : s.labels) FUZZ_CHECK(l >= 0);
    FUZZ_CHECK(s.regression() ? s.labels.empty() && s.targets.size() == size_t(s.size()) * size_t(s.targetWidth) : s.targets.empty());
    for (float t : s.targets) FUZZ_CHECK(std::isfinite(t));
}

void checkArray(const NpyArray& a, qsizetype inputSize) {
    int64_t count = 1;
    for (int64_t d : a.shape) count *= d;
    FUZZ_CHECK(!a.shape.empty() && count * a.size <= inputSize);
    if (a.descr == QLatin1String("<f4")) FUZZ_CHECK(int64_t(a.floats.size()) == count && a.integers.empty());
    else if (a.size == 1) FUZZ_CHECK(int64_t(a.bytes.size()) == count && (a.shape.size() != 1 || int64_t(a.integers.size()) == count));
    else FUZZ_CHECK(int64_t(a.integers.size()) == count && (a.size == 4 || a.size == 8));
}

void fuzzPair(const QByteArray& rest, uint8_t parameter) {
    if (rest.size() < 2) return;
    const qsizetype xLength = std::min<qsizetype>(uint8_t(rest[0]) | uint8_t(rest[1]) << 8, rest.size() - 2);
    checkSet(parseNpyPair(rest.mid(2, xLength), rest.mid(2 + xLength), QStringLiteral("fuzz"), parameter % 2));
}

void fuzzZip(const QByteArray& rest, uint8_t parameter) {
    const QByteArray member =
        zipMember(rest, parameter % 2 ? QStringLiteral("x.npy") : QStringLiteral("y.npy"), QStringLiteral("fuzz.npz"));
    FUZZ_CHECK(member.size() <= rest.size() * 1032 + 64);  // deflate's ratio bounds what a member can hold
    checkArray(parseNpy(member, QStringLiteral("fuzz.npz:x.npy")), member.size());
}

void fuzzGzip(const QByteArray& rest, uint8_t parameter) {
    if (parameter % 2) {
        FUZZ_CHECK(gunzipPrefix(rest, QStringLiteral("fuzz.gz"), parameter).size() <= parameter);
        return;
    }
    FUZZ_CHECK(gunzip(rest, QStringLiteral("fuzz.gz"), 1 << 16).size() <= 1 << 16);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 2) return 0;
    const QByteArray rest(reinterpret_cast<const char*>(data + 2), qsizetype(size - 2));
    const uint8_t parameter = data[1];
    try {
        switch (data[0] % 5) {
            case 0: checkArray(parseNpy(rest, QStringLiteral("fuzz.npy")), rest.size()); break;
            case 1: fuzzPair(rest, parameter); break;
            case 2: fuzzZip(rest, parameter); break;
            case 3:
                checkSet(parseCsv(rest, QStringLiteral("label"), parameter % 2 ? QLatin1Char(';') : QLatin1Char(','),
                                  QStringLiteral("fuzz.csv"), parameter % 4 < 2 ? QStringList{} : QStringList{"a", "b"},
                                  parameter % 8 >= 4));
                break;
            default: fuzzGzip(rest, parameter);
        }
    } catch (const DataError& e) {
        FUZZ_CHECK(std::strlen(e.what()) > 0);
    }
    return 0;
}
