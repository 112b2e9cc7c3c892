#include "WanLinks.h"

#include "TrafficCounter.h"

#include <algorithm>

namespace hips {

std::shared_ptr<LinkShaper> makeWanShaper(const RoleContext& ctx) {
    const Topology& t = ctx.topology;
    if (std::none_of(t.parties.begin(), t.parties.end(), [](const Party& p) { return p.wan.has_value(); })) return nullptr;
    const QString own = ctx.node.party;
    // The party's nodes that send across it share its bandwidth, each process with its own share.
    auto crossing = [&t](const Party& p) {
        if (p.collective() && !p.central) return qsizetype(1);  // its lowest-ranked worker pushes the party's sum
        return std::max<qsizetype>(1, t.training.flat() || p.central ? p.workerCount() : p.servers.size());
    };
    auto shape = [](const QString& link, const WanLink& wan, qsizetype senders) {
        return LinkShape{link, wan.bandwidthMbps * 1e6 / 8 / double(senders), std::chrono::microseconds(qint64(wan.latencyMs * 1000))};
    };
    const Party* mine = t.party(own);
    const qsizetype centralSenders = std::max<qsizetype>(1, [&t] {
        for (const Party& p : t.parties)
            if (p.central) return p.servers.size();
        return qsizetype(1);
    }());
    return std::make_shared<LinkShaper>([=, &t](const QString& peer) -> std::optional<LinkShape> {
        const QString party = partyOf(peer);
        if (party == own) return std::nullopt;
        if (mine && !mine->central && mine->wan) return shape(QStringLiteral("wan:") + own, *mine->wan, crossing(*mine));
        const Party* theirs = t.party(party);
        if (mine && mine->central && theirs && theirs->wan) return shape(QStringLiteral("wan:") + party, *theirs->wan, centralSenders);
        return std::nullopt;
    });
}

}  // namespace hips
