#include "RobustRules.h"

#include "DracoCodes.h"
#include "VectorBackend.h"
#include "VectorMath.h"

#include <QCborArray>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string>

namespace hips {

namespace {

// Coordinates are processed in blocks: a block of every contribution (n × 16 KiB for n = 45:
// 720 KiB) stays in cache while each coordinate's n values are gathered and ordered.
constexpr size_t kBlock = 4096;

// Calls `each(i, values)` for every coordinate i with its n values gathered into `values`.
template <typename Each>
void forEachCoordinate(const std::vector<const float*>& inputs, size_t length, Each each) {
    const size_t n = inputs.size();
    std::vector<float> column(n);
    for (size_t begin = 0; begin < length; begin += kBlock) {
        const size_t end = std::min(length, begin + kBlock);
        for (size_t i = begin; i < end; ++i) {
            for (size_t k = 0; k < n; ++k) column[k] = inputs[k][i];
            each(i, column);
        }
    }
}

// The median of `v` (reordered): the mean of the two middle values when n is even.
float medianOf(std::vector<float>& v) {
    const size_t n = v.size(), mid = n / 2;
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(mid), v.end());
    const float upper = v[mid];
    if (n % 2 == 1) return upper;
    const float lower = *std::max_element(v.begin(), v.begin() + std::ptrdiff_t(mid));
    return 0.5f * (lower + upper);
}

QCborArray toArray(const QStringList& names) {
    QCborArray out;
    for (const QString& n : names) out.append(n);
    return out;
}

}  // namespace

// --- the held contributions ------------------------------------------------------------------

bool naturalLess(const QString& a, const QString& b) {
    auto split = [](const QString& s) {
        qsizetype digits = s.size();
        while (digits > 0 && s[digits - 1].isDigit()) --digits;
        return std::pair<QString, qulonglong>{s.left(digits), s.mid(digits).toULongLong()};
    };
    const auto [pa, na] = split(a);
    const auto [pb, nb] = split(b);
    if (pa != pb) return pa < pb;
    if (na != nb) return na < nb;
    return a < b;
}

void HeldContributionsRule::begin(size_t length) {
    m_length = length;
    m_inputs.clear();
    m_weights.clear();
    m_from.clear();
    m_owners.clear();
    m_selected.clear();
    m_rejected.clear();
}

void HeldContributionsRule::add(Contribution c) {
    if (c.length != m_length)
        throw std::invalid_argument(name().toStdString() + ": contribution of " + std::to_string(c.length) + " values, expected " +
                                    std::to_string(m_length));
    const float* values = c.values;
    std::shared_ptr<const void> owner = std::move(c.owner);
    if (!owner) {  // the caller keeps no promise about `values`: hold a copy
        auto copy = std::make_shared<std::vector<float>>(values, values + c.length);
        values = copy->data();
        owner = std::move(copy);
    }
    m_inputs.push_back(values);
    m_weights.push_back(c.weight);
    m_from << c.from;
    m_owners.push_back(std::move(owner));
}

void HeldContributionsRule::finish() {
    const int n = contributions();
    m_result.assign(m_length, 0.0f);
    m_selected.clear();
    m_rejected.clear();
    m_short.clear();
    // In the senders' order, whatever the arrival: the same contributions give the same bits (and
    // the same records).
    std::vector<size_t> order(m_inputs.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return naturalLess(m_from[qsizetype(a)], m_from[qsizetype(b)]); });
    auto permute = [&order](auto& v) {
        auto copy = v;
        for (size_t k = 0; k < order.size(); ++k) v[k] = copy[order[k]];
    };
    permute(m_inputs);
    permute(m_weights);
    permute(m_owners);
    QStringList from;
    for (size_t k : order) from << m_from[qsizetype(k)];
    m_from = from;
    if (n < std::max(1, minimumContributions())) {
        // A short round (a quorum closed it, or every push was refused as not finite): no change,
        // said in the rule's record. It never ends the server: one bad round is not the run's end.
        m_short = QStringLiteral("%1 needs at least %2 contributions in a round (%3); this round has %4: the model is left as it was")
                      .arg(name())
                      .arg(std::max(1, minimumContributions()))
                      .arg(minimumReason().isEmpty() ? QStringLiteral("one") : minimumReason())
                      .arg(n);
        m_rejected = m_from;
        return;
    }
    compute();
}

void HeldContributionsRule::write(float* out, const float* base, size_t begin, size_t end) const {
    if (end > m_length || begin > end || m_result.size() != m_length)
        throw std::out_of_range(name().toStdString() + ": range outside the model, or finish() not called");
    for (size_t i = begin; i < end; ++i) out[i] = (base ? base[i] : 0.0f) + m_result[i];
}

QCborMap HeldContributionsRule::report() const {
    QCborMap r;
    r.insert(QStringLiteral("rule"), name());
    if (!m_short.isEmpty()) r.insert(QStringLiteral("short_round"), m_short);
    if (!m_selected.isEmpty() || !m_rejected.isEmpty()) {
        r.insert(QStringLiteral("selected"), toArray(m_selected));
        r.insert(QStringLiteral("rejected"), toArray(m_rejected));
    }
    return r;
}

void HeldContributionsRule::meanOf(const std::vector<int>& indices) {
    std::vector<const float*> chosen;
    for (int k : indices) chosen.push_back(m_inputs[size_t(k)]);
    sumMany(m_result.data(), nullptr, chosen.data(), chosen.size(), m_length);  // each input read once, in cache blocks
    rescaleAround(m_result.data(), nullptr, m_length, float(m_inputs.size()) / float(indices.size()));
}

// --- mean, median, trimmed mean --------------------------------------------------------------

void MeanRule::compute() {
    const double total = std::accumulate(m_weights.begin(), m_weights.end(), 0.0);
    const double n = double(m_inputs.size());
    for (size_t k = 0; k < m_inputs.size(); ++k) {
        const float share = float(n * m_weights[k] / total);
        const float* x = m_inputs[k];
        for (size_t i = 0; i < m_length; ++i) m_result[i] += share * x[i];
    }
}

void MedianRule::compute() {
    const float n = float(m_inputs.size());
    forEachCoordinate(m_inputs, m_length, [&](size_t i, std::vector<float>& v) { m_result[i] = n * medianOf(v); });
}

void TrimmedMeanRule::compute() {
    const int n = int(m_inputs.size()), cut = int(std::floor(m_beta * n)), kept = n - 2 * cut;
    forEachCoordinate(m_inputs, m_length, [&](size_t i, std::vector<float>& v) {
        std::sort(v.begin(), v.end());
        double sum = 0;
        for (int k = cut; k < cut + kept; ++k) sum += v[size_t(k)];
        m_result[i] = float(n * sum / kept);
    });
}

// --- Krum, Multi-Krum, Bulyan ----------------------------------------------------------------

std::vector<double> pairwiseSquaredDistances(const std::vector<const float*>& vectors, size_t length) {
    const size_t n = vectors.size();
    std::vector<double> d(n * n, 0.0);
    for (size_t begin = 0; begin < length; begin += kBlock) {
        const size_t len = std::min(kBlock, length - begin);
        for (size_t a = 0; a < n; ++a)
            for (size_t b = a + 1; b < n; ++b) {
                const float* x = vectors[a] + begin;
                const float* y = vectors[b] + begin;
                float partial = 0;  // within a block, in float (vectorizes); blocks add up in double
                for (size_t i = 0; i < len; ++i) {
                    const float diff = x[i] - y[i];
                    partial += diff * diff;
                }
                d[a * n + b] += partial;
            }
    }
    for (size_t a = 0; a < n; ++a)
        for (size_t b = a + 1; b < n; ++b) d[b * n + a] = d[a * n + b];
    return d;
}

std::vector<double> krumScores(const std::vector<double>& distances, int n, const std::vector<int>& candidates, int closest) {
    std::vector<double> scores;
    std::vector<double> row;
    for (int a : candidates) {
        row.clear();
        for (int b : candidates)
            if (b != a) row.push_back(distances[size_t(a) * size_t(n) + size_t(b)]);
        const int k = std::clamp(closest, 0, int(row.size()));
        std::partial_sort(row.begin(), row.begin() + k, row.end());
        scores.push_back(std::accumulate(row.begin(), row.begin() + k, 0.0));
    }
    return scores;
}

// The `count` candidates of lowest score, best first (ties: the earlier sender).
static std::vector<int> bestScored(const std::vector<int>& candidates, const std::vector<double>& scores, int count) {
    std::vector<int> order(candidates.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return scores[size_t(a)] < scores[size_t(b)]; });
    std::vector<int> out;
    for (int i = 0; i < count && i < int(order.size()); ++i) out.push_back(candidates[size_t(order[size_t(i)])]);
    return out;
}

QString KrumRule::minimumReason() const {
    return QStringLiteral("n > 2f + 2 with byzantine_f %1").arg(m_f);
}

void KrumRule::compute() {
    const int n = int(m_inputs.size());
    std::vector<int> all(static_cast<size_t>(n));
    std::iota(all.begin(), all.end(), 0);
    const std::vector<double> d = vectorBackend().pairwiseSquaredDistances(m_inputs, m_length);
    const std::vector<double> scores = krumScores(d, n, all, n - m_f - 2);
    const int m = m_multi ? (m_m > 0 ? std::min(m_m, n) : n - m_f) : 1;
    const std::vector<int> chosen = bestScored(all, scores, m);
    for (int k = 0; k < n; ++k) (std::find(chosen.begin(), chosen.end(), k) != chosen.end() ? m_selected : m_rejected) << m_from[k];
    meanOf(chosen);
}

QString BulyanRule::minimumReason() const {
    return QStringLiteral("n >= 4f + 3 with byzantine_f %1").arg(m_f);
}

void BulyanRule::compute() {
    const int n = int(m_inputs.size()), theta = n - 2 * m_f, beta = theta - 2 * m_f;
    const std::vector<double> d = vectorBackend().pairwiseSquaredDistances(m_inputs, m_length);
    std::vector<int> remaining(static_cast<size_t>(n)), chosen;
    std::iota(remaining.begin(), remaining.end(), 0);
    while (int(chosen.size()) < theta) {  // Krum over what is left, one pick at a time
        // Krum among the remaining: each scored by its left − f − 2 nearest others, and at least
        // by its nearest. (With none, the last pick of f = 1 scored every candidate 0 and took
        // the first sender, however far it was from the others.)
        const int left = int(remaining.size());
        const std::vector<double> scores = krumScores(d, n, remaining, std::max(1, left - m_f - 2));
        const int pick = bestScored(remaining, scores, 1).front();
        chosen.push_back(pick);
        remaining.erase(std::find(remaining.begin(), remaining.end(), pick));
    }
    std::sort(chosen.begin(), chosen.end());
    for (int k = 0; k < n; ++k) (std::find(chosen.begin(), chosen.end(), k) != chosen.end() ? m_selected : m_rejected) << m_from[k];
    std::vector<const float*> picked;
    for (int k : chosen) picked.push_back(m_inputs[size_t(k)]);
    std::vector<std::pair<float, float>> byDistance(static_cast<size_t>(theta));  // (|v − median|, v)
    forEachCoordinate(picked, m_length, [&](size_t i, std::vector<float>& v) {
        std::vector<float> copy = v;
        const float med = medianOf(copy);
        for (size_t k = 0; k < v.size(); ++k) byDistance[k] = {std::abs(v[k] - med), v[k]};
        std::nth_element(byDistance.begin(), byDistance.begin() + beta - 1, byDistance.end());
        double sum = 0;
        for (int k = 0; k < beta; ++k) sum += byDistance[size_t(k)].second;
        m_result[i] = float(n * sum / beta);
    });
}

// --- Draco ----------------------------------------------------------------------------------

void DracoRepetitionRule::compute() {
    m_undecided = 0;
    const size_t n = m_inputs.size();
    for (size_t begin = 0; begin < n; begin += size_t(m_r)) {
        const size_t end = std::min(n, begin + size_t(m_r));
        const std::vector<const float*> group(m_inputs.begin() + std::ptrdiff_t(begin), m_inputs.begin() + std::ptrdiff_t(end));
        const int winner = exactMajority(group, m_length);
        if (winner < 0) {
            ++m_undecided;
            for (size_t k = begin; k < end; ++k) m_rejected << m_from[qsizetype(k)];
            continue;
        }
        const float members = float(end - begin);
        const float* w = group[size_t(winner)];
        for (size_t i = 0; i < m_length; ++i) m_result[i] += members * w[i];
        for (size_t k = begin; k < end; ++k)
            (std::memcmp(m_inputs[k], w, m_length * sizeof(float)) == 0 ? m_selected : m_rejected) << m_from[qsizetype(k)];
    }
}

QCborMap DracoRepetitionRule::report() const {
    QCborMap r = HeldContributionsRule::report();
    if (m_undecided > 0) r.insert(QStringLiteral("undecided_groups"), m_undecided);
    return r;
}

// More than s liars leave no codeword to decode: the round adds nothing (as a repetition group
// without a majority does) and says so; colluding liars cannot end the run.
void DracoCyclicRule::compute() {
    const DracoCyclicCode code(int(m_inputs.size()), m_s);
    std::vector<int> suspects;
    m_undecodable.clear();
    if (!code.decode(m_inputs, m_length, m_result.data(), &suspects, &m_undecodable)) {
        std::fill(m_result.begin(), m_result.end(), 0.0f);
        m_rejected = m_from;
        return;
    }
    for (int k = 0; k < int(m_inputs.size()); ++k)
        (std::find(suspects.begin(), suspects.end(), k) != suspects.end() ? m_rejected : m_selected) << m_from[k];
}

QCborMap DracoCyclicRule::report() const {
    QCborMap r = HeldContributionsRule::report();
    if (!m_undecodable.isEmpty()) r.insert(QStringLiteral("undecodable"), m_undecodable);
    return r;
}

// --- geometric median ------------------------------------------------------------------------

// Each contribution counts once: the samples a sender claims are not the server's to check, and one
// liar's claim of 1e15 would otherwise be the median (RFA weighs by them; here a claim buys nothing).
void GeometricMedianRule::compute() {
    const std::vector<double> once(m_inputs.size(), 1.0);
    m_iterations =
        vectorBackend().geometricMedian(m_inputs, once, m_length, WeiszfeldOptions{m_tolerance, m_maxIterations, m_nu}, m_result.data());
}

QCborMap GeometricMedianRule::report() const {
    QCborMap r = HeldContributionsRule::report();
    r.insert(QStringLiteral("iterations"), m_iterations);
    return r;
}

}  // namespace hips
