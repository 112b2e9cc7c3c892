#include "Partition.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace hips {

const StrategyList& PartitionRegistry::all() {
    static const StrategyList list{
        {partition::kIid, QStringLiteral("a seeded permutation of the training set cut into equal shards"), {}, {}},
        {partition::kByClass,
         QStringLiteral("HiPS's and ESync's non-IID split: worker w holds classes w*c .. w*c+c-1 (mod 10), each "
                        "class shared equally among the workers holding it"),
         {{QStringLiteral("classes_per_worker"), ParamSpec::Type::Integer, 1, 10, 2, QStringLiteral("classes each worker holds")}},
         {}},
        {partition::kDirichlet,
         QStringLiteral("each class divided among the workers in proportions drawn from Dir(alpha)"),
         {{QStringLiteral("alpha"), ParamSpec::Type::Number, 0.001, 1000, 0.5,
           QStringLiteral("concentration: small is skewed (few classes per worker), large is nearly IID")}},
         {}},
        {partition::kDirichletHsu,
         QStringLiteral("Hsu et al. (2019): each worker draws its class mix from Dir(alpha * p), p the classes' shares, "
                        "and gets an equal number of samples drawn by that mix"),
         {{QStringLiteral("alpha"), ParamSpec::Type::Number, 0.001, 1000, 0.5,
           QStringLiteral("concentration: small is skewed (few classes per worker), large is nearly IID")}},
         {}},
    };
    return list;
}

namespace {

// splitmix64: small, fast, and the same on every platform (std:: distributions are not).
class Random {
public:
    explicit Random(uint64_t seed) : m_state(seed) {}
    uint64_t next() {
        uint64_t z = (m_state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    double uniform() { return double(next() >> 11) * 0x1.0p-53; }  // [0, 1)
    double normal() {  // Box–Muller
        const double u = 1.0 - uniform(), v = uniform();
        return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * M_PI * v);
    }
    template <class T>
    void shuffle(std::vector<T>& v) {  // Fisher–Yates
        for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[size_t(next() % i)]);
    }
    // A Dirichlet draw with these concentrations (a zero one gets 0), from Gamma draws in log
    // space: at a concentration of 1e-4, U^(1/a) underflows to 0 for most U, and a draw of all
    // zeros is no mix (it was taken as an even one: an IID shard where the skew was asked for).
    std::vector<double> dirichlet(const std::vector<double>& concentrations) {
        std::vector<double> logs(concentrations.size(), -INFINITY), out(concentrations.size(), 0.0);
        double most = -INFINITY, sum = 0;
        for (size_t k = 0; k < logs.size(); ++k)
            if (concentrations[k] > 0) most = std::max(most, logs[k] = logGamma(concentrations[k]));
        if (most == -INFINITY) return out;  // (nothing to mix)
        for (size_t k = 0; k < logs.size(); ++k) sum += (out[k] = std::exp(logs[k] - most));
        for (double& x : out) x /= sum;
        return out;
    }

private:
    // log of a Gamma(shape) draw: Marsaglia and Tsang (2000); for shape < 1,
    // Gamma(a) = Gamma(a + 1) · U^(1/a).
    double logGamma(double shape) {
        if (shape < 1) {  // (the two draws in this order on every compiler: every party cuts the same shards)
            const double g = logGamma(shape + 1);
            return g + std::log(1.0 - uniform()) / shape;
        }
        return std::log(gamma(shape));
    }
    double gamma(double shape) {  // shape >= 1
        const double d = shape - 1.0 / 3, c = 1.0 / std::sqrt(9 * d);
        for (;;) {
            double x, v;
            do {
                x = normal();
                v = 1 + c * x;
            } while (v <= 0);
            v = v * v * v;
            const double u = 1.0 - uniform();
            if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
        }
    }
    uint64_t m_state;
};

// Each class's rows, each list shuffled with the seed.
std::vector<std::vector<int64_t>> rowsByClass(const std::vector<int>& labels, int classes, Random& random) {
    std::vector<std::vector<int64_t>> rows(static_cast<size_t>(classes));
    for (size_t i = 0; i < labels.size(); ++i)
        if (labels[i] >= 0 && labels[i] < classes) rows[size_t(labels[i])].push_back(int64_t(i));
    for (auto& r : rows) random.shuffle(r);
    return rows;
}

// Cuts `rows` at the cumulative `shares` (summing to 1) and appends part `part`'s cut to `out`.
void appendCut(const std::vector<int64_t>& rows, const std::vector<double>& shares, int part, std::vector<int64_t>& out) {
    double before = 0;
    for (int p = 0; p < part; ++p) before += shares[size_t(p)];
    const auto n = double(rows.size());
    const auto begin = size_t(std::llround(n * before)), end = size_t(std::llround(n * std::min(1.0, before + shares[size_t(part)])));
    out.insert(out.end(), rows.begin() + long(begin), rows.begin() + long(std::max(begin, end)));
}

// Hsu et al. (2019): worker c's class mix q_c ~ Dir(alpha * p), then N / parts samples drawn one by
// one from the classes by q_c, without replacement (an exhausted class's share goes to the others,
// by what is left of them). Every worker computes every draw, in order, and keeps its own.
std::vector<int64_t> hsuShard(const std::vector<std::vector<int64_t>>& byClass, int part, int parts, double alpha, Random& random) {
    const size_t classes = byClass.size();
    int64_t total = 0;
    for (const auto& rows : byClass) total += int64_t(rows.size());
    const int64_t size = total / std::max(parts, 1);
    std::vector<size_t> used(classes, 0);
    std::vector<double> concentration(classes), weight(classes);
    for (size_t k = 0; k < classes; ++k) concentration[k] = alpha * double(byClass[k].size()) / double(std::max<int64_t>(total, 1));
    for (int c = 0; c <= part; ++c) {
        const std::vector<double> q = random.dirichlet(concentration);
        std::vector<int64_t> mine;
        for (int64_t j = 0; j < size; ++j) {
            double mass = 0;
            for (size_t k = 0; k < classes; ++k) mass += (weight[k] = used[k] < byClass[k].size() ? q[k] : 0.0);
            if (mass <= 0)  // its mix lies on exhausted classes: what is left, by size
                for (size_t k = 0; k < classes; ++k) mass += (weight[k] = double(byClass[k].size() - used[k]));
            double u = random.uniform() * mass;
            size_t k = 0;
            while (k + 1 < classes && (weight[k] <= 0 || u >= weight[k])) u -= weight[k++];
            while (used[k] >= byClass[k].size()) k = (k + 1) % classes;  // (rounding at the end of the scan)
            mine.push_back(byClass[k][used[k]++]);
        }
        if (c == part) return mine;
    }
    return {};
}

}  // namespace

std::vector<int64_t> labelShard(const std::vector<int>& labels, int classes, int part, int parts, const PartitionSpec& spec,
                                uint64_t seed) {
    Random random(seed * 0x2545f4914f6cdd1dULL + 1);
    const auto byClass = rowsByClass(labels, classes, random);
    if (spec.kind == QLatin1String(partition::kDirichletHsu)) {
        std::vector<int64_t> out = hsuShard(byClass, part, parts, spec.alpha, random);
        std::sort(out.begin(), out.end());
        return out;
    }
    std::vector<int64_t> out;
    for (int k = 0; k < classes; ++k) {
        std::vector<double> shares(size_t(parts), 0.0);
        if (spec.kind == QLatin1String(partition::kByClass)) {
            // Worker w holds classes (w*c + j) mod K, j < c; a class goes equally to its holders.
            std::vector<int> holders;
            for (int w = 0; w < parts; ++w)
                for (int j = 0; j < spec.classesPerWorker; ++j)
                    if ((w * spec.classesPerWorker + j) % classes == k && (holders.empty() || holders.back() != w)) holders.push_back(w);
            for (int w : holders) shares[size_t(w)] = 1.0 / double(holders.size());
        } else {  // dirichlet: drawn for every class, whichever part is asked for, so all agree
            shares = random.dirichlet(std::vector<double>(size_t(parts), spec.alpha));
        }
        if (shares[size_t(part)] > 0) appendCut(byClass[size_t(k)], shares, part, out);
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<int64_t> classHistogram(const std::vector<int>& labels, const std::vector<int64_t>& rows, int classes) {
    std::vector<int64_t> counts(size_t(classes), 0);
    for (int64_t r : rows)
        if (labels[size_t(r)] >= 0 && labels[size_t(r)] < classes) ++counts[size_t(labels[size_t(r)])];
    return counts;
}

}  // namespace hips
