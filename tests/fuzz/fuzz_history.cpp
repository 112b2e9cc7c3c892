// libFuzzer target: a history file someone else made (issue 44): the bytes are the file, opened
// read-only as `hips history list|show` and `hips report` do, then read-write as `hips run
// --history` does (which migrates an older schema). Either may refuse, saying why; neither may
// crash, hang, or run anything the file brings (a planted trigger or view is refused), and what
// is read back is what a HiPS history holds.
#include "FuzzSupport.h"
#include "RunStore.h"

#include <QCoreApplication>
#include <QFile>
#include <QTemporaryDir>

using namespace hips;

namespace {

void readEverything(const RunStore& store) {
    for (const RunListEntry& run : store.runList()) {
        (void)store.metrics(run.run.id);
        (void)store.traffic(run.run.id);
        (void)store.events(run.run.id);
        (void)store.processes(run.run.id);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static int argc = 1;
    static char name[] = "fuzz_history";
    static char* argv[] = {name, nullptr};
    static QCoreApplication app(argc, argv);  // (the QSQLITE driver is a plugin: it needs one)
    static QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("history.db"));
    for (const char* companion : {"", "-wal", "-shm", "-journal"}) QFile::remove(path + QLatin1String(companion));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(reinterpret_cast<const char*>(data), qint64(size)) != qint64(size)) __builtin_trap();
    f.close();
    for (const RunStore::OpenMode mode : {RunStore::ReadOnly, RunStore::ReadWrite}) {
        QString error;
        const std::unique_ptr<RunStore> store = RunStore::open(path, &error, mode);
        if (!store) {
            if (error.isEmpty()) __builtin_trap();  // a refusal says why
            continue;
        }
        if (store->schemaVersion() < 0 || store->schemaVersion() > RunStore::kSchemaVersion) __builtin_trap();
        readEverything(*store);
    }
    return 0;
}
