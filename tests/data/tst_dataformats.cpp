// The readers of the parties' own data, on files made here byte by byte (npy headers, zip
// archives, gzip, IDX, CIFAR records, csv text, PNG and JPEG images): every format's values,
// shapes and labels exactly, the image cache, and every broken file refused with its name
// (file:line for csv) and what to do.
#include "DataFormatsSupport.h"
#include "DataCheck.h"
#include "DataReaders.h"

#include <QTemporaryDir>
#include <QtTest>
#include <limits>
#include <cmath>
#include <cstring>

using namespace hips;
using namespace hips::test;

class DataFormatsTest : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    QString path(const QString& name) const { return m_dir.filePath(name); }

private Q_SLOTS:
    void npyFeaturesAndLabels() {
        QVERIFY(write(path("npy/x.npy"), npy("<f4", "2, 3", raw<float>({1, 2, 3, 4, 5, 6.5f}))));
        QVERIFY(write(path("npy/y.npy"), npy("<i8", "2,", raw<int64_t>({1, 0}))));
        const SampleSet s = readSamples({"npy", path("npy"), {{"classes", "cat, dog,cow"}}});
        QCOMPARE(s.type, SampleSet::Type::Float32);
        QCOMPARE(s.size(), int64_t(2));
        QCOMPARE(s.sampleShape, (std::vector<int64_t>{3}));
        QCOMPARE(s.elements(), int64_t(3));
        QCOMPARE(s.floats, (std::vector<float>{1, 2, 3, 4, 5, 6.5f}));
        QCOMPARE(s.labels, (std::vector<int64_t>{1, 0}));
        QCOMPARE(s.classCounts(3), (std::vector<int64_t>{1, 1, 0}));
        QCOMPARE(s.classCounts(1), (std::vector<int64_t>{1}));  // labels past the count are not counted
        QCOMPARE(s.classNames, (QStringList{"cat", "dog", "cow"}));
        // hips check-data's counts: the named classes, empty ones too, and the labels there are (a
        // table's ID column read as labels: one count for each label up to 10⁹ filled memory).
        QCOMPARE(describeSamples(s), QStringLiteral("2 samples of 3; by class: cat: 1, dog: 1, cow: 0"));
        SampleSet ids = s;
        ids.labels = {1000000000, 0}, ids.classNames = {};
        QCOMPARE(describeSamples(ids), QStringLiteral("2 samples of 3; by class: 0: 1, 1000000000: 1"));
        ids.labels.clear();
        for (int64_t l = 0; l < 200; ++l) ids.labels.push_back(l);
        QVERIFY(describeSamples(ids).endsWith("99: 1, and 100 more labels, the largest 199"));
    }

    // The data check says what the run would refuse: a label beyond the classes, samples of
    // another shape, none at all (it printed their counts, and every worker then refused them);
    // the same through a request for another host.
    void theCheckRefusesWhatTheModelCannotTake() {
        const QString file = path("check/t.csv");
        QVERIFY(write(file, "label,a,b\n1,0.5,1\n10,2,3\n"));
        ReadOptions options;
        options.classes = 10;
        const DataSource source{"csv", file, {}};
        QString why = refusal([&] { checkSource(source, options); });
        QVERIFY2(why.startsWith("the data holds label 10, and the model has 10 classes (0 to 9); set training.classes"), qPrintable(why));
        why = refusal([&] { runDataCheckRequest(dataCheckRequest(source, options)); });
        QVERIFY2(why.startsWith("the data holds label 10"), qPrintable(why));
        options.classes = 11;
        QVERIFY(checkSource(source, options).startsWith("2 samples of 2"));
        options.modelShape = {3};
        why = refusal([&] { runDataCheckRequest(dataCheckRequest(source, options)); });
        QVERIFY2(why.startsWith("the data holds samples of 2, and the model takes 3"), qPrintable(why));
        QVERIFY(write(file, "label,a,b\n"));
        why = refusal([&] { checkSource(source, options); });
        QVERIFY2(why.startsWith("the data holds no samples"), qPrintable(why));
    }

    // uint8 images, each header version, labels of each integer type, named files.
    void npyVersionsAndTypes_data() {
        QTest::addColumn<int>("version");
        QTest::addColumn<QByteArray>("labels");
        QTest::newRow("1.0, uint8 labels") << 1 << npy("|u1", "2,", raw<uint8_t>({4, 7}), false, 1);
        QTest::newRow("2.0, int32 labels") << 2 << npy("<i4", "2,", raw<int32_t>({4, 7}), false, 2);
        QTest::newRow("3.0, int64 labels") << 3 << npy("<i8", "2,", raw<int64_t>({4, 7}), false, 3);
        QTest::newRow("labels as a column (N, 1)") << 1 << npy("<i8", "2, 1", raw<int64_t>({4, 7}));
        QTest::newRow("uint8 column") << 1 << npy("|u1", "2, 1", raw<uint8_t>({4, 7}));
    }

    void npyVersionsAndTypes() {
        QFETCH(int, version);
        QFETCH(QByteArray, labels);
        QVERIFY(write(path("npy2/img.npy"), npy("|u1", "2, 1, 2, 2", raw<uint8_t>({0, 1, 2, 3, 250, 251, 252, 255}), false, version)));
        QVERIFY(write(path("npy2/lab.npy"), labels));
        const SampleSet s = readSamples({"npy", path("npy2"), {{"x", "img.npy"}, {"y", path("npy2/lab.npy")}}});
        QCOMPARE(s.type, SampleSet::Type::UInt8);
        QCOMPARE(s.sampleShape, (std::vector<int64_t>{1, 2, 2}));
        QCOMPARE(s.bytes, (std::vector<uint8_t>{0, 1, 2, 3, 250, 251, 252, 255}));
        QVERIFY(s.floats.empty());
        QCOMPARE(s.labels, (std::vector<int64_t>{4, 7}));
    }

    void npyOneFeatureASample() {
        const SampleSet s = parseNpyPair(npy("<f4", "3,", raw<float>({0.25f, -1, 1e-3f})), npy("|u1", "3,", raw<uint8_t>({0, 1, 0})), "p");
        QCOMPARE(s.sampleShape, (std::vector<int64_t>{1}));
        QCOMPARE(s.floats, (std::vector<float>{0.25f, -1, 1e-3f}));
        const NpyArray a = parseNpy(npy("<i4", "2, 2", raw<int32_t>({-1, 2, 3, 2147483647})), "a.npy");
        QCOMPARE(a.descr, QString("<i4"));
        QCOMPARE(a.size, 4);
        QCOMPARE(a.shape, (std::vector<int64_t>{2, 2}));
        QCOMPARE(a.integers, (std::vector<int64_t>{-1, 2, 3, 2147483647}));
    }

    void badNpyFilesAreNamed_data() {
        QTest::addColumn<QByteArray>("x");
        QTest::addColumn<QByteArray>("y");
        QTest::addColumn<QString>("message");
        const QByteArray x = npy("<f4", "2, 1", raw<float>({1, 2})), y = npy("<i8", "2,", raw<int64_t>({0, 1}));
        QByteArray longHeader = x;
        longHeader[8] = char(0xff), longHeader[9] = char(0x7f);
        QByteArray version4 = x;
        version4[6] = 4;
        QTest::newRow("not npy") << QByteArray("hello, world") << y << "party (x) is not a NumPy .npy file";
        QTest::newRow("version 4") << version4 << y << "party (x): .npy format version 4 is not one this reads";
        QTest::newRow("header past the end") << longHeader << y << "party (x): its .npy header is longer than the file";
        QTest::newRow("cut in the magic") << x.left(9) << y << "party (x) is not a NumPy .npy file";
        QTest::newRow("float64") << npy("<f8", "2, 1", raw<double>({1, 2})) << y
                                 << "party (x) holds '<f8' values; the features must be float32 ('<f4') or uint8 ('|u1')";
        QTest::newRow("big-endian") << npy(">f4", "2, 1", raw<float>({1, 2})) << y << "party (x) holds '>f4' values (big-endian)";
        QTest::newRow("structured") << QByteArray(npy("<f4", "2, 1", raw<float>({1, 2})).replace("'<f4'", "[('a', '<f4')]")) << y
                                    << "party (x): its .npy header has no plain 'descr'";
        QTest::newRow("fortran order") << npy("<f4", "2, 1", raw<float>({1, 2}), true) << y << "party (x) is stored in Fortran order";
        QTest::newRow("cut data") << x.chopped(2) << y << "party (x): its header promises 8 bytes of data, the file holds 6";
        QTest::newRow("extra data") << x + "ab" << y << "party (x): its header promises 8 bytes of data, the file holds 10";
        QTest::newRow("huge shape") << npy("<f4", "99999999999, 99999", {}) << y
                                    << "party (x): its .npy shape (99999999999, 99999) is larger";
        QTest::newRow("overflowing shape") << npy("<f4", "4294967296, 4294967296, 4294967296", {}) << y << "is larger than any data set";
        QTest::newRow("negative size") << npy("<f4", "-2, 1", {}) << y << "is not a tuple of sizes";
        QTest::newRow("a single value") << npy("<f4", "", raw<float>({1})) << y << "party (x) holds a single value";
        QTest::newRow("int64 features") << npy("<i8", "2, 1", raw<int64_t>({1, 2})) << y << "party (x) holds '<i8' features";
        QTest::newRow("labels disagree") << x << npy("<i8", "3,", raw<int64_t>({0, 1, 2}))
                                         << "party (y) holds labels of shape (3,) for 2 samples";
        QTest::newRow("labels a matrix") << x << npy("<i8", "2, 2", raw<int64_t>({0, 1, 2, 3})) << "party (y) holds labels of shape (2, 2)";
        QTest::newRow("negative label") << x << npy("<i8", "2,", raw<int64_t>({0, -3})) << "party (y): label -3 of sample 1 is negative";
        QTest::newRow("a missing value") << npy("<f4", "2, 2", raw<float>({1, 2, 3, std::numeric_limits<float>::quiet_NaN()})) << y
                                         << "party (x): feature 1 of sample 1 is not a finite number (nan)";
        QTest::newRow("negative int32") << x << npy("<i4", "2,", raw<int32_t>({-1, 0})) << "party (y): label -1 of sample 0 is negative";
        QTest::newRow("float labels") << x << npy("<f4", "2,", raw<float>({0, 1})) << "party (y) holds '<f4' labels";
    }

    void badNpyFilesAreNamed() {
        QFETCH(QByteArray, x);
        QFETCH(QByteArray, y);
        QFETCH(QString, message);
        const QString why = refusal([&] { parseNpyPair(x, y, "party"); });
        QVERIFY2(why.contains(message), qPrintable(why));
    }

    // The reader names the real files.
    void npyFilesAreNamed() {
        QVERIFY(write(path("bad/x.npy"), npy("<f8", "1, 1", raw<double>({1}))));
        QVERIFY(write(path("bad/y.npy"), npy("<i8", "1,", raw<int64_t>({0}))));
        QString why = refusal([&] { readSamples({"npy", path("bad"), {}}); });
        QVERIFY2(why.startsWith(path("bad/x.npy") + " holds '<f8' values"), qPrintable(why));
        QVERIFY(write(path("bad/x.npy"), npy("<f4", "1, 1", raw<float>({1}))));
        why = refusal([&] { readSamples({"npy", path("bad"), {{"y", "labels.npy"}}}); });
        QVERIFY2(why.startsWith(path("bad/labels.npy") + " does not exist"), qPrintable(why));
    }

    void npzStoredAndDeflated_data() {
        QTest::addColumn<bool>("deflate");
        QTest::addColumn<bool>("zip64");
        QTest::newRow("numpy.savez") << false << false;
        QTest::newRow("numpy.savez_compressed") << true << false;
        QTest::newRow("zip64, stored") << false << true;
        QTest::newRow("zip64, deflated") << true << true;
    }

    void npzStoredAndDeflated() {
        QFETCH(bool, deflate);
        QFETCH(bool, zip64);
        const QByteArray x = npy("<f4", "3, 2", raw<float>({0.5f, 1, 2, 3, 4, 5})), y = npy("<i4", "3,", raw<int32_t>({2, 1, 0}));
        const QString file = path(QStringLiteral("npz/%1%2.npz").arg(deflate).arg(zip64));
        QVERIFY(write(file, zip({{"features.npy", x}, {"y.npy", y}}, {deflate, zip64})));
        const SampleSet s = readSamples({"npz", file, {{"x", "features"}}});
        QCOMPARE(s.sampleShape, (std::vector<int64_t>{2}));
        QCOMPARE(s.floats, (std::vector<float>{0.5f, 1, 2, 3, 4, 5}));
        QCOMPARE(s.labels, (std::vector<int64_t>{2, 1, 0}));
        QCOMPARE(readSamples({"npz", file, {{"x", "features.npy"}, {"y", "y.npy"}}}).labels, s.labels);
        const QString why = refusal([&] { readSamples({"npz", file, {}}); });
        QVERIFY2(why == file + " holds no array 'x' (it holds: features.npy, y.npy); set the source's x and y options to the arrays' names",
                 qPrintable(why));
    }

    void badNpzFilesAreNamed_data() {
        QTest::addColumn<QByteArray>("archive");
        QTest::addColumn<QString>("message");
        const QByteArray x = npy("<f4", "2, 1", raw<float>({1, 2})), y = npy("<i8", "2,", raw<int64_t>({0, 1}));
        const QByteArray stored = zip({{"x.npy", x}, {"y.npy", y}}), packed = zip({{"x.npy", x}, {"y.npy", y}}, {true});
        QByteArray flipped = stored, flippedPacked = packed, badCentral = stored, farLocal = stored, badOffset = stored, bigRaw = packed;
        flipped[30 + 5 + 70] = char(flipped[30 + 5 + 70] ^ 0x55);  // in x.npy's values
        flippedPacked[30 + 5 + 8] = char(flippedPacked[30 + 5 + 8] ^ 0x55);
        const qsizetype central = stored.indexOf(QByteArray("PK\x01\x02", 4)), end = stored.indexOf(QByteArray("PK\x05\x06", 4));
        badCentral[central + 1] = 'X';
        farLocal[central + 42 + 3] = char(0x70);  // x.npy's local header "at" 1.8 GB
        badOffset[end + 16 + 3] = char(0x70);  // the central directory "at" 1.8 GB
        const qsizetype packedCentral = packed.indexOf(QByteArray("PK\x01\x02", 4));
        bigRaw[packedCentral + 24 + 3] = char(0x40);  // x.npy "inflates to" 1 GB
        QTest::newRow("not a zip") << QByteArray("hello, world, this is not a zip archive")
                                   << "is not a zip archive (no end of central directory)";
        QTest::newRow("empty") << QByteArray() << "is not a zip archive";
        QTest::newRow("stored, damaged") << flipped << "party.npz:x.npy is damaged (its CRC-32 does not match)";
        QTest::newRow("deflated, damaged") << flippedPacked << "party.npz:x.npy is damaged";
        QTest::newRow("cut in half") << stored.left(stored.size() / 2) << "party.npz is not a zip archive";
        QTest::newRow("cut at the end") << stored.chopped(1) << "party.npz is not a zip archive";
        QTest::newRow("central directory damaged") << badCentral << "its central directory is damaged";
        QTest::newRow("local header past the end") << farLocal << "party.npz is not a whole zip archive (a record runs past its end)";
        QTest::newRow("directory past the end") << badOffset << "party.npz is not a whole zip archive";
        QTest::newRow("size beyond deflate's ratio") << bigRaw << "party.npz is not a whole zip archive (the sizes of x.npy do not agree)";
        QTest::newRow("encrypted") << zip({{"x.npy", x}, {"y.npy", y}}, {false, false, 1}) << "party.npz:x.npy is encrypted";
        QTest::newRow("bzip2") << zip({{"x.npy", x}, {"y.npy", y}}, {false, false, 0, 12})
                               << "party.npz:x.npy is compressed with zip method 12";
        QTest::newRow("no arrays") << zip({}) << "party.npz holds no array 'x' (it holds: nothing)";
        QTest::newRow("x not an npy") << zip({{"x.npy", "text"}, {"y.npy", y}}) << "party.npz:x.npy is not a NumPy .npy file";
    }

    void badNpzFilesAreNamed() {
        QFETCH(QByteArray, archive);
        QFETCH(QString, message);
        const QString file = path("npzbad/party.npz");
        QVERIFY(write(file, archive));
        const QString why = refusal([&] { readSamples({"npz", file, {}}); });
        QVERIFY2(why.startsWith(path("npzbad/")) && why.contains(message), qPrintable(why));
    }

    void csvTable() {
        const QString file = path("t.csv");
        QVERIFY(write(file,
                      "\xEF\xBB\xBF"
                      "a, label ,b\n1.5,2,-3e2\n\n\"4\",0,+5\r\n  .25 ,\t1\t, 1e-2\n7,3,8"));
        const SampleSet s = readSamples({"csv", file, {}});
        QCOMPARE(s.type, SampleSet::Type::Float32);
        QCOMPARE(s.sampleShape, (std::vector<int64_t>{2}));
        QCOMPARE(s.floats, (std::vector<float>{1.5f, -300, 4, 5, 0.25f, 0.01f, 7, 8}));
        QCOMPARE(s.labels, (std::vector<int64_t>{2, 0, 1, 3}));
        QVERIFY(s.classNames.isEmpty());
    }

    void csvClassNamesAndDelimiters() {
        const QString file = path("named.csv");
        QVERIFY(write(file, "x;y;kind\n1;2;dog\n3;4;cat\n5;6;\"big; cat\"\n7;8;\"say \"\"hi\"\"\"\n9;10;1\n"));
        const DataSource source{"csv", file, {{"label", "kind"}, {"delimiter", ";"}, {"classes", "cat,dog,big; cat,say \"hi\""}}};
        const SampleSet named = readSamples(source);  // (the classes option is comma-separated: "big; cat" is one)
        QCOMPARE(named.labels, (std::vector<int64_t>{1, 0, 2, 3, 1}));  // names, and an index
        QCOMPARE(named.floats, (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
        QCOMPARE(named.classNames, (QStringList{"cat", "dog", "big; cat", "say \"hi\""}));
        QVERIFY(write(file, "label\tf\n0\t1.5\n1\t2.5\n"));
        QCOMPARE(readSamples({"csv", file, {{"delimiter", "\t"}}}).floats, (std::vector<float>{1.5f, 2.5f}));
        QString why = refusal([&] { readSamples({"csv", file, {{"delimiter", "\\t"}}}); });
        QVERIFY2(why.contains(file) && why.contains("has delimiter '\\t'; give one character"), qPrintable(why));
        why = refusal([&] { parseCsv("label\"f\n", "label", '"', file); });
        QVERIFY2(why.startsWith(file + ": the delimiter '\"' cannot separate csv fields"), qPrintable(why));
    }

    void badCsvRowsNameTheirLine_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QStringList>("classes");
        QTest::addColumn<QString>("message");
        const QStringList none;
        QTest::newRow("no label column")
            << QByteArray("a,b\n1,2\n") << none
            << "t.csv:1: no column 'label' for the labels; the header has: a, b (set the source's label option";
        QTest::newRow("label alone") << QByteArray("label\n1\n") << none << "t.csv:1: no feature column beside the label column 'label'";
        QTest::newRow("short row") << QByteArray("label,a,b\n0,1,2\n1,2\n") << none << "t.csv:3: 2 fields where the header has 3";
        QTest::newRow("long row") << QByteArray("label,a\n0,1\n\n1,2,3\n") << none << "t.csv:4: 3 fields where the header has 2";
        QTest::newRow("text feature") << QByteArray("label,a\n0,1\n1,2\n0,x7\n") << none
                                      << "t.csv:4: column 'a' holds 'x7', not a finite number";
        QTest::newRow("empty feature") << QByteArray("label,a\n0,\n") << none << "t.csv:2: column 'a' holds '', not a finite number";
        QTest::newRow("nan") << QByteArray("label,a\n0,nan\n") << none << "t.csv:2: column 'a' holds 'nan', not a finite number";
        QTest::newRow("too large for float32") << QByteArray("label,a\n0,1e39\n") << none
                                               << "t.csv:2: column 'a' holds '1e39', beyond a float32's range (±3.4e38)";
        QTest::newRow("negative label") << QByteArray("label,a\n-1,1\n") << none << "t.csv:2: label '-1' is not a whole number >= 0";
        QTest::newRow("fractional label") << QByteArray("label,a\n1.5,1\n") << none << "t.csv:2: label '1.5' is not a whole number >= 0";
        QTest::newRow("name without classes")
            << QByteArray("label,a\ncat,1\n") << none
            << "t.csv:2: label 'cat' is not a whole number >= 0; to use class names, list them in the source's classes option";
        QTest::newRow("unknown class") << QByteArray("label,a\ncat,1\ncow,2\n") << QStringList{"cat", "dog"}
                                       << "t.csv:3: label 'cow' is neither one of the source's classes (cat, dog) nor a class index";
        QTest::newRow("index past the classes") << QByteArray("label,a\n2,1\n") << QStringList{"cat", "dog"}
                                                << "t.csv:2: label 2 is not a class index: the source names 2 classes (cat, dog)";
        QTest::newRow("open quote") << QByteArray("label,a\n0,\"1\n") << none << "t.csv:2: a quote is not closed";
        QTest::newRow("text after quote") << QByteArray("label,a\n0,\"1\"2\n") << none << "t.csv:2: text follows a closing quote";
        QTest::newRow("empty") << QByteArray("") << none << "t.csv is empty";
        QTest::newRow("blank") << QByteArray(" \n\n") << none << "t.csv is empty";
    }

    void badCsvRowsNameTheirLine() {
        QFETCH(QByteArray, text);
        QFETCH(QStringList, classes);
        QFETCH(QString, message);
        const QString why = refusal([&] { parseCsv(text, "label", ',', "t.csv", classes); });
        QVERIFY2(why.startsWith(message), qPrintable(why));
    }

    // Values below float32's smallest, as a float64 export holds them (p-values), are what a
    // float32 makes of them (0, or a denormal), not refused as "not a finite number".
    void tinyValuesAreTakenAsAFloat32HoldsThem() {
        const SampleSet s = parseCsv("label,a,b,c\n0,1e-50,-2.2e-308,1e-40\n", "label", ',', "t.csv");
        QCOMPARE(s.floats.size(), size_t(3));
        QCOMPARE(s.floats[0], 0.0f);
        QCOMPARE(s.floats[1], -0.0f);
        QCOMPARE(s.floats[2], float(1e-40));
        QVERIFY(s.floats[2] > 0);
    }

    // task: regression: the label column holds targets, any finite number; a bad one names file:line.
    void csvTargetsForARegression() {
        const SampleSet s = parseCsv("price,a\n1.5,2\n-0.25,3\n1e3,4\n", "price", ',', "t.csv", {}, true);
        QVERIFY(s.regression());
        QCOMPARE(s.size(), int64_t(3));
        QCOMPARE(s.targets, (std::vector<float>{1.5f, -0.25f, 1000.f}));
        QVERIFY(s.labels.empty());
        QCOMPARE(s.floats, (std::vector<float>{2, 3, 4}));
        QCOMPARE(describeSamples(s), QStringLiteral("3 samples of 1; 1 target(s) a sample"));  // no value of the data
        const QString why = refusal([&] { parseCsv("price,a\n1,2\nnan,3\n", "price", ',', "t.csv", {}, true); });
        QVERIFY2(why.startsWith("t.csv:3: the target column 'price' holds 'nan', not a finite number"), qPrintable(why));
        // A classifier's label column with a fraction is still refused, naming it.
        QVERIFY(refusal([&] { parseCsv("price,a\n1.5,2\n", "price", ',', "t.csv"); }).contains("not a whole number"));
    }

    // A regression's y: (N,) or (N, T) of any type the readers take, as floats.
    void npyTargetsForARegression() {
        const QByteArray x = npy("<f4", "2, 1", raw<float>({1, 2}));
        SampleSet s = parseNpyPair(x, npy("<f4", "2,", raw<float>({0.5f, -2})), "p", true);
        QCOMPARE(s.targetWidth, int64_t(1));
        QCOMPARE(s.targets, (std::vector<float>{0.5f, -2}));
        s = parseNpyPair(x, npy("<i8", "2, 2", raw<int64_t>({1, 2, 3, 4})), "p", true);
        QCOMPARE(s.targetWidth, int64_t(2));
        QCOMPARE(s.size(), int64_t(2));
        QCOMPARE(s.targets, (std::vector<float>{1, 2, 3, 4}));
        QVERIFY(refusal([&] {
                    parseNpyPair(x, npy("<f4", "3,", raw<float>({1, 2, 3})), "p", true);
                }).contains("p (y) holds targets of shape (3,) for 2 samples"));
        QVERIFY(refusal([&] {
                    parseNpyPair(x, npy("<f4", "2,", raw<float>({1, std::numeric_limits<float>::infinity()})), "p", true);
                }).contains("target inf of sample 1 is not a finite number"));
        // Float labels to a classifier: the refusal says how a regression takes them.
        QVERIFY(refusal([&] { parseNpyPair(x, npy("<f4", "2,", raw<float>({0, 1})), "p"); }).contains("training.task \"regression\""));
    }

    // A long table is parsed in runs of lines on several threads: the values come out in the
    // file's order, and a bad row's line number counts every line before it.
    void longTablesKeepOrderAndLines() {
        QByteArray text = "label,a,b\n";
        const int rows = 200000;  // ~2.6 MB: more than one thread's share
        for (int i = 0; i < rows; ++i)
            text += QByteArray::number(i % 7) + ',' + QByteArray::number(i) + ",0.5" + (i % 1000 == 0 ? "\n\n" : "\n");
        const SampleSet s = parseCsv(text, "label", ',', "t.csv");
        QCOMPARE(s.size(), int64_t(rows));
        bool inOrder = true;
        for (int i = 0; i < rows; ++i) inOrder = inOrder && s.labels[size_t(i)] == i % 7 && s.floats[size_t(2 * i)] == float(i);
        QVERIFY(inOrder);
        const qsizetype at = text.indexOf(",199990,");
        QVERIFY(at > 0);
        const int64_t line = text.left(at).count('\n') + 1;
        text.insert(at + 7, "x");  // 199990 -> 199990x in column a
        const QString why = refusal([&] { parseCsv(text, "label", ',', "t.csv"); });
        QVERIFY2(why.startsWith(QStringLiteral("t.csv:%1: column 'a' holds '199990x'").arg(line)), qPrintable(why));
    }

    // A file is parsed a block at a time on each thread: lines across blocks and runs, a line
    // longer than a block, and a bad row's line number anywhere.
    void longFilesAreReadInBlocks() {
        const QString file = path("long.csv");
        QByteArray text = "label,a,b\n";
        const int rows = 400000;  // ~5 MB: runs of several blocks
        for (int i = 0; i < rows; ++i)
            text +=
                QByteArray::number(i % 7) + ',' + QByteArray::number(i) + (i == 7 ? "," + QByteArray(3 << 20, ' ') + "0.5\n" : ",0.5\n");
        QVERIFY(write(file, text));
        const SampleSet s = readCsv(file, "label");
        QCOMPARE(s.size(), int64_t(rows));
        bool inOrder = true;
        for (int i = 0; i < rows; ++i)
            inOrder = inOrder && s.labels[size_t(i)] == i % 7 && s.floats[size_t(2 * i)] == float(i) && s.floats[size_t(2 * i + 1)] == 0.5f;
        QVERIFY(inOrder);
        for (const int bad : {5, 123456, 250000, 399999}) {
            QByteArray broken = text;
            const qsizetype at = broken.indexOf("," + QByteArray::number(bad) + ",");
            broken.insert(at + 1, "x");
            QVERIFY(write(file, broken));
            const QString why = refusal([&] { readCsv(file, "label"); });
            QVERIFY2(why.startsWith(QStringLiteral("%1:%2: column 'a' holds 'x%3'").arg(file).arg(bad + 2).arg(bad)), qPrintable(why));
        }
    }

    // The features are the nearest floats to the decimal text, as std::from_chars gives them: also
    // near halfway between two floats, with many digits, and at float32's limits.
    void csvNumbersRoundCorrectly() {
        std::vector<QByteArray> numbers;
        std::mt19937 rng(5);
        char buffer[64];
        for (int i = 0; i < 60000; ++i) {
            uint32_t bits = rng();
            float f;
            std::memcpy(&f, &bits, 4);
            if (!std::isfinite(f) || std::fabs(f) < 1e-30f) continue;
            numbers.emplace_back(buffer, std::to_chars(buffer, buffer + 64, f).ptr - buffer);  // shortest
            const double halfway = (double(f) + double(std::nextafter(f, INFINITY))) / 2;
            for (int digits : {9, 15, 16, 17, 25})
                numbers.emplace_back(buffer, std::snprintf(buffer, sizeof buffer, "%.*g", digits, halfway));
            numbers.emplace_back(buffer, std::snprintf(buffer, sizeof buffer, "%.6f", double(rng() % 2000000) / 1000 - 1000));
        }
        for (const char* edge :
             {"16777217", "3.4028235e38", "3.4028234e38", "1.1754944e-38", "1e-40", "-0", "0.000", "1e22", "1e23", "123456789012345678901"})
            numbers.emplace_back(edge);
        QByteArray text = "label,a\n";
        std::vector<float> expected;
        for (const QByteArray& n : numbers) {
            float v = 0;
            const auto [p, ec] = std::from_chars(n.constData(), n.constEnd(), v);
            if (ec != std::errc() || p != n.constEnd() || !std::isfinite(v)) continue;
            expected.push_back(v);
            text += "0," + n + '\n';
        }
        const SampleSet s = parseCsv(text, "label", ',', "t.csv");
        QCOMPARE(s.floats.size(), expected.size());
        QVERIFY(std::memcmp(s.floats.data(), expected.data(), expected.size() * sizeof(float)) == 0);
    }

    void idx_data() {
        QTest::addColumn<bool>("gzipped");
        QTest::addColumn<QString>("imagesName");
        QTest::newRow("raw, where the default names .gz") << false << "train-images-idx3-ubyte";
        QTest::newRow("gzip") << true << "train-images-idx3-ubyte.gz";
        QTest::newRow("gzip content, any name") << true << "train-images-idx3-ubyte";
    }

    void idx() {
        QFETCH(bool, gzipped);
        QFETCH(QString, imagesName);
        const QString dir = path(QStringLiteral("idx%1%2").arg(gzipped).arg(imagesName.size()));
        const QByteArray images = idxFile({2, 2, 3}, QByteArray::fromHex("0102030405060708090a0bff")),
                         labels = idxFile({2}, QByteArray::fromHex("0309"));
        QVERIFY(write(dir + "/" + imagesName, gzipped ? gzip(images) : images));
        QVERIFY(write(dir + "/train-labels-idx1-ubyte.gz", gzipped ? gzip(labels) : labels));
        const SampleSet s = readSamples({"idx", dir, {}});
        QCOMPARE(s.type, SampleSet::Type::UInt8);
        QCOMPARE(s.sampleShape, (std::vector<int64_t>{1, 2, 3}));
        QCOMPARE(s.labels, (std::vector<int64_t>{3, 9}));
        QCOMPARE(s.bytes, (std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 255}));
    }

    void badIdxFilesAreNamed_data() {
        QTest::addColumn<QByteArray>("images");
        QTest::addColumn<QByteArray>("labels");
        QTest::addColumn<QString>("message");
        const QByteArray images = idxFile({2, 1, 1}, "ab"), labels = idxFile({2}, "\x01\x02");
        QTest::newRow("swapped") << labels << images
                                 << "images is not an IDX file of unsigned bytes with 3 dimensions (it begins 00 00 08 01)";
        QTest::newRow("floats") << QByteArray(images).replace(2, 1, "\x0d") << labels << "images is not an IDX file of unsigned bytes";
        QTest::newRow("cut") << images.chopped(1) << labels << "images: its IDX header promises 2 bytes of values, the file holds 1";
        QTest::newRow("header cut") << images.left(6) << labels << "images is not an IDX file";
        QTest::newRow("counts differ") << images << idxFile({3}, "\x01\x02\x03") << "images holds 2 images and";
        QTest::newRow("huge header") << idxFile({0xffffffffu, 0xffffffffu, 0xffffffffu}, "ab") << labels
                                     << "images: its IDX header promises more values than any data set";
        QTest::newRow("gzip cut") << gzip(images).chopped(9) << labels << "images is not a whole gzip file (it is cut short)";
        QTest::newRow("gzip, too long") << gzip(images + "cd") << labels << "images inflates to more than the 18 bytes its header promises";
        QTest::newRow("gzip bomb") << gzip(idxFile({1, 1, 1}, QByteArray(64 << 20, 'x'))) << labels
                                   << "images inflates to more than the 17 bytes";
        QByteArray badCrc = gzip(images);
        badCrc[badCrc.size() - 8] = char(badCrc[badCrc.size() - 8] ^ 1);  // the trailer's CRC-32
        QTest::newRow("gzip damaged") << badCrc << labels << "images is not a whole gzip file (its data is damaged)";
    }

    void badIdxFilesAreNamed() {
        QFETCH(QByteArray, images);
        QFETCH(QByteArray, labels);
        QFETCH(QString, message);
        const QString dir = path("idxbad");
        QVERIFY(write(dir + "/images", images));
        QVERIFY(write(dir + "/labels", labels));
        const QString why = refusal([&] { readSamples({"idx", dir, {{"images", "images"}, {"labels", "labels"}}}); });
        QVERIFY2(why.startsWith(dir + "/") && why.contains(message), qPrintable(why));
    }

    void cifar() {
        QByteArray batch;
        for (int r = 0; r < 2; ++r) {
            batch += char(r + 4);
            for (int i = 0; i < 3072; ++i) batch += char((i / 1024) * 100 + r);  // planes 0/100/200, plus the record
        }
        QVERIFY(write(path("cifar/one.bin"), batch));
        QVERIFY(write(path("cifar/two.bin"), batch.left(3073)));
        const SampleSet file = readSamples({"cifar-binary", path("cifar/one.bin"), {}});
        QCOMPARE(file.sampleShape, (std::vector<int64_t>{3, 32, 32}));
        QCOMPARE(file.labels, (std::vector<int64_t>{4, 5}));
        QCOMPARE(file.bytes.size(), size_t(2 * 3072));
        QCOMPARE(int(file.bytes[0]), 0);
        QCOMPARE(int(file.bytes[1024]), 100);
        QCOMPARE(int(file.bytes[3072 + 2048]), 201);
        const SampleSet folder = readSamples({"cifar-binary", path("cifar"), {{"files", "two.bin, one.bin"}}});
        QCOMPARE(folder.labels, (std::vector<int64_t>{4, 4, 5}));
        QString why = refusal([&] { readSamples({"cifar-binary", path("cifar"), {}}); });  // data_batch_1.bin ...
        QVERIFY2(why.startsWith(path("cifar/data_batch_1.bin") + " does not exist"), qPrintable(why));
        QVERIFY(write(path("cifar/one.bin"), batch.chopped(1)));
        why = refusal([&] { readSamples({"cifar-binary", path("cifar/one.bin"), {}}); });
        QVERIFY2(why.startsWith(path("cifar/one.bin") +
                                " is not a CIFAR-10 binary batch: its 6145 bytes are not a whole number of 3073-byte records"),
                 qPrintable(why));
    }
};

QTEST_GUILESS_MAIN(DataFormatsTest)
#include "tst_dataformats.moc"
