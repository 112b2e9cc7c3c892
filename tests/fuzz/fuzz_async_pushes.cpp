// libFuzzer target: pushes taken one at a time as they come (AsyncPushes::add, the asynchronous
// modes' path at both tiers).
//
// Input: byte 0 picks the update's size (small, around one slice, several slices); then up to 24
// records, each a push slice: its sender (one of two contributors or a stranger), round, base,
// offset and total (near the canonical cut or anything), its payload (the size the header implies
// or arbitrary, 0–2 frames, aligned or not, maybe a NaN or ±Inf). Every sender's values are its
// own power of two, so a whole push must hold exactly that value everywhere (no slice lost, none
// from another push), come from a contributor, in a round above its last, on a base no newer than
// the newest version; a push without values must have had a non-finite slice.
#include "AsyncPushes.h"
#include "FuzzPayloads.h"
#include "FuzzSupport.h"

#include <limits>
#include <map>

using namespace hips;

namespace {

constexpr size_t K = kSliceFloats;
const size_t kSizes[3] = {5, K + 1, 2 * K + 3};
const QString kSenders[3] = {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("stranger")};
constexpr qint64 kNewest = 10;

float valueOf(int sender) {
    return float(1 << (sender + 1));
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    fuzz::quietQt();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    fuzz::Input in(data, size);
    const size_t total = kSizes[in.byte() % 3];
    AsyncPushes pushes(QStringLiteral("fuzz/server"), {kSenders[0], kSenders[1]});
    std::map<int, qint64> lastRound;
    std::map<int, bool> poisoned;  // per sender: a non-finite slice since its last whole push
    for (int record = 0; record < 24 && in.left() > 0; ++record) {
        const uint8_t mode = in.byte();
        const int sender = in.byte() % 3;
        const qint64 round = qint64(int8_t(in.byte()));
        const qint64 base = (mode & 0x40) ? qint64(int8_t(in.byte())) : round - 1;
        const qint64 offset = fuzz::nearOrAny(in, qint64(in.byte() % 3) * qint64(K), qint64(K));
        const qint64 claimedTotal = fuzz::nearOrAny(in, qint64(total), qint64(K));
        const qint64 poisonAt = (mode & 0x80) ? qint64(in.u32() % (K + 2)) : -1;
        const float poison = (mode & 0x08) ? std::numeric_limits<float>::quiet_NaN() : -std::numeric_limits<float>::infinity();
        Message m(QStringLiteral("push"), {{QStringLiteral("round"), round},
                                           {QStringLiteral("base"), base},
                                           {QStringLiteral("offset"), offset},
                                           {QStringLiteral("total"), claimedTotal}});
        size_t floats;
        if ((mode & 0x10) == 0 && offset >= 0 && claimedTotal > offset && claimedTotal - offset <= qint64(4 * K))
            floats = std::min(K, size_t(claimedTotal - offset));
        else floats = in.u16();
        const size_t frames = (mode >> 1) & 3;
        for (size_t i = 0; i < std::min<size_t>(frames, 2); ++i)
            m.frames.push_back(fuzz::floatPayload(i == 0 ? floats : 1, valueOf(sender), (mode & 0x20) != 0, poisonAt, poison));

        const quint64 nonFiniteBefore = pushes.nonFinite();
        Envelope e{kSenders[sender], std::move(m)};
        const std::optional<WholePush> whole = pushes.add(e, total, kNewest);
        if (pushes.nonFinite() > nonFiniteBefore) poisoned[sender] = true;
        if (!whole) continue;
        FUZZ_CHECK(sender < 2 && whole->sender == kSenders[sender]);
        FUZZ_CHECK(whole->round == round && round > lastRound[sender]);
        FUZZ_CHECK(whole->base >= 0 && whole->base <= kNewest);
        lastRound[sender] = round;
        if (!whole->values) {
            FUZZ_CHECK(poisoned[sender]);
        } else {
            FUZZ_CHECK(whole->values->size() == total);
            for (float v : *whole->values) FUZZ_CHECK(v == valueOf(sender));
        }
        poisoned[sender] = false;
    }
    return 0;
}
