// printableText and printableBytes: untrusted text (peer names, ids, log lines) shown as one
// honest line, every control, bidi and invisible character escaped, invalid UTF-8 byte by byte.
#include "PrintableText.h"

#include <QtTest>

using namespace hips;

namespace {

// before + one UTF-16 unit + after: NUL, lone surrogates and controls cannot be written as literals.
QString withUnit(const char* before, char16_t unit, const char* after) {
    return QString::fromUtf8(before) + QChar(unit) + QString::fromUtf8(after);
}

}  // namespace

class PrintableTextTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void escapesText_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("plain") << "party1/worker0"
                               << "party1/worker0";
        QTest::newRow("newline") << "a\nb"
                                 << "a\\nb";
        QTest::newRow("carriage return and tab") << "a\r\tb"
                                                 << "a\\r\\tb";
        QTest::newRow("ANSI escape") << "\x1b[31mred"
                                     << "\\x1b[31mred";
        QTest::newRow("NUL") << withUnit("p", 0, "evil") << "p\\x00evil";
        QTest::newRow("DEL") << "a\x7f"
                             << "a\\x7f";
        QTest::newRow("C1 NEL") << withUnit("a", 0x85, "") << "a\\u0085";
        QTest::newRow("right-to-left override") << withUnit("abc", 0x202E, "fed") << "abc\\u202efed";
        QTest::newRow("first strong isolate") << withUnit("", 0x2068, "x") << "\\u2068x";
        QTest::newRow("arabic letter mark") << withUnit("", 0x061C, "") << "\\u061c";
        QTest::newRow("line separator") << withUnit("a", 0x2028, "b") << "a\\u2028b";
        QTest::newRow("byte order mark") << withUnit("", 0xFEFF, "x") << "\\ufeffx";
        QTest::newRow("lone high surrogate") << withUnit("a", 0xD800, "b") << "a\\ud800b";
        QTest::newRow("lone low surrogate at the end") << withUnit("a", 0xDFFF, "") << "a\\udfff";
        QTest::newRow("tag character") << QString::fromUcs4(U"a\U000E0041") << "a\\U000e0041";
        QTest::newRow("emoji kept") << QString::fromUtf8("ok \xF0\x9F\x98\x80") << QString::fromUtf8("ok \xF0\x9F\x98\x80");
        QTest::newRow("other scripts kept") << QString::fromUtf8("参与方 партия") << QString::fromUtf8("参与方 партия");
        QTest::newRow("backslash kept") << "C:\\dir"
                                        << "C:\\dir";
    }

    void escapesText() {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        QCOMPARE(hips::printableText(text), expected);
        QCOMPARE(hips::printableText(expected), expected);  // idempotent
    }

    void escapedTextIsCut() {
        QCOMPARE(hips::printableText(u"abcdef", 3), QStringLiteral("abc... (6 characters)"));
        QCOMPARE(hips::printableText(u"abc", 3), QStringLiteral("abc"));
        QCOMPARE(hips::printableText(QString::fromUcs4(U"\U0001F600\U0001F600"), 1),
                 QString::fromUcs4(U"\U0001F600") + QStringLiteral("... (2 characters)"));
    }

    void escapesBytes_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("expected");
        QTest::newRow("ASCII") << QByteArray("worker0") << "worker0";
        QTest::newRow("UTF-8 kept") << QByteArray("caf\xc3\xa9") << QString::fromUtf8("café");
        QTest::newRow("newline") << QByteArray("a\nWARN forged") << "a\\nWARN forged";
        QTest::newRow("invalid byte") << QByteArray(
                                             "a\xff"
                                             "b")
                                      << "a\\xffb";
        QTest::newRow("overlong slash") << QByteArray("\xc0\xaf") << "\\xc0\\xaf";
        QTest::newRow("encoded surrogate") << QByteArray("\xed\xa0\x80") << "\\xed\\xa0\\x80";
        QTest::newRow("truncated sequence") << QByteArray("\xe2\x80") << "\\xe2\\x80";
        QTest::newRow("bidi control") << QByteArray("a\xe2\x80\xae") << "a\\u202e";
        QTest::newRow("NUL") << QByteArray("a\0b", 3) << "a\\x00b";
    }

    void escapesBytes() {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, expected);
        QCOMPARE(hips::printableBytes(bytes), expected);
    }

    void findsInvalidUtf8() {
        QCOMPARE(hips::firstInvalidUtf8("plain"), -1);
        QCOMPARE(hips::firstInvalidUtf8("caf\xc3\xa9 \xF0\x9F\x98\x80"), -1);
        QCOMPARE(hips::firstInvalidUtf8("ab\xff"), 2);
        QCOMPARE(hips::firstInvalidUtf8("a\xc0\xaf"), 1);  // overlong
        QCOMPARE(hips::firstInvalidUtf8("a\xed\xa0\x80"), 1);  // surrogate
        QCOMPARE(hips::firstInvalidUtf8("a\xf4\x90\x80\x80"), 1);  // above U+10FFFF
        QCOMPARE(hips::firstInvalidUtf8("abc\xe2\x82"), 3);  // cut short
    }
};

QTEST_GUILESS_MAIN(PrintableTextTest)
#include "tst_printabletext.moc"
