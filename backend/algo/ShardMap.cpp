#include "ShardMap.h"

#include "ModelRegistry.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace hips {

KeyLayout KeyLayout::fromTensorSizes(const std::vector<size_t>& sizes) {
    const auto aligned = [](size_t n) { return (n + 15) / 16 * 16; };
    KeyLayout layout;
    size_t end = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
        const size_t offset = aligned(end);
        if (!layout.keys.empty()) layout.keys.back().length = offset - layout.keys.back().offset;  // + its padding
        layout.keys.push_back(KeyRange{int(i), offset, sizes[i]});
        end = offset + sizes[i];
    }
    layout.total = aligned(end);
    if (!layout.keys.empty()) layout.keys.back().length = layout.total - layout.keys.back().offset;
    return layout;
}

KeyLayout KeyLayout::ofModel(const QString& model, const QString& dataset) {
    return fromTensorSizes(ModelRegistry::tensorSizes(model, dataset));
}

KeyLayout KeyLayout::ofModel(const ModelSpec& model) {
    return fromTensorSizes(ModelRegistry::tensorSizes(model));
}

// SplitMix64's finaliser: a fixed hash, the same on every host and build.
int ShardMap::serverOfKey(int key, int servers) {
    uint64_t z = uint64_t(key) + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return int(z % uint64_t(servers));
}

ShardMap::ShardMap(const KeyLayout& layout, int servers, size_t sliceBound)
    : m_spans(size_t(std::max(servers, 1))), m_sizes(size_t(std::max(servers, 1)), 0), m_total(layout.total) {
    const int s = std::max(servers, 1);
    for (const KeyRange& k : layout.keys) {
        if (s == 1 || k.length < sliceBound) {
            add(serverOfKey(k.key, s), k.offset, k.length);
            continue;
        }
        const double per = double(k.length) / double(s);
        for (int i = 0; i < s; ++i) {
            const size_t begin = size_t(std::llround(per * i)), end = size_t(std::llround(per * (i + 1)));
            add(i, k.offset + begin, end - begin);
        }
    }
}

void ShardMap::add(int server, size_t offset, size_t length) {
    if (length == 0) return;
    std::vector<Span>& spans = m_spans[size_t(server)];
    if (!spans.empty() && spans.back().offset + spans.back().length == offset) spans.back().length += length;
    else spans.push_back(Span{offset, length});
    m_sizes[size_t(server)] += length;
}

size_t ShardMap::floatsBelow(int server, size_t bound) const {
    size_t below = 0;
    for (const Span& s : spans(server))
        if (s.offset < bound) below += std::min(s.length, bound - s.offset);
    return below;
}

void ShardMap::gather(const float* whole, int server, float* shard) const {
    for (const Span& s : spans(server)) shard = std::copy(whole + s.offset, whole + s.offset + s.length, shard);
}

void ShardMap::scatter(const float* shard, int server, float* whole) const {
    for (const Span& s : spans(server)) {
        std::copy(shard, shard + s.length, whole + s.offset);
        shard += s.length;
    }
}

}  // namespace hips
