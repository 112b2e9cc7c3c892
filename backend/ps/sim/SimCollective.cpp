#include "SimCollective.h"

#include "ModelSlices.h"
#include "RoleError.h"
#include "ThreadPeers.h"

#include <algorithm>
#include <thread>

namespace hips::sim {

std::pair<std::unique_ptr<Collective>, std::unique_ptr<Collective>> partyCollectives(const Party& p, const TrainingSettings& s) {
    const auto params = [&p](const QString& name) { return p.transportParam(name); };
    std::pair<std::unique_ptr<Collective>, std::unique_ptr<Collective>> out{CollectiveRegistry::create(p.transport, params), nullptr};
    if (s.partyCompression == QLatin1String("fp16")) {
        out.first->setHalfPrecision(true);
        out.second = CollectiveRegistry::create(p.transport, params);
    }
    return out;
}

CollectiveSum sumCollectively(Collective& collective, Collective* weightsApart, const std::vector<const float*>& updates,
                              const std::vector<double>& weights, size_t floats, size_t members, qint64 round, const LinkCost& lan,
                              float unreached) {
    const quint32 sequence = quint32(round * 3);
    collective.setRound(round);
    if (weightsApart) weightsApart->setRound(round);
    const int n = int(updates.size());
    const size_t ranksCount = size_t(n);
    std::vector<std::vector<float>> data(ranksCount), along(ranksCount);  // along: the weight, a count per slice
    for (int r = 0; r < n; ++r) {
        data[size_t(r)].assign(updates[size_t(r)], updates[size_t(r)] + floats);
        along[size_t(r)] = keepFiniteSlices(data[size_t(r)].data(), floats);  // (as PartyCollective's members do)
        along[size_t(r)].insert(along[size_t(r)].begin(), float(weights[size_t(r)]));
        if (!weightsApart) data[size_t(r)].insert(data[size_t(r)].end(), along[size_t(r)].begin(), along[size_t(r)].end());
    }
    ThreadMesh mesh(n, std::chrono::seconds(600));
    std::vector<std::string> errors(ranksCount);
    std::vector<std::thread> ranks;
    for (int r = 0; r < n; ++r)
        ranks.emplace_back([&, r] {
            try {
                const auto peers = mesh.peersOf(r);
                collective.allreduce(data[size_t(r)].data(), data[size_t(r)].size(), *peers, sequence);
                if (weightsApart) weightsApart->allreduce(along[size_t(r)].data(), along[size_t(r)].size(), *peers, sequence + 2);
            } catch (const std::exception& e) {
                errors[size_t(r)] = e.what();
            }
        });
    for (std::thread& t : ranks) t.join();
    for (const std::string& e : errors)
        if (!e.empty()) throw RoleError("the party's collective: " + e);
    CollectiveSum out;
    if (!weightsApart) std::copy(data[0].begin() + qsizetype(floats), data[0].end(), along[0].begin());
    data[0].resize(floats);
    standForEveryMember(data[0].data(), floats, along[0].data() + 1, members, unreached);
    out.weight = along[0].front();
    out.sum = std::make_shared<std::vector<float>>(std::move(data[0]));
    out.bytes.assign(size_t(n), std::vector<quint64>(size_t(n), 0));
    quint64 busiest = 0;
    for (int from = 0; from < n; ++from) {
        quint64 sent = 0;
        for (int to = 0; to < n; ++to) sent += out.bytes[size_t(from)][size_t(to)] = mesh.bytesSent(from, to);
        busiest = std::max(busiest, sent);
    }
    out.seconds = lan.latencyS * collective.sequentialSteps(n) + (lan.bytesPerS > 0 ? double(busiest) / lan.bytesPerS : 0);
    return out;
}

}  // namespace hips::sim
