#include "DracoCodes.h"

#include <QHash>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <mutex>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>

namespace hips {

using Complex = std::complex<double>;

int exactMajority(const std::vector<const float*>& members, size_t length) {
    const size_t bytes = length * sizeof(float);
    // Most groups are unanimous or nearly: the first member's count settles it in one pass.
    size_t sameAsFirst = 0;
    for (const float* m : members) sameAsFirst += m == members.front() || std::memcmp(m, members.front(), bytes) == 0;
    if (!members.empty() && 2 * sameAsFirst > members.size()) return 0;
    int candidate = -1, votes = 0;  // Boyer–Moore: a majority, if there is one, survives the pairing off
    for (size_t k = 0; k < members.size(); ++k) {
        if (votes == 0) candidate = int(k), votes = 1;
        else votes += std::memcmp(members[k], members[size_t(candidate)], bytes) == 0 ? 1 : -1;
    }
    if (candidate < 0) return -1;
    size_t count = 0;
    for (const float* m : members) count += std::memcmp(m, members[size_t(candidate)], bytes) == 0;
    return 2 * count > members.size() ? candidate : -1;
}

void CodedSum::add(double coefficient, const float* part) {
    for (size_t i = 0; i < m_sum.size(); ++i) m_sum[i] += coefficient * double(part[i]);
}

void CodedSum::write(float* out) const {
    for (size_t i = 0; i < m_sum.size(); ++i) out[i] = float(m_sum[i]);
}

namespace {

// The syndromes of a codeword, over the projected rows' size (locateErrors), are below this:
// honest rows differ only by rounding (CodedSum's one), a relative 1e-7 or so.
constexpr double kCodewordBound = 1e-5;

Complex rootOfUnity(int n, long long power) {
    const double angle = 2.0 * M_PI * double(((power % n) + n) % n) / double(n);
    return {std::cos(angle), std::sin(angle)};
}

// Solves A x = b (ν × ν, row-major) by Gaussian elimination with partial pivoting; false when a
// pivot is below `tiny` (the system is singular at this scale).
bool solve(std::vector<Complex> a, std::vector<Complex> b, int n, double tiny, std::vector<Complex>* x) {
    for (int col = 0; col < n; ++col) {
        int pivot = col;
        for (int r = col + 1; r < n; ++r)
            if (std::abs(a[size_t(r * n + col)]) > std::abs(a[size_t(pivot * n + col)])) pivot = r;
        if (std::abs(a[size_t(pivot * n + col)]) <= tiny) return false;
        for (int c = 0; c < n; ++c) std::swap(a[size_t(col * n + c)], a[size_t(pivot * n + c)]);
        std::swap(b[size_t(col)], b[size_t(pivot)]);
        for (int r = col + 1; r < n; ++r) {
            const Complex f = a[size_t(r * n + col)] / a[size_t(col * n + col)];
            for (int c = col; c < n; ++c) a[size_t(r * n + c)] -= f * a[size_t(col * n + c)];
            b[size_t(r)] -= f * b[size_t(col)];
        }
    }
    x->assign(size_t(n), 0.0);
    for (int r = n - 1; r >= 0; --r) {
        Complex v = b[size_t(r)];
        for (int c = r + 1; c < n; ++c) v -= a[size_t(r * n + c)] * (*x)[size_t(c)];
        (*x)[size_t(r)] = v / a[size_t(r * n + r)];
    }
    return true;
}

}  // namespace

DracoCyclicCode::DracoCyclicCode(int workers, int adversaries) : m_n(workers), m_s(adversaries) {
    const int frequencies = m_n % 2 == 1 ? 2 * m_s : 2 * m_s + 1;  // L: symmetric about n/2, never 0
    if (m_s < 1 || m_n < frequencies + 1 || m_n > kMostWorkers)
        throw std::invalid_argument("draco_cyclic with s = " + std::to_string(m_s) + " needs at least " +
                                    std::to_string(m_n % 2 == 1 ? 2 * m_s + 1 : 2 * m_s + 2) + " workers in the party (it has " +
                                    std::to_string(m_n) + ")");
    m_first = (m_n - frequencies + 1) / 2;
    std::vector<Complex> g{1.0};  // Π (x − ω^k): the conjugate pairs make it real
    for (int k = m_first; k < m_first + frequencies; ++k) {
        const Complex root = rootOfUnity(m_n, k);
        std::vector<Complex> next(g.size() + 1, 0.0);
        for (size_t t = 0; t < g.size(); ++t) {
            next[t + 1] += g[t];
            next[t] -= root * g[t];
        }
        g = std::move(next);
    }
    // An integer coefficient (all of them in (3, 1) and (5, 2): g = 1 + x + … + x^L) is taken as
    // one: 1 + 2^-52 times a part is not the part, and the workers' pushes, the same sum of the same
    // parts, then differed in their last bit wherever it was a tie to round.
    for (const Complex& c : g) m_g.push_back(std::abs(c.real() - std::round(c.real())) < 1e-12 ? std::round(c.real()) : c.real());
}

// Inverse iteration on the Gram matrix of the columns of 2s neighbouring rows (rows 0 … 2s − 1:
// the code is cyclic, so any 2s in a row are alike): its smallest eigenvalue is the separation².
// The matrix is Toeplitz (entry p, q depends on p − q alone) and factored once, so a party of
// 1,000 workers with s = 100 costs milliseconds (the designer checks it as the user types).
double DracoCyclicCode::separation() const {
    const int k = std::min(2 * m_s, m_n), count = int(m_g.size()) - 1;
    std::vector<Complex> byOffset(size_t(2 * k - 1), 0.0);  // (p − q + k − 1)
    for (int d = -(k - 1); d <= k - 1; ++d)
        for (int j = 0; j < count; ++j) byOffset[size_t(d + k - 1)] += rootOfUnity(m_n, (long long)d * (m_first + j)) / double(count);
    std::vector<Complex> lu(size_t(k * k));
    for (int p = 0; p < k; ++p)
        for (int q = 0; q < k; ++q) lu[size_t(p * k + q)] = byOffset[size_t(p - q + k - 1)];
    std::vector<int> order(static_cast<size_t>(k));
    for (int col = 0; col < k; ++col) {  // LU with partial pivoting, in place
        int pivot = col;
        for (int r = col + 1; r < k; ++r)
            if (std::abs(lu[size_t(r * k + col)]) > std::abs(lu[size_t(pivot * k + col)])) pivot = r;
        if (!(std::abs(lu[size_t(pivot * k + col)]) > 0)) return 0.0;
        order[size_t(col)] = pivot;
        for (int c = 0; c < k; ++c) std::swap(lu[size_t(col * k + c)], lu[size_t(pivot * k + c)]);
        for (int r = col + 1; r < k; ++r) {
            const Complex f = lu[size_t(r * k + col)] /= lu[size_t(col * k + col)];
            for (int c = col + 1; c < k; ++c) lu[size_t(r * k + c)] -= f * lu[size_t(col * k + c)];
        }
    }
    std::vector<Complex> x(static_cast<size_t>(k));
    for (int p = 0; p < k; ++p) x[size_t(p)] = Complex(1.0, 0.25 * p);  // (not orthogonal to the weakest direction)
    double lambda = 0;
    for (int iteration = 0; iteration < 40; ++iteration) {
        for (int p = 0; p < k; ++p) std::swap(x[size_t(p)], x[size_t(order[size_t(p)])]);
        for (int r = 0; r < k; ++r)
            for (int c = 0; c < r; ++c) x[size_t(r)] -= lu[size_t(r * k + c)] * x[size_t(c)];
        for (int r = k - 1; r >= 0; --r) {
            for (int c = r + 1; c < k; ++c) x[size_t(r)] -= lu[size_t(r * k + c)] * x[size_t(c)];
            x[size_t(r)] /= lu[size_t(r * k + r)];
        }
        double norm = 0;
        for (const Complex& v : x) norm += std::norm(v);
        norm = std::sqrt(norm);
        if (!(norm > 0) || !std::isfinite(norm)) return 0.0;
        for (Complex& v : x) v /= norm;
        const double next = 1.0 / norm;
        if (iteration > 2 && std::abs(next - lambda) <= 1e-6 * next) return std::sqrt(next);
        lambda = next;
    }
    return std::sqrt(lambda);
}

int DracoCyclicCode::mostWorkers(int adversaries) {
    static std::mutex mutex;
    static QHash<int, int> known;  // (the designer checks a topology as the user types)
    std::lock_guard lock(mutex);
    if (const auto it = known.constFind(adversaries); it != known.constEnd()) return *it;
    const auto separated = [adversaries](int n) { return DracoCyclicCode(n, adversaries).separation() >= kLeastSeparation; };
    const auto upTo = [&](int n) { return separated(n) && separated(n - 1); };  // (n − 1 ≥ 2s + 1: a code each)
    int good = 2 * adversaries + 2, bad = kMostWorkers + 1;  // (the smallest even code)
    if (upTo(kMostWorkers)) good = kMostWorkers;
    while (bad - good > 1) (upTo((good + bad) / 2) ? good : bad) = (good + bad) / 2;
    known.insert(adversaries, good);
    return good;
}

// The rows in error, from one random projection of every row: its syndromes at K, Peterson's
// error locator of the largest order whose Hankel system is regular, and the roots of the locator
// among ω^0 … ω^{n−1}.
// The syndromes are measured against the size the projected rows have whatever the projection's
// luck, √(Σ_i Σ_t (row_i[t] p_t)²), not against the projected rows' own norm: a projection nearly
// orthogonal to the honest pushes made that norm small by chance, the pushes' last-bit rounding
// then stood out of it, and an honest round was "no codeword" (1 killed run of Draco in ~130).
std::vector<int> DracoCyclicCode::locateErrors(const std::vector<const float*>& rows, size_t length, const std::vector<float>& projection,
                                               double* syndromeRatio) const {
    std::vector<double> z(size_t(m_n), 0.0);
    double scale = 0;
    // In double: a float sum's rounding (a few 1e-6 of it over 4096 terms) comes near the tolerance.
    for (int i = 0; i < m_n; ++i) {
        const float* row = rows[size_t(i)];
        double sum = 0, squares = 0;
        for (size_t t = 0; t < length; ++t) {
            const double term = double(row[t]) * double(projection[t]);
            sum += term;
            squares += term * term;
        }
        z[size_t(i)] = sum;
        scale += squares;
    }
    scale = std::sqrt(scale);
    const int frequencies = int(m_g.size()) - 1;
    std::vector<Complex> syndrome(size_t(frequencies), 0.0);
    for (int j = 0; j < frequencies; ++j)
        for (int i = 0; i < m_n; ++i) syndrome[size_t(j)] += z[size_t(i)] * rootOfUnity(m_n, -(long long)i * (m_first + j));
    double largest = 0;
    for (const Complex& s : syndrome) largest = std::max(largest, std::abs(s));
    *syndromeRatio = scale > 0 ? largest / scale : 0.0;
    if (largest <= kCodewordBound * scale) return {};  // a codeword: no row in error
    // The fewest rows in error that explain the syndromes (the nearest codeword): for each order ν
    // from 1, Peterson's locator, its ν roots, and the error values on them by least squares; the
    // first whose values reproduce every syndrome wins.
    const double tolerance = kCodewordBound * scale;
    for (int order = 1; order <= m_s; ++order) {
        std::vector<Complex> a(static_cast<size_t>(order * order)), b(static_cast<size_t>(order));
        for (int j = 0; j < order; ++j) {
            for (int l = 1; l <= order; ++l) a[size_t(j * order + l - 1)] = syndrome[size_t(j + order - l)];
            b[size_t(j)] = -syndrome[size_t(j + order)];
        }
        std::vector<Complex> lambda;
        if (!solve(a, b, order, 1e-12 * largest, &lambda)) continue;
        std::vector<std::pair<double, int>> values;  // |Λ(ω^i)|: zero at the rows in error
        for (int i = 0; i < m_n; ++i) {
            Complex v = 1.0;
            for (int l = 1; l <= order; ++l) v += lambda[size_t(l - 1)] * rootOfUnity(m_n, (long long)i * l);
            values.push_back({std::abs(v), i});
        }
        std::sort(values.begin(), values.end());
        std::vector<int> rows;
        for (int e = 0; e < order; ++e) rows.push_back(values[size_t(e)].second);
        if (explains(syndrome, rows, tolerance)) {
            // Rows in error that lie close make the Hankel system ill-conditioned: with the
            // rounding noise, their order's locator can miss, and the next order's takes in an
            // honest row beside them. A row whose acquittal still explains the syndromes is kept.
            for (size_t k = 0; k < rows.size();) {
                std::vector<int> fewer = rows;
                fewer.erase(fewer.begin() + std::ptrdiff_t(k));
                if (explains(syndrome, fewer, tolerance)) rows = std::move(fewer);
                else ++k;
            }
            std::sort(rows.begin(), rows.end());
            return rows;
        }
    }
    return std::vector<int>(size_t(m_s + 1), -1);  // inconsistent: more than s errors
}

// Whether errors on `rows` alone give the syndromes: S_j = Σ_p E_p ω^{−p(b+j)} solved for E by
// least squares (normal equations, ν × ν), and the residual within `tolerance`.
bool DracoCyclicCode::explains(const std::vector<Complex>& syndrome, const std::vector<int>& rows, double tolerance) const {
    const int nu = int(rows.size()), count = int(syndrome.size());
    auto v = [&](int j, int p) { return rootOfUnity(m_n, -(long long)rows[size_t(p)] * (m_first + j)); };
    std::vector<Complex> normal(static_cast<size_t>(nu * nu), 0.0), rhs(static_cast<size_t>(nu), 0.0);
    for (int p = 0; p < nu; ++p) {
        for (int q = 0; q < nu; ++q)
            for (int j = 0; j < count; ++j) normal[size_t(p * nu + q)] += std::conj(v(j, p)) * v(j, q);
        for (int j = 0; j < count; ++j) rhs[size_t(p)] += std::conj(v(j, p)) * syndrome[size_t(j)];
    }
    std::vector<Complex> values;
    if (!solve(normal, rhs, nu, 1e-9, &values)) return false;
    double residual = 0;
    for (int j = 0; j < count; ++j) {
        Complex r = syndrome[size_t(j)];
        for (int p = 0; p < nu; ++p) r -= v(j, p) * values[size_t(p)];
        residual += std::norm(r);
    }
    return std::sqrt(residual) <= tolerance;
}

// The decoding weights c: Σ_j g_j = Σ_i c_i · push_i. The pushes' sum is g(1) Σ_j g_j plus the
// errors' sum (the spectrum at 0 of B·G is g(1) times G's); the errors on `rows` follow linearly
// from the syndromes, E = (VᴴV)⁻¹ Vᴴ W·push, so c_i = (1 − Re Σ_p M_pi) / g(1) with M = (VᴴV)⁻¹ Vᴴ W.
// A row in error gets weight 0; without errors every weight is 1/g(1).
bool DracoCyclicCode::sumWeights(const std::vector<int>& rows, std::vector<double>* weights) const {
    const double gAtOne = std::accumulate(m_g.begin(), m_g.end(), 0.0);
    weights->assign(size_t(m_n), 1.0 / gAtOne);
    const int nu = int(rows.size()), count = int(m_g.size()) - 1;
    if (nu == 0) return true;
    auto v = [&](int j, int p) { return rootOfUnity(m_n, -(long long)rows[size_t(p)] * (m_first + j)); };
    std::vector<Complex> normal(static_cast<size_t>(nu * nu), 0.0);
    for (int p = 0; p < nu; ++p)
        for (int q = 0; q < nu; ++q)
            for (int j = 0; j < count; ++j) normal[size_t(p * nu + q)] += std::conj(v(j, p)) * v(j, q);
    // Σ_p M_pi = uᵀ Vᴴ W_i with u = (VᴴV)⁻¹ 1 (VᴴV is Hermitian, so uᵀ = 1ᵀ (VᴴV)⁻¹).
    std::vector<Complex> u;
    if (!solve(normal, std::vector<Complex>(size_t(nu), 1.0), nu, 1e-12, &u)) return false;
    for (int i = 0; i < m_n; ++i) {
        Complex share = 0.0;
        for (int j = 0; j < count; ++j) {
            Complex vu = 0.0;  // (V u)_j conjugated: Σ_p conj(V_jp) u_p
            for (int p = 0; p < nu; ++p) vu += std::conj(v(j, p)) * u[size_t(p)];
            share += vu * rootOfUnity(m_n, -(long long)i * (m_first + j));
        }
        (*weights)[size_t(i)] = (1.0 - share.real()) / gAtOne;
    }
    return true;
}

// The projection is drawn afresh for each decoding, from the OS's random source: a fixed one is
// public (this code is), and a liar could send an error orthogonal to it, which no syndrome shows
// and the sum would take in.
bool DracoCyclicCode::decode(const std::vector<const float*>& rows, size_t length, float* sum, std::vector<int>* suspects,
                             QString* error) const {
    std::random_device os;
    std::seed_seq seed{os(), os(), os(), os()};
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> projection(length);
    for (float& p : projection) p = u(rng);
    return decodeOn(projection, rows, length, sum, suspects, error);
}

bool DracoCyclicCode::decodeOn(const std::vector<float>& projection, const std::vector<const float*>& rows, size_t length, float* sum,
                               std::vector<int>* suspects, QString* error) const {
    if (int(rows.size()) != m_n) {
        *error = QStringLiteral("draco_cyclic: %1 pushes for a code of %2 workers").arg(rows.size()).arg(m_n);
        return false;
    }
    if (projection.size() != length) {
        *error = QStringLiteral("draco_cyclic: a projection of %1 floats for pushes of %2").arg(projection.size()).arg(length);
        return false;
    }
    double syndromeRatio = 0;
    *suspects = locateErrors(rows, length, projection, &syndromeRatio);
    if (std::find(suspects->begin(), suspects->end(), -1) != suspects->end()) {
        suspects->clear();
        // (How far from a codeword: an honest round's syndromes are rounding, far below the bound.)
        *error = QStringLiteral(
                     "draco_cyclic: the pushes are no codeword with at most %1 rows in error (their syndromes are %2 "
                     "of their projection's size; a codeword's are below %3)")
                     .arg(m_s)
                     .arg(syndromeRatio, 0, 'g', 2)
                     .arg(kCodewordBound, 0, 'g', 2);
        return false;
    }
    std::vector<double> a;
    if (!sumWeights(*suspects, &a)) {
        *error = QStringLiteral("draco_cyclic: the rows in error cannot be told apart");
        return false;
    }
    // Row by row into a double accumulator (streams each row once, vectorizes), by blocks in cache.
    constexpr size_t kBlock = 8192;
    std::vector<double> acc(kBlock);
    for (size_t begin = 0; begin < length; begin += kBlock) {
        const size_t len = std::min(kBlock, length - begin);
        std::fill(acc.begin(), acc.begin() + std::ptrdiff_t(len), 0.0);
        for (int i = 0; i < m_n; ++i) {
            if (std::find(suspects->begin(), suspects->end(), i) != suspects->end()) continue;
            const double w = a[size_t(i)];
            const float* row = rows[size_t(i)] + begin;
            for (size_t t = 0; t < len; ++t) acc[t] += w * double(row[t]);
        }
        for (size_t t = 0; t < len; ++t) sum[begin + t] = float(acc[t]);
    }
    return true;
}

}  // namespace hips
