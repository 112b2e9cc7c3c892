#pragma once
// Some of a collective's ranks as a collective of their own: what a party's live workers sum
// over once a member is lost (fault_policy continue). Rank i here is the i-th of `members` (the
// underlying ranks, ascending), so every member that agrees on the set agrees on the schedule.
#include "Collective.h"

#include <algorithm>
#include <vector>

namespace hips {

class PeerSubset final : public CollectivePeers {
public:
    // `members` must hold peers.rank(); `peers` must outlive this.
    PeerSubset(CollectivePeers& peers, std::vector<int> members) : m_peers(peers), m_members(std::move(members)) {
        std::sort(m_members.begin(), m_members.end());
        m_rank = int(std::find(m_members.begin(), m_members.end(), peers.rank()) - m_members.begin());
    }

    int rank() const override { return m_rank; }
    int size() const override { return int(m_members.size()); }
    std::string nameOf(int r) const override { return m_peers.nameOf(m_members.at(size_t(r))); }
    void send(int to, quint64 tag, const float* data, size_t count) override { m_peers.send(under(to), tag, data, count); }
    void receive(int from, quint64 tag, float* out, size_t count, bool add) override { m_peers.receive(under(from), tag, out, count, add); }
    void sendHalf(int to, quint64 tag, const quint16* data, size_t count) override { m_peers.sendHalf(under(to), tag, data, count); }
    void receiveHalf(int from, quint64 tag, float* out, size_t count, bool add) override {
        m_peers.receiveHalf(under(from), tag, out, count, add);
    }

private:
    int under(int r) const { return m_members.at(size_t(r)); }

    CollectivePeers& m_peers;
    std::vector<int> m_members;
    int m_rank = 0;
};

}  // namespace hips
