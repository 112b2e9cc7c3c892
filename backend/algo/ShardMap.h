#pragma once
// Key slicing (HiPS's layout over several servers per tier): the model's flat buffer as keys, one
// per tensor (KeyLayout), and the cut of those keys over S servers that every role computes the
// same way (ShardMap). A key below `sliceBound` floats goes whole to one server, chosen by a hash
// of the key; a larger one is cut into S nearly equal slices, slice i holding
// round(N/S*(i+1)) - round(N/S*i) floats, one per server (ALGORITHMS.md).
//
// A server sees only its shard: the concatenation of its ranges, in the order of the flat buffer,
// as a model of shardSize(s) floats. Servers need not know the layout; the roles that hold the
// whole model (workers, the master) gather a shard out of it and scatter one back.
#include "ModelRegistry.h"

#include <QString>

#include <cstddef>
#include <vector>

namespace hips {

struct KeyRange {
    int key = 0;  // the tensor's index in the model's order
    size_t offset = 0;  // in the flat buffer
    size_t length = 0;  // floats, with the alignment padding that follows the tensor
};

struct KeyLayout {
    std::vector<KeyRange> keys;
    size_t total = 0;

    // The keys of a flat buffer laid out as FlatModel does: each tensor on a 16-float boundary,
    // the whole padded to one. The ranges cover [0, total) without holes or overlaps.
    static KeyLayout fromTensorSizes(const std::vector<size_t>& sizes);
    // The model's layout from the registry (empty for an unknown model).
    static KeyLayout ofModel(const QString& model, const QString& dataset);
    static KeyLayout ofModel(const ModelSpec& model);
};

class ShardMap {
public:
    struct Span {
        size_t offset = 0, length = 0;
    };

    ShardMap() = default;
    ShardMap(const KeyLayout& layout, int servers, size_t sliceBound);

    int servers() const { return int(m_spans.size()); }
    size_t total() const { return m_total; }
    size_t shardSize(int server) const { return m_sizes[size_t(server)]; }
    // Server `server`'s ranges of the flat buffer, in order, adjacent ones merged.
    const std::vector<Span>& spans(int server) const { return m_spans[size_t(server)]; }
    // How many of server's floats lie below `bound` in the flat buffer: its shard's first ones,
    // since its spans keep the buffer's order (the model's weights, before its running statistics).
    size_t floatsBelow(int server, size_t bound) const;
    // The server that holds a whole key below the bound.
    static int serverOfKey(int key, int servers);

    // `shard` (shardSize(server) floats) <- server's ranges of `whole` (total() floats), and back.
    void gather(const float* whole, int server, float* shard) const;
    void scatter(const float* shard, int server, float* whole) const;

private:
    void add(int server, size_t offset, size_t length);

    std::vector<std::vector<Span>> m_spans;
    std::vector<size_t> m_sizes;
    size_t m_total = 0;
};

}  // namespace hips
