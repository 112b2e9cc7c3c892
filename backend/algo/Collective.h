#pragma once
// Collectives inside a party (ENGINE.md, "a party's transport"): the party's workers sum their
// vectors among themselves, each link carrying about 2·S, instead of N·S into a party server.
//
// A Collective is a schedule of sends and receives over CollectivePeers: the party's ZeroMQ
// channels when deployed (MeshPeers), threads in the tests. Every exact collective reduces each
// float at one rank in a fixed order and then copies it to the others, so every rank ends with
// the same bits whatever the timing. Chunks (transport_chunk_kb) keep a link busy: a rank queues
// all of a step's chunks, then adds each incoming chunk while the next is still on the wire.
#include "StrategyInfo.h"

#include <QtGlobal>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

namespace hips {

// A peer was silent past the deadline, or sent what the schedule did not expect.
struct CollectiveError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// How one rank of a collective reaches the others. Ranks are 0 … size()−1.
class CollectivePeers {
public:
    virtual ~CollectivePeers() = default;
    virtual int rank() const = 0;
    virtual int size() const = 0;
    // Queues `count` floats for rank `to` under `tag` and returns: the bytes are taken (copied)
    // before it returns, so `data` may change at once.
    virtual void send(int to, quint64 tag, const float* data, size_t count) = 0;
    // Waits (up to the peers' deadline, else CollectiveError naming the peer) for what rank
    // `from` sent under `tag`, exactly `count` floats, and adds it into `out` (`add`) or copies.
    virtual void receive(int from, quint64 tag, float* out, size_t count, bool add) = 0;
    // The same with `count` IEEE half floats on the wire (a collective at half precision): sent as
    // they are; received ones widened to floats, and added into `out` or copied.
    virtual void sendHalf(int to, quint64 tag, const quint16* data, size_t count) = 0;
    virtual void receiveHalf(int from, quint64 tag, float* out, size_t count, bool add) = 0;
    // What the peer of rank `r` is called, for errors: "party1/worker3".
    virtual std::string nameOf(int r) const { return "rank " + std::to_string(r); }
};

class Collective {
public:
    explicit Collective(size_t chunkFloats) : m_chunk(chunkFloats ? chunkFloats : 1) {}
    virtual ~Collective() = default;

    // data ← the sum over all ranks of their `data` (gossip: an estimate of it, see exact()).
    // Every rank calls it with the same count; `sequence` (the round) tells one call's messages
    // from another's, so a late chunk of an abandoned call is never taken for a new one.
    virtual void allreduce(float* data, size_t count, CollectivePeers& peers, quint32 sequence) = 0;
    // The round the next calls are of, the same for each of its calls (gossip draws its ring by
    // it, so a round's sum of weights mixes as its updates did). Exact collectives need none.
    void setRound(qint64 round) { m_round = round; }
    // True when allreduce gives the exact sum (the same bits on every rank).
    virtual bool exact() const { return true; }
    // The bytes one rank sends for an allreduce of `count` floats among `n` ranks, by the
    // algorithm's formula (the largest over ranks where they differ).
    virtual double bytesSentPerRank(size_t count, int n) const = 0;
    // The steps one after another in an allreduce among `n` ranks (each at least a link's
    // latency): what hips simulate charges beside the bytes.
    virtual int sequentialSteps(int n) const = 0;
    // data ← rank `root`'s data on every rank: a chunked chain along the ranks, so each link
    // carries S once and the chain's latency is one chunk per hop. Always exact floats.
    void broadcast(float* data, size_t count, int root, CollectivePeers& peers, quint32 sequence);

    // Allreduce's chunks travel as IEEE half floats (party_compression fp16): half the bytes.
    // A rank rounds what it sends in its own copy too, so that the ranks still end with the same
    // bits: every value a rank sends while reducing it receives back whole later, and every value
    // it sends while gathering is then what the others hold. Sums are added as floats; each hop
    // rounds its partial sum once (a relative error of 2^-11 a hop).
    void setHalfPrecision(bool half) { m_half = half; }
    bool halfPrecision() const { return m_half; }

protected:
    // Sends floats [begin, end) of `data` to `to` in chunks; receives the same range's chunks
    // from `from`. Both sides cut a range the same way, so their chunk tags agree. At half
    // precision the sent range is rounded in `data` first.
    void sendRange(CollectivePeers& p, int to, quint32 sequence, quint32 step, float* data, size_t begin, size_t end) const;
    void receiveRange(CollectivePeers& p, int from, quint32 sequence, quint32 step, float* data, size_t begin, size_t end, bool add) const;
    // One chunk, at the collective's precision.
    void sendChunk(CollectivePeers& p, int to, quint64 tag, float* data, size_t count) const;
    void receiveChunk(CollectivePeers& p, int from, quint64 tag, float* out, size_t count, bool add) const;
    // The bytes a float takes on the wire (for bytesSentPerRank).
    double wireBytes() const { return m_half ? 2 : 4; }
    size_t m_chunk;
    bool m_half = false;
    qint64 m_round = 0;
};

// Rank r's segment of `count` floats cut into `parts` near-equal segments: [begin, end).
inline size_t segmentBegin(size_t count, size_t parts, size_t index) {
    return size_t((unsigned __int128)count * index / parts);
}

// A message's tag: the call's sequence, the algorithm's step, the chunk within the step.
inline quint64 collectiveTag(quint32 sequence, quint32 step, quint32 chunk) {
    return (quint64(sequence & 0xffffffu) << 40) | (quint64(step & 0xffffu) << 24) | quint64(chunk & 0xffffffu);
}

// The second largest eigenvalue modulus of gossip's mixing matrix for `n` ranks on a ring with
// `degree` neighbours: the disagreement with the average shrinks by at least this factor a step.
double gossipContraction(int n, int degree);

namespace collective {
inline constexpr char kServer[] = "server";  // a party server, no collective (the default)
inline constexpr char kRing[] = "ring";
inline constexpr char kButterfly[] = "butterfly";
inline constexpr char kBinaryBlocks[] = "binary_blocks";
inline constexpr char kGossip[] = "gossip";
}  // namespace collective

// Collectives by name (a party's "transport"), with their parameters. `server` is listed too
// (no parameters): it is the transport without a collective, and create() gives nullptr for it.
class CollectiveRegistry {
public:
    using ParamLookup = std::function<double(const QString& name)>;
    static std::unique_ptr<Collective> create(const QString& name, const ParamLookup& param = {});
    static const StrategyList& all();
    static QStringList names() { return strategyNames(all()); }
    static const StrategyInfo* find(const QString& name) { return findStrategy(all(), name); }
};

}  // namespace hips
