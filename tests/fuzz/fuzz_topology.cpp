// libFuzzer target: the topology reader, on bytes as a topology file holds them.
//
// A document the reader accepts must validate clean, expand into nodes with unique ids,
// and survive the writer: read(write(t)) is accepted and writes the same bytes again. A
// document it refuses must say why. Drafts (well-formed, with semantic issues) are what the
// designer opens, so they go through validation and the writer too.
#include "FuzzSupport.h"
#include "TopologyReader.h"
#include "TopologyWriter.h"

#include <QSet>

using namespace hips;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    fuzz::quietQt();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const QByteArray json(reinterpret_cast<const char*>(data), qsizetype(size));
    const TopologyLoad load = TopologyReader::readJson(json, QStringLiteral("fuzz.json"));
    if (!load.ok()) {
        FUZZ_CHECK(!load.issues.isEmpty());
        FUZZ_CHECK(!load.errorText().isEmpty());
        if (load.draft) {
            (void)TopologyReader::validate(*load.draft);
            (void)TopologyWriter::toJson(*load.draft);
        }
        return 0;
    }
    const Topology& t = *load.topology;
    FUZZ_CHECK(TopologyReader::validate(t).isEmpty());

    QSet<QString> ids;
    for (const Node& n : t.nodes()) {
        FUZZ_CHECK(!ids.contains(n.id));
        ids.insert(n.id);
        FUZZ_CHECK(t.node(n.id).has_value());
        if (n.port) (void)t.endpoint(n);
    }
    FUZZ_CHECK(t.trainingWorkerCount() >= 0);
    (void)t.allHostsLocal();

    const QByteArray written = TopologyWriter::toJson(t);
    const TopologyLoad again = TopologyReader::readJson(written, QStringLiteral("written.json"));
    if (!again.ok()) std::fprintf(stderr, "re-read refused:\n%s\n", qPrintable(again.errorText()));
    FUZZ_CHECK(again.ok());
    FUZZ_CHECK(TopologyWriter::toJson(*again.topology) == written);
    return 0;
}
