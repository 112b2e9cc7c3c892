// The image-folder reader on PNG and JPEG files made here: sorted class folders, exact planar
// bytes, grey and RGB, resizing, the decoded copy it caches, every broken folder named; and the
// checks every source passes before its reader runs.
#include "DataFormatsSupport.h"
#include "DataReaders.h"

#include <QBuffer>
#include <QDir>
#include <QTemporaryDir>
#include <QtTest>
#include <sys/stat.h>
#include <unistd.h>

using namespace hips;
using namespace hips::test;

class ImageFolderTest : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    QString path(const QString& name) const { return m_dir.filePath(name); }

private Q_SLOTS:
    // Sorted class folders, exact planar bytes, grey and RGB, PNG and JPEG, resizing.
    void imageFolderValues() {
        const QString root = path("images");
        const auto rgb = [](int x, int y) { return qRgb(10 + x, 20 + y, 30 + x + y); };
        QVERIFY(save(image(3, 2, QImage::Format_RGB32, rgb), root + "/b_class/z.png"));  // (made before a_class: the order is the names')
        QVERIFY(QDir().mkpath(root + "/a_class"));
        QVERIFY(save(image(3, 2, QImage::Format_RGB32, [](int, int) { return qRgb(1, 2, 3); }), root + "/a_class/IMG.PNG"));
        QVERIFY(write(root + "/a_class/notes.txt", "not an image"));
        QVERIFY(save(image(3, 2, QImage::Format_RGB32, rgb), root + "/b_class/a.png"));
        ReadOptions own;  // the files' own size and colours
        const SampleSet s = readSamples({"image-folder", root, {}}, own);
        QCOMPARE(s.classNames, (QStringList{"a_class", "b_class"}));
        QCOMPARE(s.labels, (std::vector<int64_t>{0, 1, 1}));
        QCOMPARE(s.sampleShape, (std::vector<int64_t>{3, 2, 3}));
        std::vector<uint8_t> planar;  // b_class/a.png: R plane, G plane, B plane, each row by row
        for (int c = 0; c < 3; ++c)
            for (int y = 0; y < 2; ++y)
                for (int x = 0; x < 3; ++x)
                    planar.push_back(uint8_t(c == 0 ? qRed(rgb(x, y)) : c == 1 ? qGreen(rgb(x, y)) : qBlue(rgb(x, y))));
        QCOMPARE(std::vector<uint8_t>(s.bytes.begin() + 18, s.bytes.begin() + 36), planar);
        QCOMPARE(std::vector<uint8_t>(s.bytes.begin(), s.bytes.begin() + 3), (std::vector<uint8_t>{1, 1, 1}));

        ReadOptions grey;
        grey.channels = 1;
        grey.threads = 1;
        const SampleSet g = readSamples({"image-folder", root, {{"classes", "b_class"}}}, grey);
        QCOMPARE(g.classNames, QStringList{"b_class"});
        QCOMPARE(g.sampleShape, (std::vector<int64_t>{1, 2, 3}));
        const auto luma = [&](int x, int y) {  // PIL's convert("L"), as torchvision's Grayscale
            const QRgb c = rgb(x, y);
            return (19595 * qRed(c) + 38470 * qGreen(c) + 7471 * qBlue(c) + 0x8000) >> 16;
        };
        QCOMPARE(int(g.bytes[0]), luma(0, 0));
        QCOMPARE(int(g.bytes[5]), luma(2, 1));
        QVERIFY(g.bytes[0] != g.bytes[5]);

        // A colour file whose pixels are all grey (the folder's first) is colour: so is the folder.
        const QString bw = path("black_and_white_first");
        QVERIFY(save(image(3, 2, QImage::Format_RGB32, [](int x, int) { return qRgb(40 * x, 40 * x, 40 * x); }), bw + "/a/1.png"));
        QVERIFY(save(image(3, 2, QImage::Format_RGB32, rgb), bw + "/a/2.png"));
        QCOMPARE(readSamples({"image-folder", bw, {}}, own).sampleShape, (std::vector<int64_t>{3, 2, 3}));
        const QString stored = path("stored_grey");
        QVERIFY(save(image(3, 2, QImage::Format_RGB32, rgb).convertToFormat(QImage::Format_Grayscale8), stored + "/a/1.png"));
        QCOMPARE(readSamples({"image-folder", stored, {}}, own).sampleShape, (std::vector<int64_t>{1, 2, 3}));

        // A name that is not UTF-8 is named as such (it was "unreadable; check its permissions").
        const QString odd = path("not_utf8");
        QVERIFY(save(image(3, 2, QImage::Format_RGB32, rgb), odd + "/a/1.png"));
        QVERIFY(::link(QFile::encodeName(odd + "/a/1.png").constData(), (QFile::encodeName(odd + "/a/") + "\xff.png").constData()) == 0);
        QString why = refusal([&] { readSamples({"image-folder", odd, {}}, own); });
        QVERIFY2(why.contains("holds a file whose name is not UTF-8") && why.contains("rename it"), qPrintable(why));
        QVERIFY(::mkdir((QFile::encodeName(odd) + "/\xfe").constData(), 0700) == 0);
        why = refusal([&] { readSamples({"image-folder", odd, {}}, own); });
        QVERIFY2(why.contains("holds a class folder whose name is not UTF-8"), qPrintable(why));

        QVERIFY(save(filled(8, 6, QColor(0, 0, 255)), root + "/c_class/photo.jpeg", "JPEG", 100));
        ReadOptions model;  // the model's input: every image resized
        model.channels = 3, model.height = 4, model.width = 5, model.threads = 3;
        const SampleSet resized = readSamples({"image-folder", root, {}}, model);
        QCOMPARE(resized.sampleShape, (std::vector<int64_t>{3, 4, 5}));
        QCOMPARE(resized.size(), int64_t(4));
        QCOMPARE(resized.labels, (std::vector<int64_t>{0, 1, 1, 2}));
        const uint8_t* jpeg = resized.bytes.data() + 3 * 60;
        QVERIFY2(jpeg[0] < 16 && jpeg[20] < 16 && jpeg[40] > 240 && jpeg[59] > 240, qPrintable(QString::number(jpeg[40])));
        QCOMPARE(int(resized.bytes[0]), 1);  // a uniform image stays uniform
        QCOMPARE(int(resized.bytes[59]), 3);
        model.threads = 1;
        QCOMPARE(readSamples({"image-folder", root, {}}, model).bytes, resized.bytes);
    }

    // Images as PIL reads them (torchvision's ImageFolder): grey and alpha is grey, a palette of
    // colours is colour, alpha is dropped before a resize, and a file's gamma changes no value.
    void imagesAreReadAsPilReadsThem() {
        const auto read = [&](const QString& name, const QByteArray& file, int channels = 0, int size = 0) {
            const QString root = path("pil_" + name);
            if (!write(root + "/a/1.png", file)) return SampleSet{};
            ReadOptions o;
            o.channels = channels, o.height = size, o.width = size, o.threads = 1;
            return readSamples({"image-folder", root, {}}, o);
        };
        // grey and alpha (Qt decodes it as ARGB32): one channel, the grey levels as stored
        const SampleSet greyAlpha = read("grey_alpha", png(2, 1, 4, bytes({100, 255, 200, 0})));
        QCOMPARE(greyAlpha.sampleShape, (std::vector<int64_t>{1, 1, 2}));
        QCOMPARE(std::vector<uint8_t>(greyAlpha.bytes.begin(), greyAlpha.bytes.end()), (std::vector<uint8_t>{100, 200}));

        QImage twoColours(2, 1, QImage::Format_Mono);  // a 1-bit palette: red and blue
        twoColours.setColorTable({qRgb(255, 0, 0), qRgb(0, 0, 255)});
        twoColours.setPixel(0, 0, 0), twoColours.setPixel(1, 0, 1);
        QByteArray file;
        QBuffer buffer(&file);
        QVERIFY(buffer.open(QIODevice::WriteOnly) && twoColours.save(&buffer, "PNG"));
        const SampleSet palette = read("palette", file);
        QCOMPARE(palette.sampleShape, (std::vector<int64_t>{3, 1, 2}));
        QCOMPARE(std::vector<uint8_t>(palette.bytes.begin(), palette.bytes.end()), (std::vector<uint8_t>{255, 0, 0, 0, 0, 255}));
        QImage twoGreys = twoColours;  // a 1-bit palette of greys: grey
        twoGreys.setColorTable({qRgb(50, 50, 50), qRgb(200, 200, 200)});
        file.clear();
        QBuffer again(&file);
        QVERIFY(again.open(QIODevice::WriteOnly) && twoGreys.save(&again, "PNG"));
        QCOMPARE(uchar(file[25]), uchar(3));  // (a palette PNG)
        const SampleSet greys = read("grey_palette", file);
        QCOMPARE(greys.sampleShape, (std::vector<int64_t>{1, 1, 2}));
        QCOMPARE(std::vector<uint8_t>(greys.bytes.begin(), greys.bytes.end()), (std::vector<uint8_t>{50, 200}));

        // red, green and blue as grey: PIL's 76, 150 and 29, whatever gamma the file states
        const QByteArray rgb = bytes({255, 0, 0, 0, 255, 0, 0, 0, 255});
        for (uint32_t gamma : {0u, 100000u, 45455u}) {
            const SampleSet grey = read(QString("gamma_%1").arg(gamma), png(3, 1, 2, rgb, gamma), 1);
            QCOMPARE(std::vector<uint8_t>(grey.bytes.begin(), grey.bytes.end()), (std::vector<uint8_t>{76, 150, 29}));
        }

        // a transparent red, resized: still red (a premultiplied resize made it black)
        const QByteArray clearRed = bytes({255, 0, 0, 0}).repeated(4);
        for (int size : {2, 4}) {
            const SampleSet red = read(QString("clear_%1").arg(size), png(2, 2, 6, clearRed), 3, size);
            const int64_t plane = size * size;
            QVERIFY2(red.bytes[0] == 255 && red.bytes[plane] == 0 && red.bytes[2 * plane] == 0,
                     qPrintable(QString("size %1: %2 %3 %4").arg(size).arg(red.bytes[0]).arg(red.bytes[plane]).arg(red.bytes[2 * plane])));
        }
    }

    void badImageFoldersAreNamed() {
        const QString root = path("badimages");
        QVERIFY(save(filled(4, 4, Qt::red), root + "/cat/a.png"));
        QVERIFY(save(filled(6, 6, Qt::red), root + "/cat/b.png"));
        ReadOptions own;
        QString why = refusal([&] { readSamples({"image-folder", root, {}}, own); });
        QVERIFY2(why.startsWith(root + "/cat/b.png is 6 x 6 pixels, and " + root + "/cat/a.png (the folder's first image) 4 x 4"),
                 qPrintable(why));
        QVERIFY(QFile::remove(root + "/cat/b.png"));
        QVERIFY(write(root + "/cat/broken.png", "not a png"));
        why = refusal([&] { readSamples({"image-folder", root, {}}, own); });
        QVERIFY2(why.startsWith("cannot decode " + root + "/cat/broken.png (") &&
                     why.size() > QString("cannot decode " + root + "/cat/broken.png ()").size(),
                 qPrintable(why));
        QVERIFY(QFile::remove(root + "/cat/broken.png"));
        why = refusal([&] { readSamples({"image-folder", root, {{"classes", "cat,cow"}}}, own); });
        QVERIFY2(why.startsWith(root + "/cow does not exist; the source's classes option names the sub-folders"), qPrintable(why));
        QVERIFY2(why.contains("(a class this party has no images of: make its folder, and leave it empty)"), qPrintable(why));
        // An empty class folder is a class this party has no images of: the labels after it stay.
        QVERIFY(QDir().mkpath(root + "/bird"));
        QVERIFY(save(filled(4, 4, Qt::red), root + "/dog/a.png"));
        const SampleSet lacking = readSamples({"image-folder", root, {}}, own);
        QCOMPARE(lacking.classNames, (QStringList{"bird", "cat", "dog"}));
        QCOMPARE(lacking.labels, (std::vector<int64_t>{1, 2}));
        QVERIFY(QFile::remove(root + "/dog/a.png"));
        why = refusal([&] { readSamples({"image-folder", root, {{"classes", "bird,dog"}}}, own); });
        QVERIFY2(why == root + " holds no PNG or JPEG images in its class folders (bird, dog); put each class's images in its folder",
                 qPrintable(why));
        QVERIFY(QDir().mkpath(path("noclasses")));
        why = refusal([&] { readSamples({"image-folder", path("noclasses"), {}}, own); });
        QVERIFY2(why.startsWith(path("noclasses") + " holds no class folders"), qPrintable(why));
        why = refusal([&] { readSamples({"image-folder", root + "/cat/a.png", {}}, own); });
        QVERIFY2(why.startsWith(root + "/cat/a.png is not a folder; for the image-folder format the path names"), qPrintable(why));
        // Four channels (an RGBA model's input) were read 3 bytes a pixel, past each row's end.
        ReadOptions rgba;
        rgba.channels = 4, rgba.height = 4, rgba.width = 4;
        why = refusal([&] { readSamples({"image-folder", root, {{"classes", "cat"}}}, rgba); });
        QVERIFY2(why.contains("a.png: images are read as grey (1 channel) or RGB (3 channels), and training.input_shape asks for 4"),
                 qPrintable(why));
        // A class named twice read its images twice, under two labels.
        why = refusal([&] { readSamples({"image-folder", root, {{"classes", "cat,cat/"}}}, own); });
        QVERIFY2(why == root + ": class 'cat/' is named twice in classes; name each class folder once", qPrintable(why));
    }

    // The decoded set is cached (owner-only, written whole), read back while the files stay the
    // same, decoded anew when one changes, and rewritten when the cache file is damaged.
    void imageCache() {
        const QString root = path("cached"), cache = path("cache/data");
        QVERIFY(save(filled(4, 4, QColor(200, 0, 0)), root + "/cat/a.png"));
        QVERIFY(save(filled(4, 4, QColor(0, 100, 0)), root + "/dog/b.png"));
        ReadOptions o;
        o.channels = 3, o.height = 2, o.width = 2, o.cacheDir = cache;
        const SampleSet first = readSamples({"image-folder", root, {}}, o);
        QCOMPARE(int(first.bytes.back()), 0);  // dog's blue plane
        QCOMPARE(cacheFiles(cache).size(), 1);  // no temporary file left
        const QString file = QDir(cache).filePath(cacheFiles(cache).value(0));
        QCOMPARE(QFileInfo(file).permissions() &
                     (QFileDevice::ReadGroup | QFileDevice::ReadOther | QFileDevice::WriteGroup | QFileDevice::WriteOther),
                 QFileDevice::Permissions());
        QCOMPARE(QFileInfo(cache).permissions() & (QFileDevice::ReadOther | QFileDevice::ExeOther), QFileDevice::Permissions());

        QByteArray bytes = contents(file);  // mark the cached copy: the next read must return the mark
        bytes[bytes.size() - 1] = char(77);
        QVERIFY(write(file, bytes));
        SampleSet again = readSamples({"image-folder", root, {}}, o);
        QCOMPARE(int(again.bytes.back()), 77);
        QCOMPARE(again.labels, first.labels);
        QCOMPARE(again.classNames, first.classNames);
        QCOMPARE(again.sampleShape, first.sampleShape);

        QVERIFY(save(filled(4, 4, QColor(0, 100, 50)), root + "/dog/b.png"));  // changed: decoded anew
        QFile changed(root + "/dog/b.png");
        QVERIFY(changed.open(QIODevice::ReadWrite));
        QVERIFY(changed.setFileTime(QDateTime::currentDateTime().addSecs(5), QFileDevice::FileModificationTime));
        changed.close();
        again = readSamples({"image-folder", root, {}}, o);
        QCOMPARE(int(again.bytes.back()), 50);
        QCOMPARE(cacheFiles(cache).size(), 1);  // the folder's cache file, rewritten
        QCOMPARE(int(uint8_t(contents(file).back())), 50);

        QVERIFY(write(file, contents(file).left(60)));  // damaged: ignored and rewritten
        again = readSamples({"image-folder", root, {}}, o);
        QCOMPARE(int(again.bytes.back()), 50);
        QCOMPARE(contents(file).size(), bytes.size());
        QVERIFY(write(file, QByteArray(bytes.size(), 'x')));  // foreign bytes of the right size
        QCOMPARE(int(readSamples({"image-folder", root, {}}, o).bytes.back()), 50);

        ReadOptions other = o;  // other decoding settings: a cache file of their own
        other.channels = 1;
        QCOMPARE(readSamples({"image-folder", root, {}}, other).sampleShape, (std::vector<int64_t>{1, 2, 2}));
        QCOMPARE(cacheFiles(cache).size(), 2);
    }

    void sourcesAreChecked() {
        QString why = refusal([&] { readSamples({"hdf5", path("x"), {}}); });
        QVERIFY2(why == "'hdf5' is not a data format; use one of: idx, cifar-binary, image-folder, npy, npz, csv", qPrintable(why));
        why = refusal([&] { readSamples({"npz", "/nonexistent/party.npz", {}}); });
        QVERIFY2(why.startsWith("/nonexistent/party.npz does not exist; check the data source's path"), qPrintable(why));
        why = refusal([&] { readSamples({"csv", "", {}}); });
        QVERIFY2(why.startsWith("the csv data source has no path"), qPrintable(why));
        why = refusal([&] { readSamples({"npz", m_dir.path(), {}}); });
        QVERIFY2(why.startsWith(m_dir.path() + " is a folder; for the npz format the path names the .npz file"), qPrintable(why));
        QVERIFY(write(path("file.csv"), "label,a\n0,1\n"));
        why = refusal([&] { readSamples({"npy", path("file.csv"), {}}); });
        QVERIFY2(why.startsWith(path("file.csv") + " is not a folder; for the npy format the path names a folder holding the two arrays"),
                 qPrintable(why));
    }
};

QTEST_GUILESS_MAIN(ImageFolderTest)
#include "tst_imagefolder.moc"
