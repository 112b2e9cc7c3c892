#pragma once
// An aggregation rule at a server: contributions of one round go in, one vector comes out.
// Strategies are chosen by name (AggregatorRegistry); robust rules (median, Krum, Draco's
// majority vote) are further subclasses that keep their inputs until result().
#include <QString>
#include <cstddef>
#include <memory>

namespace hips {

class Aggregator {
public:
    virtual ~Aggregator() = default;
    virtual QString name() const = 0;
    // Starts a round of vectors of `length` floats.
    virtual void begin(size_t length) = 0;
    // `owner`, when given, keeps `values` alive: a rule may then hold them without a copy.
    virtual void add(const float* values, size_t length, std::shared_ptr<const void> owner = nullptr) = 0;
    virtual int contributions() const = 0;
    // out[i] = base[i] + aggregate[i] for i in [begin, end) (base may be null: the aggregate
    // alone). Computing by ranges lets a server send each slice as soon as it is written.
    virtual void write(float* out, const float* base, size_t begin, size_t end) const = 0;
    // True for a rule whose aggregate is the plain sum of the contributions: the server may then
    // fold each one into the next model as it arrives (RoundCollector::foldOnArrival), and
    // write() is needed only to recompute a range.
    virtual bool foldsOnArrival() const { return false; }
};

}  // namespace hips
