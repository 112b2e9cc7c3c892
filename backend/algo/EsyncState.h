#pragma once
// ESync's state service rule (ALGORITHMS.md, "ESync"; Li et al., ESync, ICPP 2019): fast devices
// do as many local iterations as fit while the slowest device does one, then all aggregate.
// Kept per worker r: k (local iterations this round), c (seconds per iteration), te (when it
// began this round), ready, t (its round).
//   init(n, ε)         resets; the round t = 1.
//   apply(r, k, c, te) stores k, c, te; k == 0: not ready. r's own round closed without it (its
//                      t is behind the service's): ready. slowest = argmax c; if the slowest is
//                      not yet in round t: not ready. rest = c_slowest − (now − te_slowest). If r is
//                      the slowest, or the slowest is ready, or c_r + ε > rest: r is ready.
//   ε < 0 (the default): ε = c_slowest / 10, from the step times as measured. ESync's fixed 0.5 s
//   margin suits its second-long steps; on millisecond steps it exceeds the slowest's whole step,
//   so every worker was ready after one step and ESync lost to SSGD.
//   reset(r, t, te)    a new round t clears k and ready of every worker; r's round and te are set.
// One addition: a worker not heard from yet may be the slowest, so until every worker has
// reported a c, nobody is ready (it matters only before the first round).
// Under fault_policy continue (setSilenceLimit): a worker silent in this round longer than the
// limit, or than three of its own steps if those are longer, is left out until it speaks again,
// so a dead one is waited for once, not every round; nor is one never heard from once the
// service has run that long (a restarted service learns the workers again from their next
// steps). Silence counts from the round's start: the wait for the model between two rounds is
// no one's.
#include <QCborMap>
#include <vector>

namespace hips {

class EsyncState {
public:
    struct Record {
        int k = 0;
        double c = 0, te = 0;
        bool ready = false, known = false;
        qint64 t = 0;
        double heard = 0;  // when it last spoke
        bool leftOut = false;  // silent too long (setSilenceLimit), until it speaks
    };

    static constexpr double kAutoEpsilonShare = 0.1;  // ε < 0: this share of the slowest's step time

    void init(int workers, double epsilon);
    void setSilenceLimit(double seconds) { m_silenceLimit = seconds; }  // 0 (the default): wait for every worker
    // A worker is ready after this many steps of a round whatever the others (0: no limit): one
    // that claims to be the slowest (a step of a day) and never steps, or never names the round,
    // kept every other worker stepping for ever.
    void setMostSteps(int steps) { m_mostSteps = steps; }
    bool apply(int r, int k, double c, double te, double now);
    void reset(int r, qint64 t, double te);
    // Whether worker r may name round t (a reset, or an apply's round) in a run of `lastRound`:
    // one of the run's, and at most one past the furthest round another worker named (every
    // worker pushes each round, so none is two ahead of all the others). The first worker heard
    // (where a restarted service takes the run up) names its round alone, and so does a run's only
    // worker. A worker that named round after round could otherwise take the service to the
    // run's last round, whose steps no one else's apply ever reached: the run hung.
    bool mayName(int r, qint64 t, qint64 lastRound) const;
    QCborMap status() const;  // num_workers, t, epsilon, records
    const Record& record(int r) const { return m_records.at(size_t(r)); }
    qint64 round() const { return m_round; }

private:
    void leaveOutTheSilent(double now);

    std::vector<Record> m_records;
    double m_epsilon = 0.5;
    double m_silenceLimit = 0;
    int m_mostSteps = 0;
    double m_roundStart = 0;  // when the first worker began round m_round
    qint64 m_round = 1;
    bool m_named = false;  // a worker named a round (reset)
};

}  // namespace hips
