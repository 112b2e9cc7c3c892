// An image folder as torchvision's ImageFolder reads it: one sub-folder per class (sorted names,
// or the source's `classes`), PNG and JPEG files in each, decoded with Qt's image readers on every
// core into planar bytes of the model's channels and size, and cached between starts.
#include "DataReaders.h"

#include "ImageCache.h"
#include "PrivateFiles.h"
#include "ReaderSupport.h"

#include <QCryptographicHash>
#include <QDir>
#include <QSet>
#if HIPS_IMAGE_DECODING  // (Qt Gui's readers: a headless build on a host without Qt Gui lists and caches, but decodes no image)
#include <QBuffer>
#include <QColorSpace>
#include <QImage>
#include <QImageReader>
#endif
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <dirent.h>
#include <fcntl.h>
#include <functional>
#include <mutex>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace hips {

namespace {

struct ImageFile {
    QByteArray name;  // in its class folder
    QString path;
    int64_t label = 0;
    qint64 size = 0, modified = 0;  // bytes; ms since the epoch
};

struct Geometry {
    int channels = 0, height = 0, width = 0;
    bool resize = false;
};

// Runs work(i) for every i in [0, count) on `threads` threads. When some throw, the error of the
// lowest i is thrown (whatever the threads' timing) once all have stopped; no new i starts after
// a failure.
void parallelFor(qsizetype count, int threads, const std::function<void(qsizetype)>& work) {
    std::atomic<qsizetype> next{0};
    std::atomic<bool> failed{false};
    std::mutex lock;
    qsizetype errorIndex = count;
    std::string error;
    const auto run = [&] {
        for (qsizetype i = next++; i < count && !failed; i = next++) {
            try {
                work(i);
            } catch (const std::exception& e) {
                const std::lock_guard<std::mutex> guard(lock);
                if (i < errorIndex) errorIndex = i, error = e.what();
                failed = true;
            }
        }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < std::clamp<qsizetype>(threads, 1, count); ++t) pool.emplace_back(run);
    run();
    for (std::thread& t : pool) t.join();
    if (failed) throw DataError(error);
}

// The class folders in sorted order (by code point, as Python's sorted() in torchvision). Hidden
// folders, such as .ipynb_checkpoints, are not classes.
QStringList classFolders(const QDir& root) {
    // readdir, not QDir::entryList: a name that is not UTF-8 is said, not left out or mangled.
    DIR* dir = ::opendir(QFile::encodeName(root.path()).constData());
    if (!dir) fail(QStringLiteral("cannot read the folder %1 (%2); check its permissions").arg(root.path(), systemErrorText(errno)));
    QStringList names;
    while (const dirent* entry = ::readdir(dir)) {
        struct stat info;
        if (entry->d_name[0] == '.' || ::fstatat(::dirfd(dir), entry->d_name, &info, 0) != 0 || !S_ISDIR(info.st_mode)) continue;
        const QString name = QFile::decodeName(entry->d_name);
        if (QFile::encodeName(name) != QByteArray(entry->d_name)) {
            ::closedir(dir);
            fail(QStringLiteral("%1 holds a class folder whose name is not UTF-8 (%2); rename it").arg(root.path(), name));
        }
        names << name;
    }
    ::closedir(dir);
    std::sort(names.begin(), names.end());
    if (names.isEmpty())
        fail(QStringLiteral("%1 holds no class folders; put each class's images in a sub-folder named after it").arg(root.path()));
    return names;
}

bool isImageName(const char* name) {
    const size_t n = std::strlen(name);
    const auto endsWith = [&](const char* suffix, size_t k) { return n > k && qstrnicmp(name + n - k, suffix, k) == 0; };
    return name[0] != '.' && (endsWith(".png", 4) || endsWith(".jpg", 4) || endsWith(".jpeg", 5));
}

// The PNG and JPEG files of one class folder, none where it is empty: a party's data may lack a
// class the others have, and its empty folder keeps the label of every class after it (a missing
// class shifted them, and the parties' class names then disagreed) (not its sub-folders; not hidden files, such as
// macOS's ._ copies), sorted by name bytes (UTF-8: code points, as torchvision sorts), with their
// sizes and times. readdir and fstatat: QFileInfo costs several times as much per file, and a
// cached start of 60,000 images is mostly this listing.
QList<ImageFile> imagesOf(const QDir& root, const QString& className, int64_t label) {
    const QString folder = root.filePath(className);
    DIR* dir = ::opendir(QFile::encodeName(folder).constData());
    if (!dir && errno == ENOENT)
        fail(QStringLiteral("%1 does not exist; the source's classes option names the sub-folders of %2 to read (a class this "
                            "party has no images of: make its folder, and leave it empty)")
                 .arg(folder, root.path()));
    if (!dir) fail(QStringLiteral("cannot read the folder %1 (%2); check its permissions").arg(folder, systemErrorText(errno)));
    QList<ImageFile> files;
    while (const dirent* entry = ::readdir(dir)) {
        struct stat info;
        if (!isImageName(entry->d_name) || ::fstatat(::dirfd(dir), entry->d_name, &info, 0) != 0 || !S_ISREG(info.st_mode)) continue;
        files.append({entry->d_name, {}, label, qint64(info.st_size), qint64(info.st_mtim.tv_sec) * 1000 + info.st_mtim.tv_nsec / 1000000});
    }
    ::closedir(dir);
    std::sort(files.begin(), files.end(), [](const ImageFile& a, const ImageFile& b) { return a.name < b.name; });
    for (ImageFile& f : files) {
        // (A name that is not UTF-8 decodes with replacement characters, and the file was then
        // "unreadable; check its permissions", whatever they were.)
        const QString name = QFile::decodeName(f.name);
        if (QFile::encodeName(name) != f.name)
            fail(QStringLiteral("%1 holds a file whose name is not UTF-8 (%2); rename it").arg(folder, name));
        f.path = folder + QLatin1Char('/') + name;
    }
    return files;
}

QList<ImageFile> listImages(const QDir& root, const QStringList& classes, int threads) {
    std::vector<QList<ImageFile>> perClass(size_t(classes.size()));
    parallelFor(classes.size(), threads, [&](qsizetype c) { perClass[size_t(c)] = imagesOf(root, classes[c], c); });
    QList<ImageFile> files;
    for (const QList<ImageFile>& f : perClass) files += f;
    return files;
}

// The digest the cache is kept under: every file's name, size and time, the classes and how the
// images are decoded.
QByteArray digestOf(const QList<ImageFile>& files, const QStringList& classes, const ReadOptions& o) {
    QCryptographicHash hash(QCryptographicHash::Sha256);
    hash.addData(QStringLiteral("hips image folder 2\n%1 %2 %3\n").arg(o.channels).arg(o.height).arg(o.width).toUtf8());
    for (const QString& c : classes) hash.addData((c + QLatin1Char('\n')).toUtf8());
    for (const ImageFile& f : files) {
        hash.addData(QByteArray::number(f.label) + '/' + f.name + '\n');
        const qint64 numbers[2] = {f.size, f.modified};
        hash.addData(QByteArrayView(reinterpret_cast<const char*>(numbers), sizeof numbers));
    }
    return hash.result();
}

#if HIPS_IMAGE_DECODING
// The file's bytes, read with as few system calls as can be (QFile and QImageReader's own file
// handling make about 12 a file, a second of 60,000 files' decoding here).
QByteArray fileBytes(const ImageFile& f) {
    const int fd = ::open(QFile::encodeName(f.path).constData(), O_RDONLY | O_CLOEXEC);
    QByteArray bytes(qsizetype(f.size) + 1, Qt::Uninitialized);  // one more: a file grown since the listing shows
    qsizetype done = 0;
    for (ssize_t n = 1; fd >= 0 && n > 0;) {
        if (done == bytes.size()) bytes.resize(2 * bytes.size());
        n = ::read(fd, bytes.data() + done, size_t(bytes.size() - done));
        if (n < 0 && errno == EINTR) n = 1;
        else if (n > 0) done += n;
        else if (n < 0) fail(QStringLiteral("cannot read %1 (%2)").arg(f.path, systemErrorText(errno)));
    }
    if (fd < 0) fail(QStringLiteral("cannot read %1 (%2); check its permissions").arg(f.path, systemErrorText(errno)));
    ::close(fd);
    bytes.resize(done);
    return bytes;
}

// The colour type in a PNG's header (0 grey, 2 RGB, 3 palette, 4 grey and alpha, 6 RGBA); -1 for
// a file that is no PNG.
int pngColourType(const QByteArray& bytes) {
    static const QByteArray signature("\x89PNG\r\n\x1a\n", 8);
    return bytes.size() > 25 && bytes.startsWith(signature) && bytes.mid(12, 4) == "IHDR" ? uchar(bytes[25]) : -1;
}

// Whether the file stores grey (its format), not whether its pixels happen to be: a colour
// dataset whose first image is a black-and-white photo was read as grey throughout (32-bit
// images' isGrayscale() looks at every pixel). A PNG says so in its header (Qt reads grey and
// alpha as ARGB32); a palette, 1-bit ones too, is grey when its colours are.
bool storedGrey(const QImage& image, int pngType) {
    if (pngType == 0 || pngType == 4) return true;
    if (pngType == 2 || pngType == 6) return false;
    switch (image.format()) {
        case QImage::Format_Grayscale8:
        case QImage::Format_Grayscale16: return true;
        case QImage::Format_Mono:
        case QImage::Format_MonoLSB:
        case QImage::Format_Indexed8: {  // its colour table: grey levels only (isGrayscale() is false for any 1-bit image)
            const QList<QRgb> table = image.colorTable();
            return std::all_of(table.begin(), table.end(), [](QRgb c) { return qIsGray(c); });
        }
        default: return false;
    }
}

QImage decode(const ImageFile& f, bool* grey = nullptr) {
    QByteArray bytes = fileBytes(f);
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::ReadOnly);
    // The name's format is tried first; the content decides where it is another.
    QImageReader reader(&buffer, f.name.toLower().endsWith(".png") ? QByteArrayLiteral("png") : QByteArrayLiteral("jpeg"));
    QImage image = reader.read();
    if (image.isNull()) fail(QStringLiteral("cannot decode %1 (%2); replace or remove the file").arg(f.path, reader.errorString()));
    if (grey) *grey = storedGrey(image, pngColourType(bytes));
    return image;
}

// The channels and size every image is decoded to: the options', or where they give none, the
// first image's own (then every image must have that size). One of height and width: a square.
Geometry geometryOf(const ReadOptions& o, const ImageFile& first) {
    Geometry g{o.channels, o.height > 0 ? o.height : o.width, o.width > 0 ? o.width : o.height, o.height > 0 || o.width > 0};
    if (g.channels > 0 && g.channels != 1 && g.channels != 3)  // (read as 3 bytes a pixel, 4 read past each row's end)
        fail(QStringLiteral("%1: images are read as grey (1 channel) or RGB (3 channels), and training.input_shape asks for %2; "
                            "give it 1 or 3 channels")
                 .arg(first.path)
                 .arg(g.channels));
    if (g.channels > 0 && g.resize) return g;
    bool grey = false;
    const QImage image = decode(first, &grey);
    if (g.channels <= 0) g.channels = grey ? 1 : 3;
    if (!g.resize) {
        g.height = image.height();
        g.width = image.width();
    }
    return g;
}

void decodeInto(const ImageFile& f, const Geometry& g, const QString& firstPath, uint8_t* out) {
    // The pixels as stored, their alpha dropped (PIL's convert("RGB")) before any resizing: Qt
    // scales colour and alpha premultiplied, and a transparent pixel's colour went black in a
    // resized image only. A file's gamma or colour profile is not applied (Qt's grey conversion
    // did: the same red was grey 130 in one file and 57 in another).
    QImage image = decode(f);
    image.setColorSpace(QColorSpace());
    bool grey = image.format() == QImage::Format_Grayscale8 || image.format() == QImage::Format_Grayscale16;
    image = image.convertToFormat(grey ? QImage::Format_Grayscale8 : QImage::Format_RGB888);
    if (g.resize && (image.height() != g.height || image.width() != g.width))
        image = image.scaled(g.width, g.height, Qt::IgnoreAspectRatio, Qt::SmoothTransformation);
    if (image.height() != g.height || image.width() != g.width)
        fail(QStringLiteral("%1 is %2 x %3 pixels, and %4 (the folder's first image) %5 x %6; give the images one size, or set "
                            "training.input_shape to resize them")
                 .arg(f.path)
                 .arg(image.width())
                 .arg(image.height())
                 .arg(firstPath)
                 .arg(g.width)
                 .arg(g.height));
    if (image.format() != (grey ? QImage::Format_Grayscale8 : QImage::Format_RGB888) || (grey && g.channels == 3)) {
        image = image.convertToFormat(QImage::Format_RGB888);  // (a resize may give another format; grey goes to each channel)
        grey = false;
    }
    const size_t plane = size_t(g.height) * size_t(g.width);
    for (int y = 0; y < g.height; ++y) {
        const uchar* line = image.constScanLine(y);
        uint8_t* row = out + size_t(y) * size_t(g.width);
        if (g.channels == 1 && grey) {
            std::copy(line, line + g.width, row);
            continue;
        }
        if (g.channels == 1) {  // PIL's convert("L"), as torchvision's Grayscale: ITU-R 601-2 luma
            for (int x = 0; x < g.width; ++x)
                row[x] = uint8_t((19595u * line[3 * x] + 38470u * line[3 * x + 1] + 7471u * line[3 * x + 2] + 0x8000u) >> 16);
            continue;
        }
        for (int x = 0; x < g.width; ++x)
            for (int c = 0; c < g.channels; ++c) row[size_t(c) * plane + size_t(x)] = line[x * g.channels + c];
    }
}
#endif

}  // namespace

SampleSet readImageFolder(const QString& folder, const QStringList& wantedClasses, const ReadOptions& o) {
    const QDir root(folder);
    if (!root.exists()) fail(QStringLiteral("%1 is not a folder; an image-folder source names the folder of class folders").arg(folder));
    const int threads = o.threads > 0 ? o.threads : int(std::thread::hardware_concurrency());
    SampleSet set;
    set.classNames = wantedClasses.isEmpty() ? classFolders(root) : wantedClasses;
    QSet<QString> seen;  // (a class named twice read its images twice, under two labels)
    for (const QString& name : set.classNames)
        if (const QString clean = QDir::cleanPath(name); seen.contains(clean))
            fail(QStringLiteral("%1: class '%2' is named twice in classes; name each class folder once").arg(folder, name));
        else seen.insert(clean);
    const QList<ImageFile> files = listImages(root, set.classNames, threads);
    if (files.isEmpty())
        fail(QStringLiteral("%1 holds no PNG or JPEG images in its class folders (%2); put each class's images in its folder")
                 .arg(folder, set.classNames.join(QStringLiteral(", "))));

    const QByteArray digest = digestOf(files, set.classNames, o);
    const QString cache = o.cacheDir.isEmpty() ? QString() : imageCachePath(folder, o);
    if (!cache.isEmpty() && loadImageCache(cache, digest, files.size(), int(set.classNames.size()), &set)) return set;
#if !HIPS_IMAGE_DECODING
    fail(QStringLiteral("%1 holds images, and this build of HiPS Studio decodes none: it was built without Qt Gui; build it "
                        "where Qt Gui is installed (Debian: qt6-base-dev) to train on image folders")
             .arg(folder));
#else
    const Geometry g = geometryOf(o, files.first());
    set.type = SampleSet::Type::UInt8;
    set.sampleShape = {g.channels, g.height, g.width};
    for (const ImageFile& f : files) set.labels.push_back(f.label);
    const size_t image = size_t(g.channels) * size_t(g.height) * size_t(g.width);
    set.bytes.resize(image * size_t(files.size()));
    parallelFor(files.size(), threads,
                [&](qsizetype i) { decodeInto(files[i], g, files.first().path, set.bytes.data() + image * size_t(i)); });
    if (!cache.isEmpty()) storeImageCache(cache, digest, set);
    return set;
#endif
}

}  // namespace hips
