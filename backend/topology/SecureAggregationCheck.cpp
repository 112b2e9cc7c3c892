#include "SecureAggregationCheck.h"

#include "AggregatorRegistry.h"
#include "ModeRegistry.h"

#include <QCoreApplication>

namespace hips {

namespace {

int partiesWithServers(const Topology& t) {
    int n = 0;
    for (const Party& p : t.parties) n += !p.central && !p.servers.isEmpty();
    return n;
}

}  // namespace

void checkSecureAggregation(const Topology& t, TopologyIssues* issues) {
    const TrainingSettings& s = t.training;
    if (!s.secureAggregation) return;
    const auto add = [issues](const char* path, const QString& message) { issues->append({QString::fromLatin1(path), message}); };
    const int parties = partiesWithServers(t);
    if (s.flat() || parties < 2) {
        add("$.training.secure_aggregation",
            QCoreApplication::translate("TopologyCheck",
                                        "secure aggregation hides each party server's sum among the others', and this run has "
                                        "%1: use hierarchy two_layer with at least 2 parties")
                .arg(s.flat() ? QCoreApplication::translate("TopologyCheck", "no party servers (hierarchy flat)")
                              : QCoreApplication::translate("TopologyCheck", "%n party server(s)", nullptr, parties)));
        return;
    }
    if (const int threshold = s.secureThreshold(parties); threshold > parties - 1)
        add("$.training.secure_aggregation_threshold",
            QCoreApplication::translate(
                "TopologyCheck",
                "a dropped party's masks are recovered from the shares the other parties hold, and there are %1 of them: the "
                "threshold is at most %1, not %2")
                .arg(parties - 1)
                .arg(threshold));
    if (const StrategyInfo* mode = ModeRegistry::find(s.mode)) {
        const ModePolicy p = ModeRegistry::policy(s.mode);
        if (p.party != TierSync::Rounds || p.global != TierSync::Rounds || p.hierarchicalFrequency || p.stateService || p.standalone)
            add("$.training.mode", QCoreApplication::translate(
                                       "TopologyCheck",
                                       "secure aggregation masks one sum per party and round, and mode %1 pushes otherwise: use fedavg "
                                       "or ssgd")
                                       .arg(mode->name));
    }
    const auto rule = AggregatorRegistry::create(s.aggregation);
    if (rule && !rule->foldsOnArrival())
        add("$.training.aggregation",
            QCoreApplication::translate("TopologyCheck",
                                        "aggregation %1 needs each party's own update, and secure aggregation shows the global server "
                                        "only their sum: use fedavg")
                .arg(s.aggregation));
    if (s.compression != QLatin1String("none"))
        add("$.training.compression",
            QCoreApplication::translate("TopologyCheck",
                                        "masked sums look random and do not compress: set compression to none (party_compression "
                                        "still compresses inside each party)"));
    if (s.param(QStringLiteral("quorum")) > 0)
        add("$.training.quorum",
            QCoreApplication::translate("TopologyCheck",
                                        "a quorum closes a round without some parties, whose masks would then have to be recovered "
                                        "every round: remove quorum"));
    if (s.continuesThroughFailures() && s.param(QStringLiteral("round_timeout_s")) > 0)
        add("$.training.round_timeout_s",
            QCoreApplication::translate("TopologyCheck",
                                        "a party past the deadline is alive, and recovering its masks would let its late push "
                                        "be read: set round_timeout_s to 0 (a party that is down is still recovered)"));
    if (s.trainCentralWorkers)
        add("$.training.train_central_workers",
            QCoreApplication::translate("TopologyCheck",
                                        "the central workers push to the global server outside any party's sum: set "
                                        "train_central_workers to false"));
    for (const Party& p : t.parties)
        for (const ListeningRole& server : p.servers)
            if (p.central && !server.standbyHost.isEmpty())
                add("$.parties",
                    QCoreApplication::translate(
                        "TopologyCheck", "a standby global server would start without the parties' keys: remove standby_host from %1")
                        .arg(p.id));
}

}  // namespace hips
