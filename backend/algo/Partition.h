#pragma once
// How the training set is split among the workers (`training.partition`): `iid` (a seeded
// permutation cut in equal shards, in backend/train), `by_class` (HiPS's and ESync's non-IID
// split: each worker holds `classes_per_worker` classes), `dirichlet` (each class divided among
// the workers in proportions drawn from Dir(alpha): the smaller alpha, the more skewed; the
// workers' sizes vary with the draws) and `dirichlet_hsu` (Hsu et al. 2019: each worker draws its
// class mix q ~ Dir(alpha * p), p the classes' shares, and gets an equal number of samples).
// Seeded and computed identically in every worker, each keeping only its own shard.
#include "StrategyInfo.h"

#include <cstdint>
#include <vector>

namespace hips {

namespace partition {
inline constexpr char kIid[] = "iid";
inline constexpr char kByClass[] = "by_class";
inline constexpr char kDirichlet[] = "dirichlet";
inline constexpr char kDirichletHsu[] = "dirichlet_hsu";
}  // namespace partition

class PartitionRegistry {
public:
    static const StrategyList& all();
    static const StrategyInfo* find(const QString& name) { return findStrategy(all(), name); }
};

struct PartitionSpec {
    QString kind = QString::fromLatin1(partition::kIid);
    int classesPerWorker = 2;
    double alpha = 0.5;
};

// The rows of a data set with `labels` (each in [0, classes)) that make shard `part` of `parts`
// under a label-aware partition (by_class, dirichlet). The shards of all parts are disjoint and
// cover every row of a class some worker holds. The random numbers are this file's own
// (splitmix64, Marsaglia–Tsang gamma), so every host computes the same shards.
std::vector<int64_t> labelShard(const std::vector<int>& labels, int classes, int part, int parts, const PartitionSpec& spec, uint64_t seed);

// How many rows of each class `rows` holds.
std::vector<int64_t> classHistogram(const std::vector<int>& labels, const std::vector<int64_t>& rows, int classes);

}  // namespace hips
