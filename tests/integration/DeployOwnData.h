#pragma once
// What tst_deploy's own-data case puts on the shared disk: each party's csv of two features
// (party2 has a second, private file), the master's test set, and a TorchScript model of Debian's
// python3-torch.
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>

namespace hips::test {

// The csv files under `root`: data/party1/t.csv, data/party2/{t,private}.csv, data/test/t.csv.
inline bool writeOwnDataFiles(const QString& root) {
    QByteArray table = "label,a,b\n";
    for (int i = 0; i < 64; ++i) table += i % 2 ? "1,0.9,0.1\n" : "0,0.1,0.9\n";
    for (const char* file : {"data/party1/t.csv", "data/party2/t.csv", "data/party2/private.csv", "data/test/t.csv"}) {
        QFile f(QDir(root).filePath(file));
        if (!QDir().mkpath(QFileInfo(f).path()) || !f.open(QIODevice::WriteOnly) || f.write(table) != table.size()) return false;
    }
    return true;
}

// A scripted 2-feature, 2-class net saved at `path`; its SHA-256, or empty when it could not be made.
inline QString scriptTinyNet(const QString& path) {
    QProcess python;
    python.start("/usr/bin/python3", {"-c",
                                      "import torch, sys; torch.jit.save(torch.jit.script(torch.nn.Sequential("
                                      "torch.nn.Linear(2, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))), sys.argv[1])",
                                      path});
    QFile f(path);
    if (!python.waitForFinished(120000) || python.exitCode() != 0 || !f.open(QIODevice::ReadOnly)) return {};
    return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256).toHex();
}

// A host operator's list of the folders runs may read there: INSTALL_DIR/data-roots.
inline bool writeDataRoots(const QString& installDir, const QString& folder) {
    QFile f(QDir(installDir).filePath("data-roots"));
    return QDir().mkpath(installDir) && f.open(QIODevice::WriteOnly) && f.write(folder.toUtf8() + '\n') > 0;
}

}  // namespace hips::test
