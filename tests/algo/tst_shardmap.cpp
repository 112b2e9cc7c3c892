// Key slicing's cut of the model (ShardMap): every float on exactly one server, small keys whole
// on the server their hash names, large ones in S slices of the sizes ALGORITHMS.md gives, the
// same cut on every role, and gather/scatter as each other's inverse.
#include "ModelRegistry.h"
#include "ShardMap.h"

#include <QTest>
#include <cmath>
#include <numeric>

using namespace hips;

namespace {

// Which server holds each float of the flat buffer (-1: none), and how often it is held.
std::vector<int> owners(const ShardMap& map, std::vector<int>* holds) {
    std::vector<int> owner(map.total(), -1);
    holds->assign(map.total(), 0);
    for (int s = 0; s < map.servers(); ++s)
        for (const ShardMap::Span& span : map.spans(s))
            for (size_t i = span.offset; i < span.offset + span.length; ++i) {
                owner[i] = s;
                ++(*holds)[i];
            }
    return owner;
}

}  // namespace

class ShardMapTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void layoutCoversTheFlatBufferAsFlatModelAlignsIt() {
        const KeyLayout layout = KeyLayout::fromTensorSizes({150, 6, 2400});
        QCOMPARE(layout.keys.size(), size_t(3));
        QCOMPARE(layout.keys[0].offset, size_t(0));
        QCOMPARE(layout.keys[1].offset, size_t(160));  // 150 rounded up to 16
        QCOMPARE(layout.keys[2].offset, size_t(176));  // 160 + 6 rounded up
        QCOMPARE(layout.total, size_t(176 + 2400));  // 2576 is a multiple of 16
        QCOMPARE(layout.keys[0].length, size_t(160));  // the tensor and the padding after it
        QCOMPARE(layout.keys[2].length, size_t(2400));
        for (const char* model : {"mlp", "cnn", "alexnet", "resnet18"})
            QCOMPARE(KeyLayout::ofModel(model, "fashion-mnist").total, ModelRegistry::parameterCount(model, "fashion-mnist"));
    }

    void everyFloatOnExactlyOneServer() {
        const KeyLayout layout = KeyLayout::ofModel("resnet18", "cifar10");
        for (int servers : {1, 2, 3, 7}) {
            const ShardMap map(layout, servers, 1024);
            std::vector<int> holds;
            owners(map, &holds);
            QVERIFY(std::all_of(holds.begin(), holds.end(), [](int h) { return h == 1; }));
            size_t sum = 0;
            for (int s = 0; s < servers; ++s) sum += map.shardSize(s);
            QCOMPARE(sum, layout.total);
        }
    }

    void smallKeysWholeByHashLargeOnesInNearlyEqualSlices() {
        const KeyLayout layout = KeyLayout::fromTensorSizes({100, 1000, 9});  // lengths 112, 1008 (+ padding), 16
        const ShardMap map(layout, 3, 500);
        std::vector<int> holds;
        const std::vector<int> owner = owners(map, &holds);
        for (const KeyRange& k : {layout.keys[0], layout.keys[2]})  // below the bound: whole, where the hash says
            for (size_t i = k.offset; i < k.offset + k.length; ++i) QCOMPARE(owner[i], ShardMap::serverOfKey(k.key, 3));
        const KeyRange big = layout.keys[1];
        QCOMPARE(big.length, size_t(1008));
        // slice i: round(N/S*(i+1)) - round(N/S*i) = 336 each, in server order
        for (int s = 0; s < 3; ++s)
            for (size_t i = big.offset + 336 * size_t(s); i < big.offset + 336 * size_t(s + 1); ++i) QCOMPARE(owner[i], s);
        const ShardMap uneven(KeyLayout::fromTensorSizes({1000}), 3, 1);  // 1008 floats: not divisible by 7
        const ShardMap seven(KeyLayout::fromTensorSizes({1000}), 7, 1);
        QCOMPARE(uneven.shardSize(0), size_t(336));
        const size_t expected[7] = {144, 144, 144, 144, 144, 144, 144};
        for (int s = 0; s < 7; ++s) QCOMPARE(seven.shardSize(s), expected[s]);
        const ShardMap ten(KeyLayout::fromTensorSizes({1008 + 1}), 10, 1);  // 1024 floats over 10: 102 or 103 each
        for (int s = 0; s < 10; ++s) {
            const size_t n = ten.shardSize(s);
            QVERIFY2(n == 102 || n == 103, qPrintable(QString::number(n)));
            const double per = 1024.0 / 10;
            QCOMPARE(n, size_t(std::llround(per * (s + 1)) - std::llround(per * s)));
        }
    }

    void theSameCutOnEveryRole() {
        const ShardMap a(KeyLayout::ofModel("cnn", "fashion-mnist"), 2, 1024), b(KeyLayout::ofModel("cnn", "fashion-mnist"), 2, 1024);
        for (int s = 0; s < 2; ++s) {
            QCOMPARE(a.spans(s).size(), b.spans(s).size());
            for (size_t i = 0; i < a.spans(s).size(); ++i) {
                QCOMPARE(a.spans(s)[i].offset, b.spans(s)[i].offset);
                QCOMPARE(a.spans(s)[i].length, b.spans(s)[i].length);
            }
        }
        QCOMPARE(ShardMap::serverOfKey(3, 5), ShardMap::serverOfKey(3, 5));
    }

    // The check: each of S servers carries 1/S of the bytes, within 10 %.
    void theDefaultModelIsBalanced() {
        const KeyLayout layout = KeyLayout::ofModel("cnn", "fashion-mnist");
        for (int servers : {2, 3, 4}) {
            const ShardMap map(layout, servers, 1024);
            for (int s = 0; s < servers; ++s) {
                const double share = double(map.shardSize(s)) * servers / double(layout.total);
                QVERIFY2(std::abs(share - 1) <= 0.1,
                         qPrintable(QStringLiteral("%1 servers: server %2 holds %3 of its share").arg(servers).arg(s).arg(share)));
            }
        }
    }

    void gatherAndScatterAreInverse() {
        const KeyLayout layout = KeyLayout::ofModel("cnn", "fashion-mnist");
        const ShardMap map(layout, 3, 1024);
        std::vector<float> whole(layout.total);
        std::iota(whole.begin(), whole.end(), 0.0f);
        std::vector<float> back(layout.total, -1.0f);
        for (int s = 0; s < 3; ++s) {
            std::vector<float> shard(map.shardSize(s));
            map.gather(whole.data(), s, shard.data());
            QCOMPARE(shard.front(), whole[map.spans(s).front().offset]);
            QVERIFY(std::is_sorted(shard.begin(), shard.end()));  // in the flat buffer's order
            map.scatter(shard.data(), s, back.data());
        }
        QVERIFY(back == whole);
    }

    void oneServerHoldsEverythingInOnePiece() {
        const ShardMap map(KeyLayout::ofModel("cnn", "fashion-mnist"), 1, 1024);
        QCOMPARE(map.spans(0).size(), size_t(1));
        QCOMPARE(map.shardSize(0), map.total());
    }
};

QTEST_GUILESS_MAIN(ShardMapTest)
#include "tst_shardmap.moc"
