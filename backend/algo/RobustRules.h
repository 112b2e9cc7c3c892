#pragma once
// Byzantine-robust aggregation rules (ALGORITHMS.md; Flower's Krum, Multi-Krum, Bulyan, FedMedian,
// FedTrimmedAvg; Pillutla et al.'s RFA for the geometric median). Each holds the round's
// contributions (zero-copy when they come with an owner) and does its whole-vector work in
// finish(). The result stands for the sum the tier would otherwise send: n × the rule's centre of
// the n contributions, so that with honest, equal contributions every rule gives FedAvg's sum.
// A rule treats the contributions as equally weighted points (a sender's claimed sample count is
// itself untrusted), except `mean` and the geometric median, which weigh by samples.
#include "AggregationRule.h"

#include <QStringList>
#include <functional>
#include <vector>

namespace hips {

// A rule's parameter by name (the topology's value or the registry default).
using ParamLookup = std::function<double(const QString& name)>;

class HeldContributionsRule : public AggregationRule {
public:
    void begin(size_t length) override;
    void add(Contribution c) override;
    int contributions() const override { return int(m_inputs.size()); }
    void write(float* out, const float* base, size_t begin, size_t end) const override;
    bool centres() const override { return !codesWorkers(); }  // (Draco's codes decode the tier's sum)
    QCborMap report() const override;
    // A round with too few contributions for the rule's parameters (e.g. Krum needs n > 2f + 2)
    // leaves the model as it was; report() says why ("short_round", with the rule and its bound).
    void finish() override;
    bool shortRound() const override { return !m_short.isEmpty(); }

protected:
    // Fills m_result from m_inputs (n × the centre), and m_selected / m_rejected where it chooses.
    virtual void compute() = 0;
    // n × the mean of the contributions at `indices`.
    void meanOf(const std::vector<int>& indices);

    size_t m_length = 0;
    std::vector<const float*> m_inputs;
    std::vector<double> m_weights;
    QStringList m_from;
    std::vector<std::shared_ptr<const void>> m_owners;
    std::vector<float> m_result;
    QStringList m_selected, m_rejected;
    QString m_short;  // why the last round left the model as it was, if it did
};

// Σ_i w_i x_i / Σ_i w_i × n: FedAvg's sum computed from the individual contributions; the baseline
// that one attacker can move anywhere.
class MeanRule final : public HeldContributionsRule {
public:
    QString name() const override { return QStringLiteral("mean"); }

private:
    void compute() override;
};

// The coordinate-wise median (Yin et al. 2018; Flower's FedMedian).
class MedianRule final : public HeldContributionsRule {
public:
    QString name() const override { return QStringLiteral("median"); }

private:
    void compute() override;
};

// The coordinate-wise mean after dropping the ⌊β·n⌋ smallest and largest values (FedTrimmedAvg).
class TrimmedMeanRule final : public HeldContributionsRule {
public:
    explicit TrimmedMeanRule(double beta) : m_beta(beta) {}
    QString name() const override { return QStringLiteral("trimmed_mean"); }

private:
    void compute() override;
    double m_beta;  // in [0, 0.5): at least one value of each coordinate stays
};

// Krum (Blanchard et al. 2017): the contribution whose n − f − 2 nearest others are closest
// (sum of squared distances); Multi-Krum: the mean of the m best-scored (m = 0: n − f).
class KrumRule final : public HeldContributionsRule {
public:
    KrumRule(int f, int m, bool multi) : m_f(f), m_m(m), m_multi(multi) {}
    QString name() const override { return m_multi ? QStringLiteral("multi_krum") : QStringLiteral("krum"); }

private:
    void compute() override;
    int minimumContributions() const override { return 2 * m_f + 3; }
    bool comparesWholeUpdates() const override { return true; }
    QString minimumReason() const override;
    int m_f, m_m;
    bool m_multi;
};

// Bulyan (El Mhamdi et al. 2018): θ = n − 2f contributions chosen by Krum one at a time, then per
// coordinate the mean of the θ − 2f values closest to their median. Needs n ≥ 4f + 3.
class BulyanRule final : public HeldContributionsRule {
public:
    explicit BulyanRule(int f) : m_f(f) {}
    QString name() const override { return QStringLiteral("bulyan"); }

private:
    void compute() override;
    int minimumContributions() const override { return 4 * m_f + 3; }
    bool comparesWholeUpdates() const override { return true; }
    QString minimumReason() const override;
    int m_f;
};

// The geometric median by smoothed Weiszfeld iterations (Pillutla et al., RFA):
// z ← Σ β_i x_i / Σ β_i with β_i = 1 / max(ν, ‖x_i − z‖), from the mean, until the step is below
// `tolerance` × ‖z‖ or after `maxIterations`. RFA weighs each β_i by the sender's sample count;
// here every contribution counts once, since a count is the sender's claim, not the server's.
class GeometricMedianRule final : public HeldContributionsRule {
public:
    GeometricMedianRule(double tolerance, int maxIterations, double nu)
        : m_tolerance(tolerance), m_maxIterations(maxIterations), m_nu(nu) {}
    QString name() const override { return QStringLiteral("geometric_median"); }
    bool comparesWholeUpdates() const override { return true; }
    int iterations() const { return m_iterations; }

private:
    void compute() override;
    QCborMap report() const override;
    double m_tolerance;
    int m_maxIterations;
    double m_nu;
    int m_iterations = 0;
};

// Draco's repetition code (DracoCodes.h): contributions in groups of r, in the senders' order; each
// group's exact majority wins and stands for its r members. A group without one adds nothing and
// is reported.
class DracoRepetitionRule final : public HeldContributionsRule {
public:
    explicit DracoRepetitionRule(int r) : m_r(r) {}
    QString name() const override { return QStringLiteral("draco_repetition"); }
    bool codesWorkers() const override { return true; }
    int minimumContributions() const override { return m_r; }
    QString minimumReason() const override { return QStringLiteral("one group of draco_r %1").arg(m_r); }

private:
    void compute() override;
    QCborMap report() const override;
    int m_r;
    int m_undecided = 0;
};

// Draco's cyclic code (DracoCyclicCode): the n contributions, in the senders' order, are the code's
// rows; the exact adversary-free sum is decoded, and the rows found in error are rejected.
class DracoCyclicRule final : public HeldContributionsRule {
public:
    explicit DracoCyclicRule(int s) : m_s(s) {}
    QString name() const override { return QStringLiteral("draco_cyclic"); }
    bool codesWorkers() const override { return true; }
    int minimumContributions() const override { return 2 * m_s + 1; }
    QString minimumReason() const override { return QStringLiteral("n >= 2s + 1 with draco_s %1; 2s + 2 if n is even").arg(m_s); }

private:
    void compute() override;
    QCborMap report() const override;
    int m_s;
    QString m_undecodable;  // why the last round could not be decoded, if it could not
};

// Node ids in their natural order: "party1/worker2" before "party1/worker10".
bool naturalLess(const QString& a, const QString& b);

// Squared Euclidean distances between every pair of the n vectors of `length` floats, row-major
// n × n, computed in cache-sized blocks of coordinates (each vector read once).
std::vector<double> pairwiseSquaredDistances(const std::vector<const float*>& vectors, size_t length);
// Krum's score of each of `candidates` among themselves: the sum of its `closest` smallest
// distances to the others.
std::vector<double> krumScores(const std::vector<double>& distances, int n, const std::vector<int>& candidates, int closest);

}  // namespace hips
