// Start-up time of a party's own data: an image folder of 60,000 28 x 28 grey PNGs in 10 classes
// (MNIST's size) decoded the first time (no cache yet: decoding and writing the cache) and read
// back from the cache the next, and a csv table of 1,000,000 rows of 20 float features and a
// label. The files are made in a temporary folder first (timed apart); they are then in the OS's
// page cache, so "cold" means no decoded copy yet, not a cold disk.
//   bench_dataformats [IMAGES [ROWS [FOLDER]]]   (default 60000 1000000, a temporary folder)
// With FOLDER the files are kept there and reused by the next run with the same counts (the
// image cache is removed before each cold read).
#include "DataReaders.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QTemporaryDir>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <random>
#include <thread>

using namespace hips;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kClasses = 10, kSide = 28, kFeatures = 20;

double since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// Image i: a bright band of rows for its class over noise, as distinct as MNIST's digits are in size.
QImage sample(int i) {
    std::mt19937 rng(static_cast<uint32_t>(i));
    QImage image(kSide, kSide, QImage::Format_Grayscale8);
    const int band = (i % kClasses) * 2;
    for (int y = 0; y < kSide; ++y) {
        uchar* line = image.scanLine(y);
        for (int x = 0; x < kSide; ++x) line[x] = uchar(y >= band && y < band + 8 ? 200 + rng() % 56 : rng() % 40);
    }
    return image;
}

bool writeImageFolder(const QString& root, int images) {
    for (int c = 0; c < kClasses; ++c)
        if (!QDir().mkpath(QStringLiteral("%1/class_%2").arg(root).arg(c))) return false;
    std::atomic<int> next{0};
    std::atomic<bool> ok{true};
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < std::max(1u, std::thread::hardware_concurrency()); ++t)
        pool.emplace_back([&] {
            for (int i = next++; i < images; i = next++)
                if (!sample(i).save(QStringLiteral("%1/class_%2/%3.png").arg(root).arg(i % kClasses).arg(i, 5, 10, QLatin1Char('0'))))
                    ok = false;
        });
    for (std::thread& t : pool) t.join();
    return ok;
}

// label,f0..f19 and rows of a class and 20 floats in [-1, 1] written shortest, as numpy.savetxt
// or pandas would write float32 values.
bool writeCsv(const QString& path, int rows) {
    QByteArray text = "label";
    for (int f = 0; f < kFeatures; ++f) text += ",f" + QByteArray::number(f);
    text += '\n';
    text.reserve(qsizetype(rows) * (kFeatures * 11 + 3));
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> value(-1, 1);
    char buffer[32];
    for (int r = 0; r < rows; ++r) {
        text += char('0' + r % kClasses);
        for (int f = 0; f < kFeatures; ++f) {
            text += ',';
            text.append(buffer, std::to_chars(buffer, buffer + sizeof buffer, value(rng)).ptr - buffer);
        }
        text += '\n';
    }
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(text) == text.size();
}

int benchImages(const QDir& dir, int images) {
    const QString root = dir.filePath(QStringLiteral("images%1").arg(images));
    Clock::time_point start = Clock::now();
    if (!QFileInfo::exists(root)) {
        if (!writeImageFolder(root + QStringLiteral(".part"), images) || !QDir().rename(root + QStringLiteral(".part"), root))
            return std::fprintf(stderr, "cannot write the PNGs in %s\n", qPrintable(root)), 1;
        std::printf("(made %d PNGs in %.2f s)\n", images, since(start));
    }
    ReadOptions options;
    options.channels = 1, options.height = kSide, options.width = kSide;
    options.cacheDir = dir.filePath(QStringLiteral("cache"));
    QDir(options.cacheDir).removeRecursively();
    const DataSource source{QStringLiteral("image-folder"), root, {}};
    start = Clock::now();
    const SampleSet cold = readSamples(source, options);
    const double coldSeconds = since(start);
    start = Clock::now();
    const SampleSet cached = readSamples(source, options);
    const double cachedSeconds = since(start);
    if (cold.size() != images || cached.bytes != cold.bytes || cached.labels != cold.labels)
        return std::fprintf(stderr, "the cached read differs from the decoded one\n"), 1;
    std::printf("image-folder %d PNGs: cold %.2f s, cached %.2f s (goal 3 s)\n", images, coldSeconds, cachedSeconds);
    return 0;
}

int benchCsv(const QDir& dir, int rows) {
    const QString file = dir.filePath(QStringLiteral("table%1.csv").arg(rows));
    Clock::time_point start = Clock::now();
    if (!QFileInfo::exists(file)) {
        if (!writeCsv(file + QStringLiteral(".part"), rows) || !QFile::rename(file + QStringLiteral(".part"), file))
            return std::fprintf(stderr, "cannot write %s\n", qPrintable(file)), 1;
        std::printf("(made a %d-row csv of %.0f MB in %.2f s)\n", rows, double(QFileInfo(file).size()) / 1e6, since(start));
    }
    start = Clock::now();
    const SampleSet table = readCsv(file, QStringLiteral("label"));
    const double seconds = since(start);
    if (table.size() != rows || table.elements() != kFeatures) return std::fprintf(stderr, "the csv was not read whole\n"), 1;
    std::printf("csv %d rows x %d columns (%d features and a label): %.2f s (goal 2 s)\n", rows, kFeatures + 1, kFeatures, seconds);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);  // (Qt's image plugins are found through the application)
    const int images = argc > 1 ? std::atoi(argv[1]) : 60000, rows = argc > 2 ? std::atoi(argv[2]) : 1000000;
    QTemporaryDir temporary;
    const QDir dir(argc > 3 ? QString::fromLocal8Bit(argv[3]) : temporary.path());
    if (!temporary.isValid() || !QDir().mkpath(dir.path())) return std::fprintf(stderr, "cannot make a folder for the files\n"), 1;
    try {
        return benchImages(dir, images) || benchCsv(dir, rows);
    } catch (const DataError& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
}
