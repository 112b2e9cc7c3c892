#include "SimNetwork.h"

#include "ModelSlices.h"

#include <ctime>
#include <thread>

namespace hips::sim {

LinkCost acrossLink(const Party& p) {
    if (!p.wan || p.central) return kLan;
    return {p.wan->latencyMs / 1000, p.wan->bandwidthMbps * 1e6 / 8};
}

LinkCost workerLink(const Topology& t, const Node& worker, bool direct) {
    const Party* party = t.party(worker.party);
    if (!direct || !party || party->central) return kLan;
    // Flat: the party's workers share its WAN link, each with its share (WanLinks.cpp).
    LinkCost link = acrossLink(*party);
    if (link.bytesPerS > 0 && party->wan) link.bytesPerS /= double(std::max(1, party->workerCount()));
    return link;
}

int hostCores(const Topology& t, const QString& host) {
    const Host* h = t.host(host);
    const QString address = h ? h->address : QString();
    const bool loopback =
        address.startsWith(QLatin1String("127.")) || address == QLatin1String("::1") || address == QLatin1String("localhost");
    return loopback ? int(std::max(1u, std::thread::hardware_concurrency())) : 0;
}

double threadCpuSeconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) / 1e9;
}

quint64 wireBytes(size_t floats) {
    constexpr quint64 kHeaderBytes = 96;  // a slice's header (48-56 bytes, more in CBOR with a codec's fields) and framing, about
    return quint64(floats) * sizeof(float) + kHeaderBytes * quint64(sliceCount(floats));
}

QCborMap trafficRecord(const TrafficCounter& traffic, qint64 round) {
    return {{QStringLiteral("links"), traffic.toCbor()},
            {QStringLiteral("wire_errors"), 0},
            {QStringLiteral("undeliverable"), 0},
            {QStringLiteral("round"), round}};
}

}  // namespace hips::sim
