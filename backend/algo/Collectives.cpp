// The collectives of Collective.h: ring, butterfly (recursive halving and doubling, with
// Rabenseifner's folding of the ranks beyond a power of two), binary blocks (Rabenseifner and
// Träff's blocks of powers of two) and gossip (a consensus step with the ring neighbours).
#include "Collective.h"

#include "GradientCodec.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <set>
#include <vector>

namespace hips {

// Steps of the tag space that no algorithm's own steps reach.
static constexpr quint32 kBroadcastStep = 0xfffe;

void Collective::sendChunk(CollectivePeers& p, int to, quint64 tag, float* data, size_t count) const {
    if (!m_half) return p.send(to, tag, data, count);
    thread_local std::vector<quint16> halves;
    halves.resize(count);
    for (size_t i = 0; i < count; ++i) data[i] = std::clamp(data[i], -65504.0f, 65504.0f);  // saturated, as fp16's codec: not Inf
    floatsToHalves(data, halves.data(), count);
    halvesToFloats(halves.data(), data, count);  // what the others get is what this rank keeps
    p.sendHalf(to, tag, halves.data(), count);
}

void Collective::receiveChunk(CollectivePeers& p, int from, quint64 tag, float* out, size_t count, bool add) const {
    if (m_half) p.receiveHalf(from, tag, out, count, add);
    else p.receive(from, tag, out, count, add);
}

void Collective::sendRange(CollectivePeers& p, int to, quint32 sequence, quint32 step, float* data, size_t begin, size_t end) const {
    quint32 chunk = 0;
    for (size_t b = begin; b < end; b += m_chunk, ++chunk)
        sendChunk(p, to, collectiveTag(sequence, step, chunk), data + b, std::min(m_chunk, end - b));
}

void Collective::receiveRange(CollectivePeers& p, int from, quint32 sequence, quint32 step, float* data, size_t begin, size_t end,
                              bool add) const {
    quint32 chunk = 0;
    for (size_t b = begin; b < end; b += m_chunk, ++chunk)
        receiveChunk(p, from, collectiveTag(sequence, step, chunk), data + b, std::min(m_chunk, end - b), add);
}

void Collective::broadcast(float* data, size_t count, int root, CollectivePeers& p, quint32 sequence) {
    const int n = p.size();
    if (n == 1) return;
    const int place = (p.rank() - root + n) % n;  // hops from the root along the chain
    const int next = (p.rank() + 1) % n, previous = (p.rank() + n - 1) % n;
    quint32 chunk = 0;
    if (place == 0) {
        for (size_t b = 0; b < count; b += m_chunk, ++chunk)
            p.send(next, collectiveTag(sequence, kBroadcastStep, chunk), data + b, std::min(m_chunk, count - b));
        return;
    }
    for (size_t b = 0; b < count; b += m_chunk, ++chunk) {  // each chunk passed on as it arrives
        const size_t length = std::min(m_chunk, count - b);
        p.receive(previous, collectiveTag(sequence, kBroadcastStep, chunk), data + b, length, false);
        if (place < n - 1) p.send(next, collectiveTag(sequence, kBroadcastStep, chunk), data + b, length);
    }
}

namespace {

int floorLog2(int n) {
    int k = 0;
    while ((2 << k) <= n) ++k;
    return k;
}

// Ring: reduce-scatter then all-gather, each N−1 steps of one segment to the right neighbour.
// One pipeline: a chunk received (and added) at step t is the chunk sent on at step t+1, at once.
class RingCollective final : public Collective {
public:
    using Collective::Collective;

    void allreduce(float* data, size_t count, CollectivePeers& p, quint32 sequence) override {
        const int n = p.size(), r = p.rank();
        if (n == 1) return;
        const int right = (r + 1) % n, left = (r + n - 1) % n;
        auto begin = [&](int segment) { return segmentBegin(count, size_t(n), size_t(((segment % n) + n) % n)); };
        auto end = [&](int segment) { return segmentBegin(count, size_t(n), size_t(((segment % n) + n) % n) + 1); };
        sendRange(p, right, sequence, 0, data, begin(r), end(r));
        const int steps = 2 * (n - 1);
        for (int t = 0; t < steps; ++t) {
            // Step t brings segment r−t−1 (reduce-scatter, t < N−1) or r−t+N−1 (all-gather) from the left.
            const int segment = t < n - 1 ? r - t - 1 : r - t + n - 1;
            const size_t b0 = begin(segment), e0 = end(segment);
            quint32 chunk = 0;
            for (size_t b = b0; b < e0; b += m_chunk, ++chunk) {
                const size_t length = std::min(m_chunk, e0 - b);
                receiveChunk(p, left, collectiveTag(sequence, quint32(t), chunk), data + b, length, t < n - 1);
                if (t + 1 < steps) sendChunk(p, right, collectiveTag(sequence, quint32(t + 1), chunk), data + b, length);
            }
        }
    }
    double bytesSentPerRank(size_t count, int n) const override { return n < 2 ? 0 : 2.0 * (n - 1) / n * double(count) * wireBytes(); }
    int sequentialSteps(int n) const override { return 2 * (n - 1); }
};

// Recursive halving (reduce-scatter) then recursive doubling (all-gather) among `size` places,
// a power of two, over `segments` segments of the vector. `rankOf` maps a place to its rank;
// `send` and `receive` move whole segments [s0, s1).
struct HalvingDoubling {
    int size, self;
    std::function<int(int)> rankOf;
    std::function<void(int to, quint32 step, size_t s0, size_t s1)> send;
    std::function<void(int from, quint32 step, size_t s0, size_t s1, bool add)> receive;

    // From [lo, hi) to this place's share of it, [self·L, (self+1)·L) for L = (hi−lo)/size, summed.
    void halve(quint32 step, size_t& lo, size_t& hi) const {
        for (int d = size / 2; d >= 1; d /= 2, ++step) {
            const size_t mid = lo + (hi - lo) / 2;
            const int partner = rankOf(self ^ d);
            const bool upper = self & d;
            send(partner, step, upper ? lo : mid, upper ? mid : hi);
            receive(partner, step, upper ? mid : lo, upper ? hi : mid, true);
            (upper ? lo : hi) = mid;
        }
    }
    // From this place's share [lo, hi) to all of the places' shares, copied from each other.
    void doubleUp(quint32 step, size_t& lo, size_t& hi) const {
        for (int d = 1; d < size; d *= 2, ++step) {
            const size_t width = hi - lo;
            const int partner = rankOf(self ^ d);
            send(partner, step, lo, hi);
            if (self & d) {
                receive(partner, step, lo - width, lo, false);
                lo -= width;
            } else {
                receive(partner, step, hi, hi + width, false);
                hi += width;
            }
        }
    }
};

// A Collective that moves whole segments of a vector cut into `segments`.
class SegmentCollective : public Collective {
public:
    using Collective::Collective;

protected:
    std::function<void(int, quint32, size_t, size_t)> segmentSender(CollectivePeers& p, quint32 sequence, float* data, size_t count,
                                                                    size_t segments) const {
        return [=, &p](int to, quint32 step, size_t s0, size_t s1) {
            sendRange(p, to, sequence, step, data, segmentBegin(count, segments, s0), segmentBegin(count, segments, s1));
        };
    }
    std::function<void(int, quint32, size_t, size_t, bool)> segmentReceiver(CollectivePeers& p, quint32 sequence, float* data, size_t count,
                                                                            size_t segments) const {
        return [=, &p](int from, quint32 step, size_t s0, size_t s1, bool add) {
            receiveRange(p, from, sequence, step, data, segmentBegin(count, segments, s0), segmentBegin(count, segments, s1), add);
        };
    }
};

class ButterflyCollective final : public SegmentCollective {
public:
    using SegmentCollective::SegmentCollective;

    void allreduce(float* data, size_t count, CollectivePeers& p, quint32 sequence) override {
        const int n = p.size(), r = p.rank();
        if (n == 1) return;
        const int k = floorLog2(n), p2 = 1 << k, extra = n - p2;
        const quint32 foldBack = quint32(2 * k + 1);
        // Rabenseifner's fold: of the first 2·extra ranks, each even one hands its vector to the
        // odd one after it and waits for the result; the rest are a power of two.
        if (r < 2 * extra && r % 2 == 0) {
            sendRange(p, r + 1, sequence, 0, data, 0, count);
            receiveRange(p, r + 1, sequence, foldBack, data, 0, count, false);
            return;
        }
        if (r < 2 * extra) receiveRange(p, r - 1, sequence, 0, data, 0, count, true);
        const int self = r < 2 * extra ? r / 2 : r - extra;
        const auto rankOf = [extra](int place) { return place < extra ? 2 * place + 1 : place + extra; };
        const HalvingDoubling hd{p2, self, rankOf, segmentSender(p, sequence, data, count, size_t(p2)),
                                 segmentReceiver(p, sequence, data, count, size_t(p2))};
        size_t lo = 0, hi = size_t(p2);
        hd.halve(1, lo, hi);
        hd.doubleUp(quint32(k + 1), lo, hi);
        if (r < 2 * extra) sendRange(p, r - 1, sequence, foldBack, data, 0, count);
    }
    double bytesSentPerRank(size_t count, int n) const override {
        if (n < 2) return 0;
        const int p2 = 1 << floorLog2(n);
        return (2.0 * (p2 - 1) / p2 + (n > p2 ? 1 : 0)) * double(count) * wireBytes();
    }
    int sequentialSteps(int n) const override { return n < 2 ? 0 : 2 * floorLog2(n) + (n > (1 << floorLog2(n)) ? 2 : 0); }
};

// Rabenseifner and Träff's binary blocks: N as a sum of powers of two, a block of ranks each,
// largest first. Each block halves among itself; the partial sums climb from the smallest block
// to the largest, which then holds the whole sum, doubles it out, and hands it back down block
// by block, each doubling among itself. No rank waits out a fold, as butterfly's even ranks do.
class BinaryBlocksCollective final : public SegmentCollective {
public:
    using SegmentCollective::SegmentCollective;

    static std::vector<int> blocksOf(int n) {
        std::vector<int> sizes;
        for (int bit = 30; bit >= 0; --bit)
            if (n & (1 << bit)) sizes.push_back(1 << bit);
        return sizes;
    }

    void allreduce(float* data, size_t count, CollectivePeers& p, quint32 sequence) override {
        const int n = p.size(), r = p.rank();
        if (n == 1) return;
        const std::vector<int> sizes = blocksOf(n);
        std::vector<int> starts{0};
        for (int s : sizes) starts.push_back(starts.back() + s);
        const int block = int(std::upper_bound(starts.begin(), starts.end(), r) - starts.begin()) - 1;
        const int last = int(sizes.size()) - 1, size = sizes[size_t(block)], self = r - starts[size_t(block)];
        const size_t segments = size_t(sizes[0]);
        const auto span = [&](int b) { return segments / size_t(sizes[size_t(b)]); };  // segments a rank of block b owns
        const auto send = segmentSender(p, sequence, data, count, segments);
        const auto receive = segmentReceiver(p, sequence, data, count, segments);
        const int start = starts[size_t(block)];
        const HalvingDoubling hd{size, self, [start](int place) { return start + place; }, send, receive};
        size_t lo = 0, hi = segments;
        hd.halve(0, lo, hi);
        const size_t own = size_t(self) * span(block);  // == lo: this rank's segments [own, own + span)
        // Up: the block below sends its sums into this one's; this one's go on to the block above.
        if (block < last) {
            const int from = starts[size_t(block) + 1] + int(own / span(block + 1));
            receive(from, quint32(16 + block + 1), own, own + span(block), true);
        }
        if (block > 0)
            for (size_t s = own; s < own + span(block); s += span(block - 1))
                send(starts[size_t(block) - 1] + int(s / span(block - 1)), quint32(16 + block), s, s + span(block - 1));
        // Down: the block above hands each rank here its segments back, whole; then it doubles.
        if (block > 0)
            for (size_t s = own; s < own + span(block); s += span(block - 1))
                receive(starts[size_t(block) - 1] + int(s / span(block - 1)), quint32(48 + block), s, s + span(block - 1), false);
        lo = own;
        hi = own + span(block);
        hd.doubleUp(32, lo, hi);
        if (block < last) {
            const int to = starts[size_t(block) + 1] + int(own / span(block + 1));
            send(to, quint32(48 + block + 1), own, own + span(block));
        }
    }
    double bytesSentPerRank(size_t count, int n) const override {
        const std::vector<int> sizes = blocksOf(n);
        double most = 0;
        for (size_t b = 0; b < sizes.size(); ++b) {
            const double share = 1.0 / sizes[b];
            const double sent = 2 * (1 - share) + (b > 0 ? share : 0) + (b + 1 < sizes.size() ? share : 0);
            most = std::max(most, sent);
        }
        return n < 2 ? 0 : most * double(count) * wireBytes();
    }
    // Halving and doubling in the largest block, and the sums' climb and the result's way down
    // through the other blocks.
    int sequentialSteps(int n) const override {
        const std::vector<int> sizes = blocksOf(n);
        return n < 2 ? 0 : 2 * floorLog2(sizes[0]) + 2 * (int(sizes.size()) - 1);
    }
};

// The distinct ring offsets (mod n, not 0) of `degree` neighbours: +1 … +⌈d/2⌉ and −1 … −⌊d/2⌋.
std::vector<int> gossipOffsets(int n, int degree) {
    std::set<int> offsets;
    for (int m = 1; m <= (degree + 1) / 2; ++m) offsets.insert(m % n);
    for (int m = 1; m <= degree / 2; ++m) offsets.insert(((-m) % n + n) % n);
    offsets.erase(0);
    return {offsets.begin(), offsets.end()};
}

// Gossip's ring in a round: rank 0 (the party's pushing worker) keeps position 0, and the others
// turn by the number of its neighbours a round, so the neighbours whose updates reach rank 0's
// estimate change round by round, and every rank is among them once in ⌈(N−1)/neighbours⌉ rounds.
// (A ring relabelled mixes as fast: its matrix has the same eigenvalues.)
class GossipRing {
public:
    GossipRing(int n, int neighbours, qint64 round) : m_n(n), m_shift(int((round % (n - 1) + (n - 1)) % (n - 1) * neighbours % (n - 1))) {}
    int positionOf(int rank) const { return rank == 0 ? 0 : 1 + (rank - 1 + m_shift) % (m_n - 1); }
    int rankAt(int position) const {
        position = (position % m_n + m_n) % m_n;
        return position == 0 ? 0 : 1 + (position - 1 - m_shift + (m_n - 1)) % (m_n - 1);
    }

private:
    int m_n, m_shift;
};

// Parallel-SGD's P2P averaging: each rank averages its vector with its ring neighbours' (a
// consensus step: the mixing matrix is circulant, so doubly stochastic, and keeps the average),
// and gives N × that average as the sum's estimate.
class GossipCollective final : public Collective {
public:
    GossipCollective(size_t chunkFloats, int degree) : Collective(chunkFloats), m_degree(degree) {}

    void allreduce(float* data, size_t count, CollectivePeers& p, quint32 sequence) override {
        const int n = p.size(), r = p.rank();
        if (n == 1) return;
        const std::vector<int> offsets = gossipOffsets(n, m_degree);
        const GossipRing ring(n, int(offsets.size()), m_round);
        const int at = ring.positionOf(r);
        for (int o : offsets) sendRange(p, ring.rankAt(at - o), sequence, 0, data, 0, count);  // to those who count r in
        std::vector<float> sum(data, data + count);
        for (int o : offsets) receiveRange(p, ring.rankAt(at + o), sequence, 0, sum.data(), 0, count, true);
        const float scale = float(n) / float(offsets.size() + 1);
        for (size_t i = 0; i < count; ++i) data[i] = sum[i] * scale;
    }
    bool exact() const override { return false; }
    int sequentialSteps(int n) const override { return n < 2 ? 0 : 1; }
    double bytesSentPerRank(size_t count, int n) const override {
        return double(gossipOffsets(n, m_degree).size()) * double(count) * wireBytes();
    }

private:
    int m_degree;
};

}  // namespace

double gossipContraction(int n, int degree) {
    if (n < 2) return 0;
    const std::vector<int> offsets = gossipOffsets(n, degree);
    double most = 0;
    for (int k = 1; k < n; ++k) {
        std::complex<double> eigen = 1;
        for (int o : offsets) eigen += std::polar(1.0, 2 * M_PI * k * o / n);
        most = std::max(most, std::abs(eigen) / double(offsets.size() + 1));
    }
    return most;
}

namespace {

using T = ParamSpec::Type;
const ParamSpec kChunk{QStringLiteral("transport_chunk_kb"),
                       T::Integer,
                       4,
                       65536,
                       512,
                       QStringLiteral("the KiB of one message of the collective: a link carries the next while the last is added")};
const ParamSpec kDegree{QStringLiteral("gossip_degree"),
                        T::Integer,
                        1,
                        64,
                        2,
                        QStringLiteral("the neighbours each worker averages with, on a ring of the party's workers")};

// A backstop: a worker that dies or hangs stops heartbeating, and its party scheduler's abort
// ends every wait for it long before. Generous, as a step also waits for the slowest worker's
// compute, and the model's broadcast for the other parties' rounds.
const ParamSpec kTimeout{QStringLiteral("transport_timeout_s"),
                         T::Integer,
                         1,
                         86400,
                         600,
                         QStringLiteral("the longest a worker waits for a peer's part of one step before it names the peer and stops")};

struct Entry {
    StrategyInfo info;
    std::function<std::unique_ptr<Collective>(size_t chunkFloats, const CollectiveRegistry::ParamLookup&)> make;
};

const QList<Entry>& entries() {
    static const QList<Entry> table{
        {{QLatin1String(collective::kServer),
          QStringLiteral("A party server sums the workers' pushes (each link carries N·S into it)."),
          {},
          {}},
         nullptr},
        {{QLatin1String(collective::kRing),
          QStringLiteral("Ring allreduce: reduce-scatter then all-gather, 2(N−1)/N·S on each worker's link."),
          {kChunk, kTimeout},
          {}},
         [](size_t chunk, const CollectiveRegistry::ParamLookup&) { return std::make_unique<RingCollective>(chunk); }},
        {{QLatin1String(collective::kButterfly),
          QStringLiteral("Recursive halving and doubling, log₂N steps; ranks beyond a power of two fold in (Rabenseifner)."),
          {kChunk, kTimeout},
          {}},
         [](size_t chunk, const CollectiveRegistry::ParamLookup&) { return std::make_unique<ButterflyCollective>(chunk); }},
        {{QLatin1String(collective::kBinaryBlocks),
          QStringLiteral("Rabenseifner's binary blocks: blocks of powers of two, for any N without idle ranks."),
          {kChunk, kTimeout},
          {}},
         [](size_t chunk, const CollectiveRegistry::ParamLookup&) { return std::make_unique<BinaryBlocksCollective>(chunk); }},
        {{QLatin1String(collective::kGossip),
          QStringLiteral("P2P averaging with ring neighbours (Parallel-SGD): a consensus step a round, no exact sum."),
          {kChunk, kDegree, kTimeout},
          {}},
         [](size_t chunk, const CollectiveRegistry::ParamLookup& p) {
             return std::make_unique<GossipCollective>(chunk, int(p(QLatin1String("gossip_degree"))));
         }},
    };
    return table;
}

}  // namespace

std::unique_ptr<Collective> CollectiveRegistry::create(const QString& name, const ParamLookup& param) {
    for (const Entry& e : entries()) {
        if (!e.info.answersTo(name) || !e.make) continue;
        const ParamLookup lookup = [&](const QString& key) {
            const ParamSpec* spec = e.info.param(key);
            return param ? param(key) : spec ? spec->defaultValue : 0.0;
        };
        const size_t chunkFloats = size_t(lookup(QLatin1String("transport_chunk_kb"))) * 1024 / sizeof(float);
        return e.make(chunkFloats, lookup);
    }
    return nullptr;
}

const StrategyList& CollectiveRegistry::all() {
    static const StrategyList list = strategiesOf(entries());
    return list;
}

}  // namespace hips
