#include "EsyncState.h"

#include <QCborArray>
#include <algorithm>

namespace hips {

void EsyncState::init(int workers, double epsilon) {
    m_records.assign(size_t(workers), Record{});
    m_epsilon = epsilon;
    m_round = 1;
}

bool EsyncState::apply(int r, int k, double c, double te, double now) {
    Record& me = m_records.at(size_t(r));
    me.k = k;
    me.c = c;
    me.te = te;
    me.known = true;
    me.heard = now;
    me.leftOut = false;
    if (k == 0) return false;
    // Its round closed without it (it stalled past the others' deadline): it stops at once, pushes
    // late and takes the newest model. Told to go on, it stayed the slowest a round behind, and
    // every worker was told to go on too, for ever.
    if (me.t >= 1 && me.t < m_round) return me.ready = true;
    if (m_mostSteps > 0 && k >= m_mostSteps) return me.ready = true;
    leaveOutTheSilent(now);
    size_t slowest = m_records.size();  // (r itself is never left out: it has just spoken)
    for (size_t i = 0; i < m_records.size(); ++i) {
        if (m_records[i].leftOut) continue;
        if (!m_records[i].known) return false;  // it may be the slowest
        if (slowest == m_records.size() || m_records[i].c > m_records[slowest].c) slowest = i;
    }
    const Record& s = m_records[slowest];
    if (s.t < m_round) return false;
    const double rest = s.c - (now - s.te);
    const double epsilon = m_epsilon < 0 ? s.c * kAutoEpsilonShare : m_epsilon;
    if (size_t(r) == slowest || s.ready || me.c + epsilon > rest) {
        me.ready = true;
        return true;
    }
    return false;
}

bool EsyncState::mayName(int r, qint64 t, qint64 lastRound) const {
    if (t < 1 || t > lastRound) return false;
    if (!m_named || m_records.size() == 1) return true;
    qint64 furthest = 0;
    for (size_t i = 0; i < m_records.size(); ++i)
        if (i != size_t(r)) furthest = std::max(furthest, m_records[i].t);
    return t <= (furthest > 0 ? furthest + 1 : m_round);  // (none named but it: no further than it went)
}

void EsyncState::reset(int r, qint64 t, double te) {
    m_named = true;
    if (t > m_round) {
        m_round = t;
        m_roundStart = te;
        for (Record& rec : m_records) {
            rec.k = 0;
            rec.ready = false;
        }
    }
    Record& me = m_records.at(size_t(r));
    if (t > me.t) {  // (a straggler's late stop, in the round that closed without it, is not this one's)
        me.ready = false;
        me.k = 0;
    }
    me.t = t;
    me.te = te;
    me.heard = te;
    me.leftOut = false;
}

void EsyncState::leaveOutTheSilent(double now) {
    if (m_silenceLimit <= 0) return;
    for (Record& r : m_records) {
        const double silent = now - std::max(r.heard, m_roundStart);  // (the service's clock starts at 0)
        if (silent > std::max(m_silenceLimit, 3 * r.c)) r.leftOut = true;
    }
}

QCborMap EsyncState::status() const {
    QCborArray records;
    for (const Record& r : m_records)
        records.append(QCborMap{{QStringLiteral("k"), r.k},
                                {QStringLiteral("c"), r.c},
                                {QStringLiteral("te"), r.te},
                                {QStringLiteral("ready"), r.ready},
                                {QStringLiteral("t"), r.t}});
    return {{QStringLiteral("num_workers"), qint64(m_records.size())},
            {QStringLiteral("t"), m_round},
            {QStringLiteral("epsilon"), m_epsilon},
            {QStringLiteral("records"), records}};
}

}  // namespace hips
