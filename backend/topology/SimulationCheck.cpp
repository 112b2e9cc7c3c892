#include "SimulationCheck.h"

#include "JsonFields.h"
#include "ModeRegistry.h"

#include <QCoreApplication>
#include <QDir>

namespace hips {

namespace {

// party_compression fp16 where it is only the collectives' half precision (the simulator runs the
// deployed Collective): no party server has links inside its party to compress.
bool halvesOnlyInCollectives(const Topology& t) {
    if (t.training.partyCompression != QLatin1String("fp16") || t.training.flat()) return false;
    for (const Party& p : t.parties)
        if (!p.central && !p.workers.isEmpty() && !p.collective()) return false;
    return true;
}

}  // namespace

QString simulationRefusal(const Topology& t) {
    const TrainingSettings& s = t.training;
    const ModePolicy policy = ModeRegistry::policy(s.mode);
    if (policy.party != TierSync::Rounds || policy.global != TierSync::Rounds || policy.hierarchicalFrequency || policy.standalone)
        return QStringLiteral(
                   "hips simulate runs the modes that aggregate in rounds at both tiers (fedavg, ssgd, esync); mode %1 "
                   "runs deployed: use hips run")
            .arg(s.mode);
    if (policy.stateService && !s.continuesThroughFailures())
        for (const Party& p : t.parties)
            for (const WorkerGroup& g : p.workers)
                if (!g.availability.isEmpty())
                    return QStringLiteral(
                               "party %1: esync's state service waits for every worker under fault_policy fail, so an "
                               "absent one would hold the round forever; set fault_policy continue (the service then "
                               "leaves out a worker silent for heartbeat_timeout_s), or remove availability")
                        .arg(p.id);
    if (s.secureAggregation)
        return QStringLiteral("hips simulate does not mask the parties' sums; turn secure_aggregation off to simulate, or use hips run");
    if (s.compression != QLatin1String("none") || (s.partyCompression != QLatin1String("none") && !halvesOnlyInCollectives(t)))
        return QStringLiteral(
            "hips simulate sends floats as they are (but for party_compression fp16 where every party with workers sums by a "
            "collective transport); set compression and party_compression to none, or use hips run");
    if (s.resumeRound > 0) return QStringLiteral("a simulated run keeps no checkpoints to resume from; simulate it again from the start");
    return {};
}

// (TopologyReader.cpp's readWorkers calls it for each worker group.)
void readSimulationFields(JsonFields& f, WorkerGroup& g) {
    const QJsonValue profile = f.value(QStringLiteral("device_profile"));
    if (profile.isDouble()) g.stepSeconds = f.number("device_profile", 0, 1e-6, 3600);
    else if (!profile.isUndefined() && profile.toString() != QLatin1String("measured"))
        f.issue("device_profile", QCoreApplication::translate("TopologyCheck",
                                                              "takes the seconds one local step costs on the simulated "
                                                              "device (e.g. 0.02), or \"measured\""));
    const QJsonValue availability = f.value(QStringLiteral("availability"));
    bool spellsNumber = false;  // a string the simulator would read as a probability
    const double spelled = availability.toString().toDouble(&spellsNumber);
    if (availability.isDouble()) {
        const double p = f.number("availability", 1, 1e-6, 1);
        g.availability = p < 1 ? QString::number(p, 'g', 17) : QString();
    } else if (availability.isString() && spellsNumber) {  // held to a number's range: "2" or "nan" is no trace's path
        if (!(spelled >= 1e-6 && spelled <= 1))
            f.issue("availability", QCoreApplication::translate("TopologyCheck",
                                                                "%1 is read as a probability per round, which must be "
                                                                "from 0.000001 to 1 (a trace file named so: its absolute path)")
                                        .arg(availability.toString()));
        else g.availability = spelled < 1 ? QString::number(spelled, 'g', 17) : QString();
    } else if (availability.isString() && !availability.toString().isEmpty()) {
        g.availability = availability.toString() == QLatin1String("always") ? QString() : availability.toString();
        if (!g.availability.isEmpty() && !QDir::isAbsolutePath(g.availability))
            f.issue("availability", QCoreApplication::translate("TopologyCheck",
                                                                "the trace file '%1' is a relative path, which would be "
                                                                "read from wherever hips is started; write its absolute path")
                                        .arg(g.availability));
    } else if (!availability.isUndefined()) {
        f.issue("availability", QCoreApplication::translate("TopologyCheck",
                                                            "takes \"always\", a probability per round (e.g. 0.8), or "
                                                            "the path of a trace file of on-intervals"));
    }
}

}  // namespace hips
