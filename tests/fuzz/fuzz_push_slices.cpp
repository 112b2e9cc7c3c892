// libFuzzer target: push slices as a server receives them (RoundCollector::add), folded on
// arrival or kept for the rule, and the round they complete — the path every update takes.
//
// Input: byte 0 picks the update's size (small, around one slice, several slices) and whether
// the round is folded; then up to 24 records, each a push slice: who sends it (one of three
// contributors or a stranger), its round, offset and total (near the canonical cut or anything),
// its payload (the size the header implies or arbitrary, 0–2 frames, aligned or not, and maybe a
// NaN or ±Inf somewhere). Every contributor's values are its own power of two, so a completed
// round must equal, everywhere, base + the sum of the contributions the collector accepted for
// that range, scaled by 3 / those accepted where a sender's was refused as not finite (none is
// lost, none counted twice, no range left unwritten), and a refused push must leave the counters
// saying so.
#include "AggregatorRegistry.h"
#include "FuzzPayloads.h"
#include "FuzzSupport.h"
#include "RoundCollector.h"

#include <cmath>
#include <limits>

using namespace hips;

namespace {

constexpr size_t K = kSliceFloats;
const size_t kSizes[4] = {3, K - 1, K + 1, 2 * K + 5};
const QString kSenders[4] = {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c"), QStringLiteral("stranger")};
constexpr float kBase = 0.5f;

float valueOf(int sender) {
    return float(1 << sender);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    fuzz::quietQt();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    fuzz::Input in(data, size);
    const uint8_t setup = in.byte();
    const size_t total = kSizes[setup % 4];
    const bool fold = (setup & 4) != 0;
    const size_t slices = sliceCount(total);
    std::vector<float> base(total, kBase);
    ModelBufferPool pool;
    RoundCollector collector(QStringLiteral("fuzz/server"), {kSenders[0], kSenders[1], kSenders[2]},
                             AggregatorRegistry::create(QStringLiteral("fedavg")));
    if (fold) collector.foldOnArrival([&] { return RoundCollector::FoldTarget{pool.acquire(total), base.data()}; });

    qint64 round = 1;
    std::vector<float> expected(slices, 0.0f);  // per slice: Σ of accepted contributions (folded)
    std::vector<bool> spoiled(3, false);  // per sender: a refused slice (unfolded)
    std::vector<int> refusedIn(slices, 0);  // per slice: senders whose slice of it was not finite (folded)
    for (int record = 0; record < 24 && in.left() > 0; ++record) {
        const uint8_t mode = in.byte();
        const int sender = in.byte() % 4;
        const qint64 slot = qint64(in.byte() % 4);
        const qint64 offset = fuzz::nearOrAny(in, slot * qint64(K), qint64(K));
        const qint64 claimedTotal = fuzz::nearOrAny(in, qint64(total), qint64(K));
        const qint64 claimedRound = (mode & 0x40) ? round + int8_t(in.byte()) : round;
        const qint64 poisonAt = (mode & 0x80) ? qint64(in.u32() % (K + 2)) : -1;
        const float poison =
            (mode & 0x08) ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity() * ((mode & 1) ? -1.0f : 1.0f);

        Message m(QStringLiteral("push"),
                  {{QStringLiteral("round"), claimedRound}, {QStringLiteral("offset"), offset}, {QStringLiteral("total"), claimedTotal}});
        size_t floats;
        if ((mode & 0x10) == 0 && offset >= 0 && claimedTotal > offset && claimedTotal - offset <= qint64(4 * K))
            floats = std::min(K, size_t(claimedTotal - offset));
        else floats = in.u16();
        const size_t frames = (mode >> 1) & 3;
        for (size_t i = 0; i < std::min<size_t>(frames, 2); ++i)
            m.frames.push_back(fuzz::floatPayload(i == 0 ? floats : 1, valueOf(sender), (mode & 0x20) != 0, poisonAt, poison));

        const quint64 rejectedBefore = collector.rejected(), nonFiniteBefore = collector.rejectedNonFinite();
        Envelope e{kSenders[sender], std::move(m)};
        const bool complete = collector.add(e, round, total);
        const bool accepted = collector.rejected() == rejectedBefore;
        const bool nonFinite = collector.rejectedNonFinite() > nonFiniteBefore;
        if (accepted && sender < 3) expected[size_t(offset) / K] += valueOf(sender);
        if (nonFinite) {
            FUZZ_CHECK(sender < 3 && poisonAt >= 0 && poisonAt < qint64(floats));  // only a real NaN/Inf is called one
            spoiled[size_t(sender)] = true;
            ++refusedIn[size_t(offset) / K];
        }
        FUZZ_CHECK(accepted || nonFinite || !complete);  // a refused push cannot complete a round
        (void)collector.takeFinalSlice();
        if (!complete) continue;

        // The round: base + what was accepted, range by range (folded); or the sum of the
        // contributors none of whose slices was refused (kept for the rule).
        std::vector<float> result(total);
        if (fold) {
            const FloatBuffer out = collector.takeFolded();
            FUZZ_CHECK(out && out->size() == total);
            result = *out;
        } else {
            collector.write(result.data(), base.data(), 0, total);
        }
        float unspoiled = 0;
        int whole = 0;
        for (int s = 0; s < 3; ++s)
            if (!spoiled[size_t(s)]) unspoiled += valueOf(s), ++whole;
        // What was left out is made up for by the others (exact: powers of two × 3/2 or 3).
        const auto standingForAll = [](float sum, int present) { return present == 0 ? 0.0f : sum * (3.0f / float(present)); };
        for (size_t i = 0; i < total; ++i) {
            const float want = kBase + (fold ? standingForAll(expected[i / K], 3 - refusedIn[i / K]) : standingForAll(unspoiled, whole));
            FUZZ_CHECK(result[i] == want);
        }
        ++round;
        std::fill(expected.begin(), expected.end(), 0.0f);
        std::fill(spoiled.begin(), spoiled.end(), false);
        std::fill(refusedIn.begin(), refusedIn.end(), 0);
    }
    return 0;
}
