#pragma once
// The privacy accountant: Rényi differential privacy of the (subsampled) Gaussian mechanism,
// composed over its uses and converted to (ε, δ). The orders are Opacus' default grid, the
// subsampled Gaussian's RDP is Mironov, Talwar and Zhang's (2019) computation, as Opacus and
// TensorFlow Privacy compute it, and the conversion is Mironov's (2017):
//   ε = min over α of  RDP(α) + log(1/δ) / (α − 1).
// Pure arithmetic, so the controller, the report and the tests share one definition.
#include <QList>

namespace hips::privacy {

// 1 + x/10 for x = 1…100, then 12…63 (Opacus' DEFAULT_ALPHAS, with 11.0).
const QList<double>& orders();

// RDP of order α of one use of the Gaussian mechanism with noise multiplier σ (noise standard
// deviation σ·sensitivity) on a Poisson subsample of rate q (1: every record, every time).
double rdpOfGaussian(double q, double sigma, double alpha);

// ε after `uses` uses of that mechanism, for δ, over the orders given (default: orders()).
double epsilon(double q, double sigma, qint64 uses, double delta, const QList<double>& over = orders());

// The most uses that keep ε within `target` (0 when not even one does).
qint64 usesWithin(double q, double sigma, double delta, double target);

// The smallest noise multiplier (to 1e-4) that keeps `uses` uses within ε `target`; 0 when none
// up to 1000 does.
double noiseFor(double q, qint64 uses, double delta, double target);

}  // namespace hips::privacy
