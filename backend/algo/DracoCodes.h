#pragma once
// Draco's codes (Chen et al. 2018; ALGORITHMS.md): redundant updates from which a server recovers
// exactly the sum an adversary-free round would have given, whatever s of its workers send.
//
// Repetition: groups of r = 2s + 1 workers train on the same data with the same seeds, so honest
// members send bit-identical updates; the majority of each group (Boyer–Moore, exact equality)
// wins, and r × the winners' sum stands for every worker's.
//
// Cyclic: n workers, n data partitions; worker i trains on partitions i … i + L (mod n) and sends
// Σ_t c_t · g_{i+t}, where c are the (real) coefficients of g(x) = Π_{k∈K} (x − ω^k), ω = e^{2πi/n},
// over L consecutive frequencies K symmetric about n/2 (L = 2s for odd n, 2s + 1 for even n, so
// that g is real and 0 ∉ K). The pushes then form, coordinate by coordinate, a codeword of the
// cyclic code whose spectrum vanishes on K (minimum distance > 2s) plus at most s error rows. The
// server projects every row on a random vector, computes the L syndromes of that one column,
// finds the error locator by Peterson's method (the ν × ν Hankel system, for the fewest rows that
// explain the syndromes), and decodes the exact sum: the pushes' sum is g(1) × the sum wanted plus
// the errors' sum, and the errors' values on the rows found follow from the syndromes by least
// squares, so Σ_j g_j = Σ_i c_i · push_i with one weight per row (0 on the rows in error).
#include <QString>
#include <complex>
#include <cstddef>
#include <vector>

namespace hips {

// The index of a member whose bytes equal those of more than half the members, or −1.
int exactMajority(const std::vector<const float*>& members, size_t length);

// A worker's push under the cyclic code, Σ_t c_t · g_{i+t}, summed in double and rounded once.
// Near convergence the parts' updates nearly cancel: a float sum's rounding, relative to the parts,
// is then large against the push, relative to which the decoder's tolerance is, and honest rounds
// were found to be no codeword.
class CodedSum {
public:
    explicit CodedSum(size_t length) : m_sum(length, 0.0) {}
    void add(double coefficient, const float* part);
    void write(float* out) const;

private:
    std::vector<double> m_sum;
};

class DracoCyclicCode {
public:
    // Throws std::invalid_argument when n is too small for s (n ≥ 2s + 1, odd; n ≥ 2s + 2, even).
    DracoCyclicCode(int workers, int adversaries);

    // How well the code tells its worst-placed rows in error apart: the smallest singular value of
    // its syndromes' columns (unit length) for 2s neighbouring rows, which any two sets of at most
    // s rows in error span. Neighbouring rows' columns are nearly parallel, more so the larger n is
    // against s; below kLeastSeparation, the rounding of float pushes lets a wrong set of rows
    // explain the syndromes, and a round decodes wrong with no sign of it. Measured with liars at
    // neighbouring ranks (errors 100 to 100,000 times the honest parts), 10 to 32 rounds a case:
    // at 9.6e-8 (n = 70, s = 4), 1.6e-8 and 1.4e-8, 2 or 3 rounds in 10 or 12 were off by
    // 14-84 %; at 1.5e-7 and above, none (at most 1e-5). This bound keeps a tenfold margin.
    static constexpr double kLeastSeparation = 1e-6;
    double separation() const;
    // The most workers (up to kMostWorkers) that every code for `adversaries` up to them keeps
    // at least kLeastSeparation: 334 for s = 2, 72 for 3, 42 for 4. (A larger even n may pass
    // alone, one frequency more than the odd below it; a bound that holds for every size below it
    // is one a user can plan by.)
    static int mostWorkers(int adversaries);
    static constexpr int kMostWorkers = 1000;

    int workers() const { return m_n; }
    int adversaries() const { return m_s; }
    int window() const { return int(m_g.size()); }  // partitions each worker trains on: L + 1
    // Worker i's push: coefficient(t) × the update of partition (i + t) mod n, t < window().
    double coefficient(int t) const { return m_g[size_t(t)]; }
    int partition(int worker, int t) const { return (worker + t) % m_n; }

    // Σ_j g_j from the n pushes (row i: worker i's, `length` floats) into `sum`; `suspects` gets
    // the rows found to be in error. False (and `error`) when no consistent decoding exists: more
    // than s rows in error.
    bool decode(const std::vector<const float*>& rows, size_t length, float* sum, std::vector<int>* suspects, QString* error) const;
    // As decode(), with the rows in error found on `projection` (`length` floats) rather than on one
    // drawn afresh: what a given projection does (tests).
    bool decodeOn(const std::vector<float>& projection, const std::vector<const float*>& rows, size_t length, float* sum,
                  std::vector<int>* suspects, QString* error) const;

private:
    // (`syndromeRatio`: the largest syndrome over the projected rows' size.)
    std::vector<int> locateErrors(const std::vector<const float*>& rows, size_t length, const std::vector<float>& projection,
                                  double* syndromeRatio) const;
    bool explains(const std::vector<std::complex<double>>& syndrome, const std::vector<int>& rows, double tolerance) const;
    bool sumWeights(const std::vector<int>& rowsInError, std::vector<double>* weights) const;

    int m_n, m_s, m_first;  // n workers, s adversaries, the first frequency of K
    std::vector<double> m_g;  // g's coefficients, g_0 … g_L
};

}  // namespace hips
