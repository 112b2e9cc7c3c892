// A host's own list of the folders runs may read there (INSTALL_DIR/data-roots): a topology edited
// to point a party at another's data is refused on the host before a byte is read, also through
// symbolic links, "..", and the file names a source's options give.
#include "DataReaders.h"
#include "DataRoots.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace hips;

namespace {

bool write(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

DataSource csv(const QString& path) {
    return DataSource{QStringLiteral("csv"), path, {}};
}

// The reader's refusal, or empty when it read the source.
QString refusal(const DataSource& source, const QString& roots) {
    ReadOptions options;
    options.dataRoots = roots;
    try {
        readSamples(source, options);
        return {};
    } catch (const DataError& e) {
        return QString::fromStdString(e.what());
    }
}

}  // namespace

class DataRootsTest : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString mine, theirs, roots;

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        mine = m_dir.filePath("party1");
        theirs = m_dir.filePath("party2");
        roots = m_dir.filePath("data-roots");
        QVERIFY(QDir().mkpath(mine) && QDir().mkpath(theirs));
        for (const QString& folder : {mine, theirs}) QVERIFY(write(folder + "/t.csv", "label,a\n0,1.5\n1,2.5\n"));
        QVERIFY(write(roots, "# this host's folders\n\n" + mine.toUtf8() + "   # party1's\nrelative/ignored\n"));
    }

    void withoutAListTheTopologyDecides() { QCOMPARE(refusal(csv(theirs + "/t.csv"), m_dir.filePath("no-such-list")), QString()); }

    void aListedFolderIsRead() { QCOMPARE(refusal(csv(mine + "/t.csv"), roots), QString()); }

    void anotherFolderIsRefusedNamingTheList() {
        const QString why = refusal(csv(theirs + "/t.csv"), roots);
        QVERIFY2(why.contains(theirs + "/t.csv is not in this host's data folders (" + mine + ", listed in " + roots), qPrintable(why));
    }

    void dotDotAndLinksAreResolved() {
        QVERIFY(refusal(csv(mine + "/../party2/t.csv"), roots).contains("is not in this host's data folders"));
        QVERIFY(QFile::link(theirs, mine + "/shortcut"));
        QVERIFY(refusal(csv(mine + "/shortcut/t.csv"), roots).contains("is not in this host's data folders"));
        QVERIFY(QFile::link(mine, m_dir.filePath("alias")));  // a link to a listed folder is that folder
        QCOMPARE(refusal(csv(m_dir.filePath("alias/t.csv")), roots), QString());
    }

    // A sibling whose name starts like a listed folder's is not inside it.
    void aPrefixIsNotAFolder() { QVERIFY(!dataRootsProblem(mine + "-copy/t.csv", roots).isEmpty()); }

    // File names in a source's options are paths it reads too.
    void optionsCannotLeadOut() {
        DataSource idx{QStringLiteral("idx"), mine, {{QStringLiteral("images"), theirs + "/t.csv"}}};
        QVERIFY(refusal(idx, roots).contains(theirs + "/t.csv is not in this host's data folders"));
        DataSource folder{QStringLiteral("image-folder"), mine, {{QStringLiteral("classes"), "../party2"}}};
        QVERIFY(refusal(folder, roots).contains("is not in this host's data folders"));
    }
};

QTEST_GUILESS_MAIN(DataRootsTest)
#include "tst_dataroots.moc"
