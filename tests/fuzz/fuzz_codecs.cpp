// libFuzzer target: every codec's decoder (GradientCodec::decode) and a link's (LinkCodecs) on
// frames a stranger makes. Input: byte 0 picks the codec (bits 0-1) and whether the frame arrives as a push
// or a model through a link; bytes 1-2 the number of values expected (1 to 4096); the rest is the
// frame. A decoder may refuse, never read past the frame (ASan), and what it accepts is finite.
#include "FuzzSupport.h"
#include "GradientCodec.h"
#include "LinkCodecs.h"
#include "Vocabulary.h"

#include <cmath>

using namespace hips;

namespace {

const GradientCodec& codecOf(int which) {
    static const auto fp16 = GradientCodec::create(QStringLiteral("fp16"), [](const QString&) { return 1.0; });
    static const auto twoBit = GradientCodec::create(QStringLiteral("2bit"), [](const QString&) { return 0.01; });
    static const auto topk =
        GradientCodec::create(QStringLiteral("topk"), [](const QString& p) { return p == QLatin1String("codec_ratio") ? 0.05 : 1.0; });
    static const auto twoBitAuto = GradientCodec::create(QStringLiteral("2bit"), [](const QString& p) {  // a t per 16 values
        return p == QLatin1String("codec_threshold") ? 0.0 : p == QLatin1String("codec_bucket") ? 16.0 : 1.0;
    });
    return which == 0 ? *fp16 : which == 1 ? *twoBit : which == 2 ? *topk : *twoBitAuto;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 3) return 0;
    const GradientCodec& codec = codecOf(data[0] & 3);
    const size_t n = 1 + ((size_t(data[1]) << 8 | data[2]) % 4096);
    const char* frame = reinterpret_cast<const char*>(data + 3);
    const size_t bytes = size - 3;
    std::vector<float> out(n);
    if (codec.decode(frame, bytes, n, out.data()).isEmpty())
        for (float x : out)
            if (!std::isfinite(x)) __builtin_trap();
    if (data[0] & 4) {  // through a link, as a push or (byte 0 bit 3) a model change or a dense model
        LinkCodecs link([&codec](const QString&) { return &codec; }, 4096);
        Message m(data[0] & 8 ? message::kModel : message::kPush, {{QStringLiteral("offset"), 0},
                                                                   {QStringLiteral("total"), qint64(n)},
                                                                   {QStringLiteral("codec"), codec.spec()},
                                                                   {QStringLiteral("dense"), bool(data[0] & 16)},
                                                                   {QStringLiteral("seq"), qint64(data[0] >> 5)}});
        m.frames.emplace_back(frame, bytes);
        if (link.incoming(QStringLiteral("p/server0"), m).isEmpty() && m.frames[0].size() != n * sizeof(float)) __builtin_trap();
    }
    return 0;
}
