// The codecs (GradientCodec) and a link's use of them (LinkCodecs): round trips, the error
// feedback property, the sizes that make the traffic checks, and every malformed frame refused.
#include "GradientCodec.h"
#include "LinkCodecs.h"
#include "ModelSlices.h"
#include "Vocabulary.h"
#include "CodecTestSupport.h"

#include <QtTest>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace hips;
using namespace hips::codectest;

class TestCodecs : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void registryNamesEveryCodec() {
        QCOMPARE(strategyNames(CodecRegistry::all()), QStringList({"none", "fp16", "2bit", "topk"}));
        QVERIFY(codec("none") == nullptr);
        // Which lose more than rounding, as the codecs themselves say (the topology's advice asks).
        for (const char* name : {"none", "fp16", "brotli"}) QVERIFY2(!CodecRegistry::lossy(name), name);
        for (const char* name : {"2bit", "topk"}) QVERIFY2(CodecRegistry::lossy(name), name);
        // The trait the advice reads (a change smaller than a step waits): 2bit's alone.
        for (const QString& name : strategyNames(CodecRegistry::all()))
            QVERIFY2(CodecRegistry::quantizesToSteps(name) == (name == "2bit"), qPrintable(name));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, codec("zip"));
    }

    void halfPrecisionRoundsToNearestEven() {
        QCOMPARE(halfToFloat(floatToHalf(1.0f)), 1.0f);
        QCOMPARE(halfToFloat(floatToHalf(-2.5f)), -2.5f);
        QCOMPARE(halfToFloat(floatToHalf(65504.0f)), 65504.0f);  // the largest half
        QVERIFY(std::isinf(halfToFloat(floatToHalf(1e6f))));  // beyond it
        QCOMPARE(halfToFloat(floatToHalf(1.0f + 1.0f / 4096)), 1.0f);  // a tie goes to even
        QCOMPARE(halfToFloat(floatToHalf(5.96e-8f)), 5.9604645e-8f);  // the smallest subnormal
        for (float x : gaussian(1000, 1, 1.0f)) QVERIFY(std::abs(halfToFloat(floatToHalf(x)) - x) <= std::abs(x) / 1024);
    }

    // The array forms (F16C where the CPU has it) give the scalar forms' bits: every half widened,
    // and floats narrowed across the range (ties, subnormals, overflow, both signs), at odd
    // addresses and lengths that leave a tail.
    void arrayConversionsGiveTheScalarBits() {
        std::vector<quint16> all(65536);
        for (size_t h = 0; h < all.size(); ++h) all[h] = quint16(h);
        std::vector<float> wide(all.size()), added(all.size(), 1.5f);
        halvesToFloats(all.data(), wide.data(), all.size());
        addHalves(all.data(), added.data(), all.size());
        for (size_t h = 0; h < all.size(); ++h) {
            const float scalar = halfToFloat(quint16(h));
            if (std::isnan(scalar)) {
                QVERIFY(std::isnan(wide[h]));
                continue;
            }
            QCOMPARE(wide[h], scalar);
            QCOMPARE(added[h], 1.5f + scalar);
        }
        std::mt19937 random(3);
        std::vector<float> floats;
        for (int e = -30; e <= 17; ++e)
            for (int k = 0; k < 200; ++k) {
                const float mantissa = 1.0f + float(random() % 8192) / 8192.0f +
                                       (k % 2 ? 0.0f : 1.0f / 16384.0f);  // (k odd: a tie when a multiple of 1/2048 is odd)
                floats.push_back(std::ldexp(mantissa, e) * (k % 3 ? 1.0f : -1.0f));
            }
        floats.push_back(65504.0f);
        floats.push_back(65520.0f);  // rounds to Inf
        floats.push_back(0.0f);
        floats.push_back(-0.0f);
        std::vector<unsigned char> bytes(floats.size() * 2 + 1);
        floatsToHalves(floats.data(), bytes.data() + 1, floats.size());  // (at an odd address)
        for (size_t i = 0; i < floats.size(); ++i) {
            quint16 h;
            std::memcpy(&h, bytes.data() + 1 + 2 * i, 2);
            QVERIFY2(h == floatToHalf(floats[i]), qPrintable(QString::number(double(floats[i]), 'g', 10)));
        }
    }

    void roundTripsGiveWhatTheEncoderSaid() {
        const std::vector<float> v = gaussian(1000, 2);
        for (const QString& name : {QStringLiteral("fp16"), QStringLiteral("2bit"), QStringLiteral("topk")}) {
            const auto c = codec(name);
            std::vector<float> said(v.size()), got(v.size());
            const QByteArray frame = c->encode(v.data(), v.size(), said.data());
            QVERIFY2(size_t(frame.size()) <= c->maxEncodedBytes(v.size()), qPrintable(name));
            QCOMPARE(c->decode(frame.constData(), size_t(frame.size()), v.size(), got.data()), QString());
            QCOMPARE(got, said);
        }
    }

    void sizesAreWhatTheTrafficChecksNeed() {
        const size_t n = 262144;  // one slice
        const std::vector<float> v = gaussian(n, 3);
        std::vector<float> said(n);
        QCOMPARE(size_t(codec("fp16")->encode(v.data(), n, said.data()).size()), n * 2);
        QVERIFY(size_t(codec("2bit")->encode(v.data(), n, said.data()).size()) * 15 <= n * 4);
        const QByteArray sparse = codec("topk", 0, 0.01)->encode(v.data(), n, said.data());
        QVERIFY2(size_t(sparse.size()) * 25 <= n * 4, qPrintable(QString::number(sparse.size())));
        QCOMPARE(std::count_if(said.begin(), said.end(), [](float x) { return x != 0; }), qsizetype(2622));
    }

    void topkKeepsTheLargest() {
        std::vector<float> v(100, 0.001f);
        v[7] = -5;
        v[93] = 3;
        std::vector<float> said(100);
        codec("topk", 0, 0.02)->encode(v.data(), v.size(), said.data());
        for (size_t i = 0; i < v.size(); ++i) QCOMPARE(said[i], i == 7 || i == 93 ? v[i] : 0.0f);
    }

    // topk's values as halves (the default): 2 bytes a value, what a half cannot say stays in the
    // residual (here 1 + 2^-12 is said as 1, and the 2^-12 goes in the next message); as floats,
    // 4 bytes and every bit.
    void topkSendsHalvesAndKeepsTheRest() {
        const size_t n = 1000;
        std::vector<float> v(n, 0.0f);
        for (size_t i = 0; i < n; i += 100) v[i] = 1.0f + 1.0f / 4096;
        std::vector<float> said(n);
        for (const double halves : {1.0, 0.0}) {
            auto c = codec("topk", 0, 0.01, 1, 0, 1024, 0, halves);
            const QByteArray frame = c->encode(v.data(), n, said.data());
            QCOMPARE(size_t(frame.size()), 4 + 10 * (1 + (halves != 0 ? 2 : 4)));  // 10 entries, 1-byte gaps
            QCOMPARE(said[100], halves != 0 ? 1.0f : v[100]);
            std::vector<float> out(n);
            QCOMPARE(c->decode(frame.constData(), size_t(frame.size()), n, out.data()), QString());
            QCOMPARE(out, said);
            QVERIFY(!c->decode(frame.constData(), size_t(frame.size()) - 1, n, out.data()).isEmpty());
        }
        auto c = std::shared_ptr<GradientCodec>(codec("topk", 0, 0.01));
        LinkCodecs sender(every(c), n), receiver(every(c), n);
        std::vector<float> total(n, 0.0f);
        for (int push = 0; push < 2; ++push) {
            Message m = floatsMessage(message::kPush, push == 0 ? v : std::vector<float>(n, 0.0f));
            sender.outgoing("party1/server0", m);
            QCOMPARE(receiver.incoming("central/global_server0", m), QString());
            const std::vector<float> got = floatsOf(m);
            for (size_t i = 0; i < n; ++i) total[i] += got[i];
        }
        QCOMPARE(total[100], v[100]);  // the rest came in the second message
        QVERIFY(std::abs(total[100] - 1.0f) > 0.0f);  // (and 1 + 2^-12 is a float, not a half)
        QCOMPARE(halfToFloat(floatToHalf(v[100])), 1.0f);
    }

    void twoBitSendsPlusMinusTOrNothing() {
        const std::vector<float> v{0.5f, -0.5f, 0.004f, -0.02f, 0.01f};
        std::vector<float> said(v.size());
        codec("2bit", 0.01)->encode(v.data(), v.size(), said.data());
        QCOMPARE(said, std::vector<float>({0.01f, -0.01f, 0.0f, -0.01f, 0.01f}));
    }

    // An automatic t per bucket of values: a bucket of small values is not sent as zeros beside
    // one of large values. Here buckets of 16: the values from twice each bucket's mean magnitude
    // are sent, as their own mean magnitude (what leaves the least residual).
    void twoBitChoosesATPerBucket() {
        std::vector<float> v(40, 0.0f);
        for (size_t i = 0; i < 16; ++i) v[i] = i % 2 ? -1.0f : 1.0f;  // mean 1: from 2, nothing reaches it...
        v[0] = 8.0f;  // ...but this (mean 23/16: from 2.875), sent as itself
        for (size_t i = 16; i < 32; ++i) v[i] = i == 20 ? 0.04f : 0.001f;  // from 2 × 0.055 / 16: 0.04 alone
        v[21] = -0.03f, v[22] = 0.02f;  // now from 2 × 0.103 / 16 = 0.0129: 0.04, −0.03, 0.02 as ±0.03
        for (size_t i = 32; i < 40; ++i) v[i] = -0.5f;  // a last bucket of 8: from 1, none reach it
        const auto c = codec("2bit", 0, 0.01, 1, 0, 16);
        QCOMPARE(c->spec(), QStringLiteral("2bit t=auto ef=1 bucket=16"));
        std::vector<float> said(v.size()), got(v.size());
        const QByteArray frame = c->encode(v.data(), v.size(), said.data());
        QCOMPARE(size_t(frame.size()), 3 * 4 + 3 * 4u);  // three t's, three words
        QCOMPARE(said[0], 8.0f);
        QCOMPARE(std::count(said.begin(), said.begin() + 16, 0.0f), 15);
        QCOMPARE(said[20], 0.03f);
        QCOMPARE(said[21], -0.03f);
        QCOMPARE(said[22], 0.03f);
        QCOMPARE(std::count(said.begin(), said.end(), 0.0f), 36);
        QCOMPARE(c->decode(frame.constData(), size_t(frame.size()), v.size(), got.data()), QString());
        QCOMPARE(got, said);
        // Every bucket's t is checked: a second one of 0 is refused.
        QByteArray zeroT = frame;
        std::memset(zeroT.data() + 4, 0, 4);
        QVERIFY(decodeError(*c, zeroT, v.size()).contains("threshold 0"));
        // One t for the message (HiPS's) when the bucket holds it all: the small bucket goes as zeros.
        std::vector<float> whole(v.size());
        codec("2bit", 0, 0.01, 1, 0, 1 << 20)->encode(v.data(), v.size(), whole.data());
        QCOMPARE(whole[20], 0.0f);
    }

    // With error feedback the sum of what arrives tracks the sum of what was meant to be sent:
    // the gap is the residual, bounded, not growing with the number of messages.
    void errorFeedbackTracksTheSum() {
        for (const QString& name : {QStringLiteral("2bit"), QStringLiteral("topk")}) {
            LinkCodecs link(every(codec(name, 0.002, 0.05)), 1000);
            LinkCodecs receiver(every(codec(name, 0.002, 0.05)), 1000);
            std::vector<double> meant(1000, 0), arrived(1000, 0);
            double gap = 0;
            for (int step = 0; step < 400; ++step) {
                const std::vector<float> g = gaussian(1000, 100 + step, 0.001f);
                Message m = floatsMessage(message::kPush, g);
                link.outgoing("party1/server0", m);
                QCOMPARE(receiver.incoming("central/global_server0", m), QString());
                const std::vector<float> got = floatsOf(m);
                for (size_t i = 0; i < g.size(); ++i) meant[i] += g[i], arrived[i] += got[i];
                if (step == 399)
                    for (size_t i = 0; i < g.size(); ++i) gap = std::max(gap, std::abs(meant[i] - arrived[i]));
            }
            // The residual left is at most what one message could not carry (a few thresholds).
            QVERIFY2(gap < 0.02, qPrintable(QStringLiteral("%1: %2").arg(name).arg(gap)));
        }
    }

    // Models travel as changes from the peer's replica: after the first (dense) one, the
    // receiver's model follows the sender's within what one lossy message leaves out.
    void modelsFollowThroughReplicas() {
        auto c = std::shared_ptr<GradientCodec>(codec("topk", 0, 0.1));
        LinkCodecs sender(every(c), 500);
        LinkCodecs receiver(every(c), 500);
        std::vector<float> model = gaussian(500, 7, 1.0f);
        for (int version = 1; version <= 60; ++version) {
            if (version > 1)
                for (float& x : model) x += 0.001f;
            Message m = floatsMessage(message::kModel, model, version);
            sender.outgoing("party1/server0", m);
            QCOMPARE(m.fields.value("dense").toBool(), version == 1);
            QCOMPARE(receiver.incoming("central/global_server0", m), QString());
            const std::vector<float> got = floatsOf(m);
            if (version == 1) QCOMPARE(got, model);
            double gap = 0;
            for (size_t i = 0; i < model.size(); ++i) gap = std::max(gap, double(std::abs(got[i] - model[i])));
            QVERIFY2(gap < 0.011, qPrintable(QStringLiteral("version %1: %2").arg(version).arg(gap)));
        }
    }

    // DGC's warm-up: with codec_warmup 2, 2bit sends a link's first two pushes whole (their
    // residual starts at nothing), then quantizes; models go whole for the first one and the
    // warm-up's two, then as changes. The receiver takes a whole push as it is.
    void twoBitsWarmupSendsWhole() {
        auto c = std::shared_ptr<GradientCodec>(codec("2bit", 0.5, 0, 1, 0, 1024, 2));
        QCOMPARE(c->warmupMessages(), size_t(2));
        LinkCodecs worker(every(c), 4), server(every(c), 4);
        const std::vector<float> update{4, 1, 0.25f, 0};
        for (int push = 1; push <= 3; ++push) {
            Message m = floatsMessage(message::kPush, update);
            worker.outgoing("p/server0", m);
            QCOMPARE(m.fields.value("dense").toBool(), push <= 2);
            QCOMPARE(server.incoming("p/worker0", m), QString());
            // Warming up, all of it; then ±t or 0 with t = 0.5: nothing was left over to add.
            QCOMPARE(floatsOf(m), push <= 2 ? update : std::vector<float>({0.5f, 0.5f, 0, 0}));
        }
        LinkCodecs sender(every(c), 4), receiver(every(c), 4);
        std::vector<float> model{10, 20, 30, 40};
        for (int version = 1; version <= 4; ++version) {
            model[size_t(version) % 4] += 0.5f;  // one step of t a version: 2bit says it exactly
            Message m = floatsMessage(message::kModel, model, version);
            sender.outgoing("p/worker0", m);
            QCOMPARE(m.fields.value("dense").toBool(), version <= 3);
            QCOMPARE(receiver.incoming("p/server0", m), QString());
            QCOMPARE(floatsOf(m), model);
        }
        // A whole push that is not a model's size is refused, warm-up or not.
        Message shortPush = floatsMessage(message::kPush, {1, 2, 3});
        shortPush.fields.insert(QStringLiteral("total"), 4);
        shortPush.fields.insert(QStringLiteral("codec"), c->spec());
        shortPush.fields.insert(QStringLiteral("dense"), true);
        QVERIFY(server.incoming("p/worker0", shortPush).contains("dense push of 12 bytes for 4 values"));
    }

    // topk's warm-up ramps its share up as DGC's does: with ratio 0.01 and codec_warmup 3, a
    // link's pushes keep 0.01^(1/4), 0.01^(2/4), 0.01^(3/4), then 0.01 of 1,000 entries.
    void topksWarmupRampsItsShareUp() {
        auto c = std::shared_ptr<GradientCodec>(codec("topk", 0, 0.01, 0, 0, 1024, 3));
        QCOMPARE(c->warmupMessages(), size_t(3));
        LinkCodecs worker(every(c), 1000), server(every(c), 1000);
        std::vector<qsizetype> sent;
        for (int push = 1; push <= 5; ++push) {
            Message m = floatsMessage(message::kPush, gaussian(1000, push, 1.0f));
            worker.outgoing("p/server0", m);
            QVERIFY(!m.fields.value("dense").toBool());
            QCOMPARE(server.incoming("p/worker0", m), QString());
            const std::vector<float> got = floatsOf(m);
            sent.push_back(std::count_if(got.begin(), got.end(), [](float x) { return x != 0; }));
        }
        QCOMPARE(sent, std::vector<qsizetype>({317, 100, 32, 10, 10}));
    }

    // The defaults, chosen by time to accuracy (docs/algorithms.md, "Compression").
    void topksWarmupIsOnByDefault() {
        QCOMPARE(CodecRegistry::find("2bit")->param("codec_warmup")->defaultValue, 0.0);
        QCOMPARE(CodecRegistry::find("topk")->param("codec_warmup")->defaultValue, 4.0);
        QCOMPARE(CodecRegistry::find("topk")->param("codec_ratio")->defaultValue, 0.05);
    }

    // GeoMX's momentum correction, by hand: ratio 1/4 of 4 values sends one entry a push.
    // u <- 0.5u + update, the residual gathers u; a sent entry's u starts again.
    void momentumCorrectionGathersThePushesMomentum() {
        auto c = std::shared_ptr<GradientCodec>(codec("topk", 0, 0.25, 1, 0.5));
        QCOMPARE(c->spec(), QStringLiteral("topk ratio=0.25 ef=1 m=0.5 v=16"));
        LinkCodecs sender(every(c), 4), receiver(every(c), 4);
        const auto push = [&](const std::vector<float>& update) {
            Message m = floatsMessage(message::kPush, update);
            sender.outgoing("party1/server0", m);
            [&] { QCOMPARE(receiver.incoming("central/global_server0", m), QString()); }();
            return floatsOf(m);
        };
        // u = (4, 1, 0, 0): the 4 goes, the 1 stays.
        QCOMPARE(push({4, 1, 0, 0}), std::vector<float>({4, 0, 0, 0}));
        // u = (0.5·0 + 0, 0.5·1 + 1, 0, 0) = (0, 1.5, 0, 0); residual 1 + 1.5: plain feedback would say 2.
        QCOMPARE(push({0, 1, 0, 0}), std::vector<float>({0, 2.5f, 0, 0}));
        // Both sent entries start again: nothing left to say but the new 0.25.
        QCOMPARE(push({0, 0, 0.25f, 0}), std::vector<float>({0, 0, 0.25f, 0}));
        // Without error feedback there is no residual to gather the momentum in.
        QCOMPARE(codec("topk", 0, 0.25, 0, 0.5)->momentum(), 0.0f);
    }

    // The change of an aggregate of c sparse pushes has up to c times their entries: with the
    // aggregate's size set it goes back whole (GeoMX's pull), without it only a push's share.
    void anAggregatesChangeGoesBackWhole() {
        auto c = std::shared_ptr<GradientCodec>(codec("topk", 0, 0.25));
        for (const size_t contributions : {size_t(1), size_t(2)}) {
            LinkCodecs sender(every(c), 8), receiver(every(c), 8);
            sender.setAggregateOf(contributions);
            std::vector<float> model(8, 1.0f);
            Message first = floatsMessage(message::kModel, model, 1);
            sender.outgoing("party1/server0", first);
            QCOMPARE(receiver.incoming("central/global_server0", first), QString());
            // Two parties' pushes of 2 entries each, summed: 4 entries changed.
            model[0] += 0.5f, model[3] -= 0.25f, model[5] += 0.125f, model[6] += 1.0f;
            Message change = floatsMessage(message::kModel, model, 2);
            sender.outgoing("party1/server0", change);
            QCOMPARE(receiver.incoming("central/global_server0", change), QString());
            const std::vector<float> got = floatsOf(change);
            const auto unchanged = std::count(got.begin(), got.end(), 1.0f);
            QCOMPARE(unchanged, contributions == 2 ? 4 : 6);
            if (contributions == 2) QCOMPARE(got, model);
        }
    }

    // A worker's view of the model adds what its pushes could not yet say, when pushes are model
    // deltas; ssgd's are gradients, never to be added to weights: the model as the server sent it.
    void onlyADeltasResidualJoinsTheModel() {
        auto c = std::shared_ptr<GradientCodec>(codec("topk", 0, 0.25));
        for (const bool deltas : {true, false}) {
            LinkCodecs worker(every(c), 4), server(every(c), 4);
            worker.setPushesAreModelChanges(deltas);
            Message push = floatsMessage(message::kPush, {4, 1, 0, 0});  // the 4 goes, the 1 stays
            worker.outgoing("p/server0", push);
            const std::vector<float> model{10, 20, 30, 40};
            Message m = floatsMessage(message::kModel, model);
            server.outgoing("p/worker0", m);
            QCOMPARE(worker.incoming("p/server0", m), QString());
            QCOMPARE(floatsOf(m), deltas ? std::vector<float>({10, 21, 30, 40}) : model);
        }
    }

    void malformedFramesAreRefused() {
        const auto fp16 = codec("fp16"), twoBit = codec("2bit", 0.01), topk = codec("topk", 0, 0.5, 1, 0, 1024, 0, 0);
        const auto topkHalves = codec("topk", 0, 0.5);
        QVERIFY(decodeError(*topkHalves,
                            QByteArray::fromHex("01000000"
                                                "01"
                                                "007e"),
                            4)
                    .contains("not finite"));  // NaN
        QVERIFY(decodeError(*topkHalves,
                            QByteArray::fromHex("01000000"
                                                "01"
                                                "003c"
                                                "00"),
                            4)
                    .contains("take"));
        QCOMPARE(decodeError(*topkHalves,
                             QByteArray::fromHex("01000000"
                                                 "01"
                                                 "003c"),
                             4),
                 QString());  // 1.0 at 1
        QVERIFY(decodeError(*fp16, QByteArray(7, '\0'), 4).contains("7 bytes"));
        QVERIFY(decodeError(*fp16, QByteArray::fromHex("007c"), 1).contains("not finite"));  // +Inf
        QVERIFY(decodeError(*twoBit, QByteArray(4, '\0'), 20).contains("bytes"));
        QByteArray wrongT(8, '\0');
        const float t = 0.5f;
        std::memcpy(wrongT.data(), &t, 4);
        QVERIFY(decodeError(*twoBit, wrongT, 3).contains("threshold"));
        QByteArray unused(8, '\0');
        const float ours = 0.01f;
        std::memcpy(unused.data(), &ours, 4);
        unused[4] = 0x01;  // code 01
        QVERIFY(decodeError(*twoBit, unused, 3).contains("01"));
        QVERIFY(decodeError(*topk, QByteArray(2, '\0'), 4).contains("shorter"));
        QVERIFY(decodeError(*topk, QByteArray::fromHex("09000000"), 4).contains("entries"));  // k > n
        QVERIFY(decodeError(*topk, QByteArray::fromHex("00000000"), 4).contains("entries"));  // k = 0
        QVERIFY(decodeError(*topk,
                            QByteArray::fromHex("01000000"
                                                "0a"
                                                "0000803f"),
                            4)
                    .contains("beyond"));  // index 10 of 4
        QVERIFY(decodeError(*topk,
                            QByteArray::fromHex("01000000"
                                                "8080808080"),
                            4)
                    .contains("cut or overlong"));
        QVERIFY(decodeError(*topk,
                            QByteArray::fromHex("02000000"
                                                "01"
                                                "ffffffff0f"
                                                "0000803f"),
                            4)
                    .contains("beyond"));  // a gap past the end
        QVERIFY(decodeError(*topk,
                            QByteArray::fromHex("01000000"
                                                "01"
                                                "0000803f"
                                                "00"),
                            4)
                    .contains("take"));  // a byte too many
        QVERIFY(decodeError(*topk,
                            QByteArray::fromHex("01000000"
                                                "01"
                                                "0000c07f"),
                            4)
                    .contains("not finite"));  // NaN
        QCOMPARE(decodeError(*topk,
                             QByteArray::fromHex("01000000"
                                                 "01"
                                                 "0000803f"),
                             4),
                 QString());
    }

    // What a relay forwards from a worker is a stranger's: a slice beyond its total is not encoded
    // (nor written anywhere), and its residual is never lent to another worker's push.
    void aRelaysPushesStayTheirOwn() {
        auto c = std::shared_ptr<GradientCodec>(codec("topk", 0, 0.1));
        LinkCodecs relay(every(c), 1000);
        Message hostile = floatsMessage(message::kPush, gaussian(1000, 3));
        hostile.fields.insert(QStringLiteral("total"), 1000);
        hostile.fields.insert(QStringLiteral("offset"), 999);
        relay.outgoing("central/global_server0", hostile);
        QVERIFY(!hostile.fields.contains(QStringLiteral("codec")));  // left as it is: the server refuses it

        Message loud = floatsMessage(message::kPush, std::vector<float>(1000, 50.0f));
        loud.fields.insert(QStringLiteral("origin"), QStringLiteral("p/worker0"));
        relay.outgoing("central/global_server0", loud);  // leaves a large residual for worker0
        Message quiet = floatsMessage(message::kPush, std::vector<float>(1000, 0.0f));
        quiet.fields.insert(QStringLiteral("origin"), QStringLiteral("p/worker1"));
        relay.outgoing("central/global_server0", quiet);
        LinkCodecs server(every(c), 1000);
        QCOMPARE(server.incoming("p/server0", quiet), QString());
        for (float x : floatsOf(quiet)) QCOMPARE(x, 0.0f);  // nothing of worker0's came with it
    }

    // A push with values that are no numbers goes as it is, for its server to refuse (zeros in
    // their place passed the rest as a good push), and none of it stays in the residual.
    void valuesThatAreNotNumbersNeverStay() {
        auto c = std::shared_ptr<GradientCodec>(codec("2bit", 0));
        LinkCodecs link(every(c), 100);
        LinkCodecs server(every(c), 100);
        std::vector<float> v = gaussian(100, 4);
        v[3] = std::nanf("");
        v[7] = std::numeric_limits<float>::infinity();
        for (int i = 0; i < 3; ++i) {
            Message m = floatsMessage(message::kPush, v);
            link.outgoing("central/global_server0", m);
            QCOMPARE(server.incoming("p/server0", m), QString());
            const std::vector<float> arrived = floatsOf(m);
            QVERIFY(std::isnan(arrived[3]) && std::isinf(arrived[7]) && arrived[0] == v[0]);
        }
        Message finite = floatsMessage(message::kPush, gaussian(100, 6));
        link.outgoing("central/global_server0", finite);
        QCOMPARE(server.incoming("p/server0", finite), QString());
        for (float x : floatsOf(finite)) QVERIFY(std::isfinite(x));
        std::vector<float> said(1);
        const float huge = 1e6f;
        codec("fp16")->encode(&huge, 1, said.data());
        QCOMPARE(said[0], 65504.0f);  // saturated: the rest is the residual's, never an Inf
    }

    // A model change that could not be sent, or a peer that starts again (its pull of version 0),
    // makes the next model go whole.
};

QTEST_GUILESS_MAIN(TestCodecs)
#include "tst_codecs.moc"
