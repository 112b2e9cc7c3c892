// libFuzzer target: the agent's command parser (StartCommand::fromMessage), the part of the
// control plane that decides what a role runs and where it writes.
//
// Input: the header frame of a control message (CBOR), decoded by the wire codec as the agent's
// channel would. An accepted start must keep its promises: its output directory is clean and
// strictly inside the runs directory, its keys are valid and its own, its threads in range; and
// it survives the round trip through toMessage().
#include "FuzzSupport.h"
#include "StartCommand.h"
#include "WireCodec.h"

#include <QDir>

using namespace hips;

namespace {
const QString kRoot = QStringLiteral("/srv/hips/runs");
const QString kHome = QStringLiteral("/home/hips");
}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    fuzz::quietQt();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::vector<zmq::message_t> parts;
    parts.emplace_back(data, size);
    WireLimits limits;
    limits.maxHeaderBytes = 1 << 20;
    limits.maxPayloadBytes = 0;
    Decoded d = WireCodec::decode(parts, 0, limits);
    if (!d.message) return 0;
    QString error;
    const std::optional<StartCommand> start = StartCommand::fromMessage(*d.message, kRoot, kHome, &error);
    if (!start) {
        FUZZ_CHECK(!error.isEmpty());
        return 0;
    }
    FUZZ_CHECK(isInside(start->outDir, kRoot));
    FUZZ_CHECK(start->outDir == QDir::cleanPath(start->outDir));
    FUZZ_CHECK(!start->outDir.split(u'/').contains(QStringLiteral("..")));
    FUZZ_CHECK(!start->nodeKey.isNull() && start->peerKeys.keyOf(start->node) == start->nodeKey.publicKey);
    FUZZ_CHECK(start->threads >= 1 && start->threads <= StartCommand::kMaxThreads);
    FUZZ_CHECK(start->placement >= 0);

    QString again;
    const std::optional<StartCommand> copy = StartCommand::fromMessage(start->toMessage(), kRoot, kHome, &again);
    FUZZ_CHECK(copy.has_value());
    FUZZ_CHECK(copy->node == start->node && copy->outDir == start->outDir && copy->threads == start->threads &&
               copy->placement == start->placement);
    return 0;
}
