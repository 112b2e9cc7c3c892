// The collectives of a party (Collective.h) over threads: every exact one gives the sum, the same
// bits on every rank, for 1 … 9 ranks and sizes from one float to 64 MB; each link carries what
// the algorithm's formula says; gossip closes on the average at its stated rate; a silent rank
// is named, never waited for; a subset of the ranks (a party that lost members) sums among itself.
#include "Collective.h"
#include "PeerSubset.h"
#include "ThreadPeers.h"

#include <QtTest>
#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <thread>

using namespace hips;
using namespace std::chrono_literals;

namespace {

const QStringList kExact{QLatin1String(collective::kRing), QLatin1String(collective::kButterfly), QLatin1String(collective::kBinaryBlocks)};

std::unique_ptr<Collective> make(const QString& name, double chunkKb = 4, double degree = 2) {
    return CollectiveRegistry::create(name,
                                      [=](const QString& key) { return key == QLatin1String("transport_chunk_kb") ? chunkKb : degree; });
}

// Runs `body(rank, peers)` on a thread per rank; the first error of any rank, or empty.
QString onRanks(ThreadMesh& mesh, const std::function<void(int, CollectivePeers&)>& body) {
    std::vector<std::thread> threads;
    std::vector<std::string> errors(size_t(mesh.size()));
    for (int r = 0; r < mesh.size(); ++r)
        threads.emplace_back([&, r] {
            try {
                const auto peers = mesh.peersOf(r);
                body(r, *peers);
            } catch (const std::exception& e) {
                errors[size_t(r)] = e.what();
            }
        });
    for (auto& t : threads) t.join();
    for (const std::string& e : errors)
        if (!e.empty()) return QString::fromStdString(e);
    return {};
}

// Each rank's vector and the sum over ranks: whole numbers, so any order of addition is exact.
std::vector<std::vector<float>> wholeInputs(int n, size_t count) {
    std::vector<std::vector<float>> in(size_t(n), std::vector<float>(count, 0.0f));
    for (int r = 0; r < n; ++r)
        for (size_t i = 0; i < count; ++i) in[size_t(r)][i] = float(int((size_t(r) * 7919 + i * 104729) % 2001) - 1000);
    return in;
}

// Each rank's normal floats times `scale(i)`, with their sum and the sum of their magnitudes.
struct RandomInputs {
    std::vector<std::vector<float>> data;
    std::vector<double> sum, magnitude;
};

RandomInputs randomInputs(int ranks, size_t count, unsigned seed, const std::function<float(size_t)>& scale) {
    std::mt19937 random(seed);
    std::normal_distribution<float> normal(0, 1);
    RandomInputs in{std::vector<std::vector<float>>(size_t(ranks), std::vector<float>(count, 0.0f)), std::vector<double>(count, 0),
                    std::vector<double>(count, 0)};
    for (auto& v : in.data)
        for (size_t i = 0; i < count; ++i) {
            v[i] = normal(random) * scale(i);
            in.sum[i] += v[i];
            in.magnitude[i] += std::abs(v[i]);
        }
    return in;
}

// The bytes the busiest rank sent.
double mostSent(const ThreadMesh& mesh) {
    double most = 0;
    for (int from = 0; from < mesh.size(); ++from) {
        double sent = 0;
        for (int to = 0; to < mesh.size(); ++to) sent += double(mesh.bytesSent(from, to));
        most = std::max(most, sent);
    }
    return most;
}

}  // namespace

class TestCollectives : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void registryListsTheTransports() {
        QCOMPARE(CollectiveRegistry::names(), (QStringList{"server", "ring", "butterfly", "binary_blocks", "gossip"}));
        QVERIFY(!CollectiveRegistry::create(QStringLiteral("server")));  // no collective: a party server
        QVERIFY(!CollectiveRegistry::create(QStringLiteral("allgather")));
        QVERIFY(CollectiveRegistry::find(QStringLiteral("ring"))->param(QStringLiteral("transport_chunk_kb")));
        QVERIFY(CollectiveRegistry::find(QStringLiteral("gossip"))->param(QStringLiteral("gossip_degree")));
        QVERIFY(make(QStringLiteral("ring"))->exact());
        QVERIFY(!make(QStringLiteral("gossip"))->exact());
    }

    void exactSumsOnEveryRank_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("ranks");
        QTest::addColumn<int>("count");
        for (const QString& name : kExact)
            for (int n = 1; n <= 9; ++n)
                for (int count : {1, 5, 1000, 262147})  // 262147 floats: 1 MiB and a remainder
                    QTest::addRow("%s n=%d count=%d", qPrintable(name), n, count) << name << n << count;
    }
    void exactSumsOnEveryRank() {
        QFETCH(QString, name);
        QFETCH(int, ranks);
        QFETCH(int, count);
        const auto collective = make(name);
        std::vector<std::vector<float>> data = wholeInputs(ranks, size_t(count));
        std::vector<float> sum(size_t(count), 0);
        for (const auto& v : data)
            for (size_t i = 0; i < v.size(); ++i) sum[i] += v[i];
        ThreadMesh mesh(ranks, 20s);
        const QString error =
            onRanks(mesh, [&](int r, CollectivePeers& p) { collective->allreduce(data[size_t(r)].data(), size_t(count), p, 7); });
        QVERIFY2(error.isEmpty(), qPrintable(error));
        for (int r = 0; r < ranks; ++r) QVERIFY2(data[size_t(r)] == sum, qPrintable(QStringLiteral("rank %1 is off the sum").arg(r)));
        QCOMPARE(mesh.unclaimed(), size_t(0));
    }

    // The members a party has left (fault_policy continue) sum over a subset of the mesh's ranks,
    // renumbered in order: the sum of theirs alone, and nothing sent to or awaited from the others.
    void aSubsetOfTheRanksSumsAmongItself_data() {
        QTest::addColumn<QString>("name");
        for (const QString& name : kExact + QStringList{QLatin1String(collective::kGossip)}) QTest::addRow("%s", qPrintable(name)) << name;
    }
    void aSubsetOfTheRanksSumsAmongItself() {
        QFETCH(QString, name);
        const auto collective = make(name, 4, 2);
        const std::vector<int> left{0, 2, 3, 5, 6};  // of 7: ranks 1 and 4 were lost
        const size_t count = 5000;
        std::vector<std::vector<float>> data = wholeInputs(7, count);
        std::vector<float> sum(count, 0);
        for (int r : left)
            for (size_t i = 0; i < count; ++i) sum[i] += data[size_t(r)][i];
        ThreadMesh mesh(7, 20s);
        const QString error = onRanks(mesh, [&](int r, CollectivePeers& p) {
            if (std::find(left.begin(), left.end(), r) == left.end()) return;  // (lost: it takes no part)
            PeerSubset live(p, left);
            collective->allreduce(data[size_t(r)].data(), count, live, 3);
        });
        QVERIFY2(error.isEmpty(), qPrintable(error));
        for (int r = 0; r < 7; ++r) {
            const bool member = std::find(left.begin(), left.end(), r) != left.end();
            QVERIFY(member || (mesh.bytesSent(r, 0) == 0 && mesh.bytesSent(0, r) == 0));
            if (!member || !collective->exact()) continue;
            QVERIFY2(data[size_t(r)] == sum, qPrintable(QStringLiteral("rank %1 is off the subset's sum").arg(r)));
        }
        if (!collective->exact()) {  // gossip: a consensus step among the five, at the rate it states for five
            const std::vector<std::vector<float>> before = wholeInputs(7, count);
            double was = 0, is = 0;
            for (int r : left)
                for (size_t i = 0; i < count; ++i) {
                    const double mean = sum[i] / double(left.size());
                    was += std::pow(before[size_t(r)][i] - mean, 2);
                    is += std::pow(data[size_t(r)][i] / double(left.size()) - mean, 2);
                }
            const double rate = gossipContraction(int(left.size()), 2);
            QVERIFY2(std::sqrt(is) <= rate * std::sqrt(was) * 1.001 + 1e-3,
                     qPrintable(QStringLiteral("disagreement %1 → %2, over the rate %3").arg(std::sqrt(was)).arg(std::sqrt(is)).arg(rate)));
        }
        for (int lost : {1, 4})
            for (int r = 0; r < 7; ++r) QVERIFY(mesh.bytesSent(r, lost) == 0 && mesh.bytesSent(lost, r) == 0);
        QCOMPARE(mesh.unclaimed(), size_t(0));
    }

    // Rounding differs with the order of addition; the order is fixed, so every rank has the same bits.
    void sameBitsEveryRankForAnyFloats_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("ranks");
        for (const QString& name : kExact)
            for (int n : {3, 6, 7}) QTest::addRow("%s n=%d", qPrintable(name), n) << name << n;
    }
    void sameBitsEveryRankForAnyFloats() {
        QFETCH(QString, name);
        QFETCH(int, ranks);
        const size_t count = 100003;
        RandomInputs in = randomInputs(ranks, count, 11, [](size_t i) { return float(1 + i % 1000); });
        std::vector<std::vector<float>>& data = in.data;
        const std::vector<double>&sum = in.sum, &magnitude = in.magnitude;
        const auto collective = make(name, 64);
        ThreadMesh mesh(ranks, 20s);
        QVERIFY(onRanks(mesh, [&](int r, CollectivePeers& p) { collective->allreduce(data[size_t(r)].data(), count, p, 1); }).isEmpty());
        for (int r = 1; r < ranks; ++r) QVERIFY(std::memcmp(data[0].data(), data[size_t(r)].data(), count * sizeof(float)) == 0);
        for (size_t i = 0; i < count; ++i)
            QVERIFY2(std::abs(data[0][i] - sum[i]) <= 1e-6 * magnitude[i] + 1e-30, qPrintable(QString::number(i)));
    }

    void sixtyFourMegabytes() {
        const size_t count = size_t(16) << 20;  // 64 MiB of floats a rank
        for (const QString& name : kExact) {
            const int ranks = 3;
            std::vector<std::vector<float>> data = wholeInputs(ranks, count);
            std::vector<float> sum(count, 0);
            for (const auto& v : data)
                for (size_t i = 0; i < count; ++i) sum[i] += v[i];
            const auto collective = make(name, 1024);
            ThreadMesh mesh(ranks, 60s);
            QVERIFY(
                onRanks(mesh, [&](int r, CollectivePeers& p) { collective->allreduce(data[size_t(r)].data(), count, p, 2); }).isEmpty());
            for (int r = 0; r < ranks; ++r) QVERIFY(data[size_t(r)] == sum);
        }
    }

    // What each rank sends is the formula's 2(N−1)/N·S (ring), and the others' own.
    void bytesPerLinkAsTheFormulaSays() {
        const size_t count = size_t(1) << 20;
        for (const QString& name : kExact + QStringList{QStringLiteral("gossip")})
            for (int n = 2; n <= 9; ++n) {
                const auto collective = make(name, 256);
                std::vector<std::vector<float>> data = wholeInputs(n, count);
                ThreadMesh mesh(n, 20s);
                QVERIFY(onRanks(mesh, [&](int r, CollectivePeers& p) {
                            collective->allreduce(data[size_t(r)].data(), count, p, 3);
                        }).isEmpty());
                const double most = mostSent(mesh), formula = collective->bytesSentPerRank(count, n);
                QVERIFY2(
                    std::abs(most - formula) <= 0.05 * formula,
                    qPrintable(QStringLiteral("%1, %2 ranks: %3 bytes sent, the formula says %4").arg(name).arg(n).arg(most).arg(formula)));
            }
        // The ring's promise: about 2·S a rank however many ranks, where a party server takes N·S.
        QCOMPARE(make(QStringLiteral("ring"))->bytesSentPerRank(1000, 8), 2.0 * 7 / 8 * 4000);
    }

    // Half precision (party_compression fp16): every exact collective still leaves the same bits
    // on every rank, within half precision's rounding of each hop of the sum (2^-11 relative, a
    // hop), and each link carries half the bytes of floats, as the formula says.
    void halfPrecisionSameBitsHalfTheBytes_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("ranks");
        for (const QString& name : kExact)
            for (int n : {2, 3, 5, 8, 9}) QTest::addRow("%s n=%d", qPrintable(name), n) << name << n;
    }
    void halfPrecisionSameBitsHalfTheBytes() {
        QFETCH(QString, name);
        QFETCH(int, ranks);
        const size_t count = 100003;
        RandomInputs in = randomInputs(ranks, count, 5, [](size_t) { return 0.01f; });
        std::vector<std::vector<float>>& data = in.data;
        const std::vector<double>&sum = in.sum, &magnitude = in.magnitude;
        const auto collective = make(name, 64);
        collective->setHalfPrecision(true);
        ThreadMesh mesh(ranks, 20s);
        QVERIFY(onRanks(mesh, [&](int r, CollectivePeers& p) { collective->allreduce(data[size_t(r)].data(), count, p, 4); }).isEmpty());
        QCOMPARE(mesh.unclaimed(), size_t(0));
        for (int r = 1; r < ranks; ++r) QVERIFY(std::memcmp(data[0].data(), data[size_t(r)].data(), count * sizeof(float)) == 0);
        // Each contribution and each hop's partial sum rounded once: at most N + 1 roundings, each
        // within 2^-11 of the value, or 2^-25 absolute among half's subnormals.
        double worst = 0, largest = 0;
        for (size_t i = 0; i < count; ++i) {
            const double error = std::abs(data[0][i] - sum[i]);
            worst = std::max(worst, error / ((ranks + 1) * (std::ldexp(magnitude[i], -11) + std::ldexp(1.0, -25))));
            largest = std::max(largest, error);
        }
        qInfo("%s, %d ranks: the worst error is %.2f of the bound", qPrintable(name), ranks, worst);
        QVERIFY2(worst <= 1, qPrintable(QString::number(worst)));
        QVERIFY(largest > 1e-6);  // (it did round: the test would not tell floats from halves otherwise)
        const double most = mostSent(mesh), formula = collective->bytesSentPerRank(count, ranks);
        QVERIFY2(std::abs(most - formula) <= 0.05 * formula, qPrintable(QStringLiteral("%1 bytes, formula %2").arg(most).arg(formula)));
        collective->setHalfPrecision(false);
        QCOMPARE(collective->bytesSentPerRank(count, ranks), 2 * formula);
    }

    // A partial sum beyond half precision's range saturates at ±65504, as the fp16 codec's values
    // do, the same on every rank: it became Inf, and the party's push was refused at the global
    // server.
    void halfPrecisionSaturatesInsteadOfInfinity() {
        for (const QString& name : kExact) {
            const int ranks = 3;
            std::vector<std::vector<float>> data(ranks, std::vector<float>{40000.0f, -40000.0f, 1.0f});
            const auto collective = make(name, 4);
            collective->setHalfPrecision(true);
            ThreadMesh mesh(ranks, 20s);
            QVERIFY(onRanks(mesh, [&](int r, CollectivePeers& p) { collective->allreduce(data[size_t(r)].data(), 3, p, 4); }).isEmpty());
            for (int r = 0; r < ranks; ++r) QCOMPARE(data[size_t(r)], (std::vector<float>{65504.0f, -65504.0f, 3.0f}));
        }
    }

    // x ← allreduce(x)/N is one consensus step: the disagreement with the average shrinks at
    // least by gossipContraction a step, and the average stays.
    void gossipClosesOnTheAverageAtItsRate() {
        for (int n = 2; n <= 9; ++n)
            for (int degree : {1, 2, 3, 4}) {
                const auto collective = make(QStringLiteral("gossip"), 4, degree);
                const double rate = gossipContraction(n, degree);
                QVERIFY(rate >= 0 && rate < 1);
                const size_t count = 64;
                std::vector<std::vector<float>> data(size_t(n), std::vector<float>(count, 0.0f));
                for (int r = 0; r < n; ++r)
                    for (size_t i = 0; i < count; ++i) data[size_t(r)][i] = float(r * r) - float(i);
                std::vector<double> mean(count, 0);
                for (const auto& v : data)
                    for (size_t i = 0; i < count; ++i) mean[i] += v[i] / n;
                const auto disagreement = [&] {
                    double s = 0;
                    for (const auto& v : data)
                        for (size_t i = 0; i < count; ++i) s += (v[i] - mean[i]) * (v[i] - mean[i]);
                    return std::sqrt(s);
                };
                const double start = disagreement();
                ThreadMesh mesh(n, 20s);
                for (int step = 1; step <= 12; ++step) {
                    collective->setRound(step);  // (its ring turns round by round, and mixes as fast)
                    QVERIFY(onRanks(mesh, [&](int r, CollectivePeers& p) {
                                collective->allreduce(data[size_t(r)].data(), count, p, quint32(step));
                                for (float& x : data[size_t(r)]) x /= float(n);
                            }).isEmpty());
                    QVERIFY2(disagreement() <= std::pow(rate, step) * start * 1.001 + 1e-3,
                             qPrintable(QStringLiteral("n=%1 degree=%2 step %3: %4 > %5^%3·%6")
                                            .arg(n)
                                            .arg(degree)
                                            .arg(step)
                                            .arg(disagreement())
                                            .arg(rate)
                                            .arg(start)));
                }
                for (size_t i = 0; i < count; ++i) {
                    double now = 0;
                    for (const auto& v : data) now += v[i] / n;
                    QVERIFY(std::abs(now - mean[i]) < 1e-3 * (1 + std::abs(mean[i])));
                }
                if (degree >= n - 1) QCOMPARE(rate, 0.0);  // everyone's neighbour: the average in one step
            }
        QVERIFY(gossipContraction(9, 2) > gossipContraction(9, 4));  // more neighbours, faster
    }

    // What a gossip party pushes is rank 0's estimate: its own and its neighbours' updates. Its
    // neighbours change round by round, so every rank's update is in it once in ⌈(N−1)/d⌉ rounds
    // (with the same neighbours each round, the others' data never reached the model).
    void gossipReachesEveryRankInTurn() {
        for (int n = 3; n <= 9; ++n)
            for (int degree : {1, 2, 3}) {
                const auto collective = make(QStringLiteral("gossip"), 4, degree);
                const int neighbours = std::min(degree, n - 1), rounds = (n - 1 + neighbours - 1) / neighbours;
                std::set<int> reached;
                ThreadMesh mesh(n, 20s);
                for (int round = 5; round < 5 + rounds; ++round) {
                    std::vector<std::vector<float>> data(size_t(n), std::vector<float>(size_t(n), 0.0f));
                    for (int r = 0; r < n; ++r) data[size_t(r)][size_t(r)] = 1;  // rank r's update: the r-th unit vector
                    collective->setRound(round);
                    QVERIFY(onRanks(mesh, [&](int r, CollectivePeers& p) {
                                collective->allreduce(data[size_t(r)].data(), size_t(n), p, quint32(round));
                            }).isEmpty());
                    int inRound = 0;
                    for (int r = 0; r < n; ++r)
                        if (data[0][size_t(r)] != 0) {
                            reached.insert(r);
                            ++inRound;
                        }
                    QCOMPARE(inRound, neighbours + 1);
                    double total = 0;  // (the estimates still average to the sum: n of each)
                    for (const auto& v : data)
                        for (float x : v) total += x;
                    QVERIFY(std::abs(total - double(n) * n) < 1e-3);
                }
                QVERIFY2(int(reached.size()) == n, qPrintable(QStringLiteral("n=%1 degree=%2: %3 of %1 ranks reached rank 0 in %4 rounds")
                                                                  .arg(n)
                                                                  .arg(degree)
                                                                  .arg(reached.size())
                                                                  .arg(rounds)));
            }
    }

    void broadcastGivesTheRootsBits() {
        for (int n = 1; n <= 9; ++n)
            for (int root = 0; root < n; ++root) {
                const size_t count = 10007;
                std::vector<std::vector<float>> data = wholeInputs(n, count);
                const std::vector<float> expected = data[size_t(root)];
                const auto collective = make(QStringLiteral("ring"), 4);
                ThreadMesh mesh(n, 20s);
                QVERIFY(onRanks(mesh, [&](int r, CollectivePeers& p) {
                            collective->broadcast(data[size_t(r)].data(), count, root, p, 4);
                        }).isEmpty());
                for (const auto& v : data) QVERIFY(v == expected);
                QCOMPARE(mesh.unclaimed(), size_t(0));
            }
    }

    // A rank that never joins: the others stop at the deadline and name it; nobody hangs.
    void aSilentRankIsNamed() {
        for (const QString& name : kExact + QStringList{QStringLiteral("gossip")}) {
            const auto collective = make(name);
            ThreadMesh mesh(4, 300ms);
            std::vector<std::vector<float>> data = wholeInputs(4, 1000);
            const QString error = onRanks(mesh, [&](int r, CollectivePeers& p) {
                if (r != 2) collective->allreduce(data[size_t(r)].data(), 1000, p, 5);
            });
            QVERIFY2(error.contains(QLatin1String("within the deadline")), qPrintable(name + ": " + error));
        }
    }

    // A peer that sends the wrong length for a chunk is refused, named.
    void aWrongLengthIsRefused() {
        ThreadMesh mesh(2, 2s);
        const auto ring = make(QStringLiteral("ring"));
        std::vector<float> mine(100, 1);
        const QString error = onRanks(mesh, [&](int r, CollectivePeers& p) {
            if (r == 0) return ring->allreduce(mine.data(), mine.size(), p, 9);
            const float junk[3] = {1, 2, 3};
            p.send(0, collectiveTag(9, 0, 0), junk, 3);  // rank 1's segment is 50 floats
        });
        QVERIFY2(error.contains(QLatin1String("3 floats where 50 were due")), qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(TestCollectives)
#include "tst_collectives.moc"
