#include "PrivacyAccountant.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hips::privacy {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// log(e^a + e^b) and log(e^a − e^b) (a ≥ b), without overflow.
double logAdd(double a, double b) {
    const double high = std::max(a, b), low = std::min(a, b);
    return high == -kInf ? -kInf : high + std::log1p(std::exp(low - high));
}
double logSub(double a, double b) {
    if (b == -kInf) return a;
    if (a <= b) return -kInf;  // (rounding: the difference is nothing)
    return a + std::log1p(-std::exp(b - a));
}

// log(erfc(x)), past where erfc underflows by its asymptotic series.
double logErfc(double x) {
    if (x < 25) return std::log(std::erfc(x));
    const double x2 = x * x;
    return -x2 - std::log(x) - 0.5 * std::log(M_PI) + std::log1p(-1 / (2 * x2) + 3 / (4 * x2 * x2));
}

// log A_α for an integer α: the binomial expansion (Mironov et al. 2019, section 3.3).
double logAInteger(double q, double sigma, int alpha) {
    double logA = -kInf;
    for (int i = 0; i <= alpha; ++i) {
        const double logBinomial = std::lgamma(alpha + 1.0) - std::lgamma(i + 1.0) - std::lgamma(alpha - i + 1.0);
        const double logCoefficient = logBinomial + i * std::log(q) + (alpha - i) * std::log1p(-q);
        logA = logAdd(logA, logCoefficient + (double(i) * i - i) / (2 * sigma * sigma));
    }
    return logA;
}

// log A_α for a fractional α: the two series of section 3.3, summed until their terms vanish.
double logAFractional(double q, double sigma, double alpha) {
    double logA0 = -kInf, logA1 = -kInf;
    const double z0 = sigma * sigma * std::log(1 / q - 1) + 0.5;
    double logAbsBinomial = 0;  // log |binom(α, i)|, and its sign, built up term by term
    int sign = 1;
    for (int i = 0; i < 100000; ++i) {
        const double j = alpha - i;
        const double logT0 = logAbsBinomial + i * std::log(q) + j * std::log1p(-q);
        const double logT1 = logAbsBinomial + j * std::log(q) + i * std::log1p(-q);
        const double logE0 = std::log(0.5) + logErfc((i - z0) / (std::sqrt(2.0) * sigma));
        const double logE1 = std::log(0.5) + logErfc((z0 - j) / (std::sqrt(2.0) * sigma));
        const double logS0 = logT0 + (double(i) * i - i) / (2 * sigma * sigma) + logE0;
        const double logS1 = logT1 + (j * j - j) / (2 * sigma * sigma) + logE1;
        if (sign > 0) logA0 = logAdd(logA0, logS0), logA1 = logAdd(logA1, logS1);
        else logA0 = logSub(logA0, logS0), logA1 = logSub(logA1, logS1);
        if (std::max(logS0, logS1) < -30) break;
        // binom(α, i + 1) = binom(α, i) · (α − i) / (i + 1)
        logAbsBinomial += std::log(std::abs(alpha - i)) - std::log(i + 1.0);
        if (alpha - i < 0) sign = -sign;
    }
    return logAdd(logA0, logA1);
}

}  // namespace

const QList<double>& orders() {
    static const QList<double> grid = [] {
        QList<double> o;
        for (int x = 1; x <= 100; ++x) o << 1 + x / 10.0;
        for (int a = 12; a <= 63; ++a) o << a;
        return o;
    }();
    return grid;
}

double rdpOfGaussian(double q, double sigma, double alpha) {
    if (q <= 0) return 0;
    if (sigma <= 0) return kInf;
    if (q >= 1) return alpha / (2 * sigma * sigma);
    const bool integer = alpha == std::floor(alpha);
    return (integer ? logAInteger(q, sigma, int(alpha)) : logAFractional(q, sigma, alpha)) / (alpha - 1);
}

double epsilon(double q, double sigma, qint64 uses, double delta, const QList<double>& over) {
    if (uses <= 0) return 0;
    double best = kInf;
    for (double alpha : over) best = std::min(best, uses * rdpOfGaussian(q, sigma, alpha) + std::log(1 / delta) / (alpha - 1));
    return best;
}

qint64 usesWithin(double q, double sigma, double delta, double target) {
    if (epsilon(q, sigma, 1, delta) > target) return 0;
    qint64 low = 1, high = 2;  // ε grows with the uses: double, then halve the gap
    while (epsilon(q, sigma, high, delta) <= target && high < (qint64(1) << 40)) low = high, high *= 2;
    while (high - low > 1) {
        const qint64 middle = low + (high - low) / 2;
        (epsilon(q, sigma, middle, delta) <= target ? low : high) = middle;
    }
    return low;
}

double noiseFor(double q, qint64 uses, double delta, double target) {
    double low = 0, high = 1000;
    if (epsilon(q, high, uses, delta) > target) return 0;
    while (high - low > 1e-4) {
        const double middle = (low + high) / 2;
        (epsilon(q, middle, uses, delta) <= target ? high : low) = middle;
    }
    return high;
}

}  // namespace hips::privacy
