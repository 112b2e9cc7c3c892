#include "TopologyWriter.h"

#include "PartyLauncher.h"

#include "DataFields.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace hips {

namespace {

QJsonObject listening(const ListeningRole& r) {
    QJsonObject o{{"host", r.host}, {"port", r.port}, {"device", r.device}};
    if (!r.standbyHost.isEmpty()) o.insert("standby_host", r.standbyHost);
    return o;
}

QJsonObject privacy(const PrivacySettings& p) {
    QJsonObject o{{"where", p.where}, {"clip_norm", p.clipNorm}, {"delta", p.delta}, {"sampling", p.sampling}};
    o.insert("noise_multiplier", p.autoNoise ? QJsonValue(QStringLiteral("auto")) : QJsonValue(p.noiseMultiplier));
    if (p.targetEpsilon) o.insert("target_epsilon", *p.targetEpsilon);
    if (!p.rerunRounds.isEmpty()) {
        QJsonArray ranges;
        for (const auto& [first, last] : p.rerunRounds) ranges.append(QJsonArray{first, last});
        o.insert("rerun_rounds", ranges);
    }
    return o;
}

QJsonObject adversary(const AdversarySpec& a) {
    QJsonObject o{{"kind", a.kind}};
    if (AdversaryRegistry::find(a.kind) && AdversaryRegistry::find(a.kind)->param(QStringLiteral("strength")))
        o.insert("strength", a.strength);
    if (a.count > 0) o.insert("count", a.count);
    return o;
}

QJsonObject group(const WorkerGroup& g, bool withCount) {
    QJsonObject o{{"host", g.host}, {"device", g.device}};
    if (withCount) o.insert("count", g.count);
    if (withCount && g.slowdown != 1) o.insert("slowdown", g.slowdown);
    if (withCount && g.adversary) o.insert("adversary", adversary(*g.adversary));
    if (!withCount && !g.standbyHost.isEmpty()) o.insert("standby_host", g.standbyHost);  // (the master)
    if (withCount && g.stepSeconds > 0) o.insert("device_profile", g.stepSeconds);
    if (withCount && !g.availability.isEmpty()) {  // a probability stays a number
        bool number = false;
        const double p = g.availability.toDouble(&number);
        o.insert("availability", number ? QJsonValue(p) : QJsonValue(g.availability));
    }
    return o;
}

QJsonObject party(const Party& p) {
    QJsonObject roles;
    if (p.scheduler) roles.insert(p.central ? "global_scheduler" : "scheduler", listening(*p.scheduler));
    QJsonArray servers;
    for (const ListeningRole& s : p.servers) servers.append(listening(s));
    roles.insert(p.central ? "global_servers" : "servers", servers);
    if (p.masterWorker) roles.insert("master_worker", group(*p.masterWorker, false));
    if (p.stateService) roles.insert("state_service", listening(*p.stateService));
    QJsonArray workers;
    for (const WorkerGroup& g : p.workers) workers.append(group(g, true));
    roles.insert("workers", workers);
    QJsonObject o{{"id", p.id}, {"roles", roles}};
    if (p.central) o.insert("central", true);
    if (p.adversary) o.insert("adversary", adversary(*p.adversary));
    if (p.wan) o.insert("wan", QJsonObject{{"bandwidth_mbps", p.wan->bandwidthMbps}, {"latency_ms", p.wan->latencyMs}});
    if (p.data) o.insert("data", dataSourceJson(*p.data));
    if (p.clientsPerRound > 0) o.insert("clients_per_round", p.clientsPerRound);
    if (p.collective()) o.insert("transport", p.transport);
    for (auto it = p.transportParams.begin(); it != p.transportParams.end(); ++it) o.insert(it.key(), it.value());
    if (p.slurm) o.insert("launcher", launcherJson(*p.slurm));
    return o;
}

QJsonObject training(const TrainingSettings& t) {
    QJsonObject o{{"dataset", t.dataset},
                  {"data_dir", t.dataDir},
                  {"partition", t.partition},
                  {"model", modelJson(t)},
                  {"mode", t.mode},
                  {"aggregation", t.aggregation},
                  {"party_aggregation", t.partyAggregation},
                  {"server_optimizer", t.serverOptimizer},
                  {"compression", t.compression},
                  {"party_compression", t.partyCompression},
                  {"rounds", t.rounds},
                  {"local_iters", t.localIters},
                  {"local_epochs", t.localEpochs},
                  {"batch_size", t.batchSize},
                  {"learning_rate", t.learningRate},
                  {"momentum", t.momentum},
                  {"eval_every", t.evalEvery},
                  {"train_central_workers", t.trainCentralWorkers},
                  {"seed", t.seed},
                  {"threads", t.threads},
                  {"synthetic_samples", t.syntheticSamples},
                  {"heartbeat_timeout_s", t.heartbeatTimeoutS},
                  {"reply_timeout_s", t.replyTimeoutS},
                  {"checkpoint_every", t.checkpointEvery}};
    if (t.sliceBound != TrainingSettings().sliceBound) o.insert("slice_bound", t.sliceBound);
    if (t.orphanTimeoutS != TrainingSettings().orphanTimeoutS) o.insert("orphan_timeout_s", t.orphanTimeoutS);
    if (t.agentTimeoutS != TrainingSettings().agentTimeoutS) o.insert("agent_timeout_s", t.agentTimeoutS);
    if (t.faultPolicy != TrainingSettings().faultPolicy) o.insert("fault_policy", t.faultPolicy);
    if (t.resumeRound > 0) o.insert("resume_round", t.resumeRound);
    if (t.proximalMu > 0) o.insert("proximal_mu", t.proximalMu);
    if (t.flat()) o.insert("hierarchy", t.hierarchy);
    if (t.transportSecurity != TrainingSettings().transportSecurity) o.insert("transport_security", t.transportSecurity);
    if (t.trainerProcesses != QLatin1String("auto")) o.insert("trainer_processes", t.trainerProcesses);
    if (t.adversary) o.insert("adversary", adversary(*t.adversary));
    if (t.privacy) o.insert("privacy", privacy(*t.privacy));
    if (t.clientsPerRound > 0) o.insert("clients_per_round", t.clientsPerRound);
    if (t.secureAggregation) o.insert("secure_aggregation", true);
    if (t.secureAggregationThreshold > 0) o.insert("secure_aggregation_threshold", t.secureAggregationThreshold);
    if (t.evaluationData) o.insert("evaluation_data", dataSourceJson(*t.evaluationData));
    if (!t.inputShape.isEmpty()) {
        QJsonArray dims;
        for (int d : t.inputShape) dims.append(d);
        o.insert("input_shape", dims);
    }
    if (t.regression()) {
        o.insert("task", t.task);
        if (t.classes != 1) o.insert("outputs", t.classes);
    } else if (t.classes != TrainingSettings().classes) {
        o.insert("classes", t.classes);
    }
    for (auto it = t.params.begin(); it != t.params.end(); ++it) o.insert(it.key(), *it);
    return o;
}

}  // namespace

QJsonObject TopologyWriter::toJsonObject(const Topology& t) {
    QJsonArray hosts;
    for (const Host& h : t.hosts) {
        QJsonObject o{
            {"id", h.id}, {"address", h.address}, {"ssh_port", h.sshPort}, {"install_dir", h.installDir}, {"agent_port", h.agentPort}};
        if (!h.user.isEmpty()) o.insert("user", h.user);
        if (!h.identityFile.isEmpty()) o.insert("identity_file", h.identityFile);
        if (h.data) o.insert("data", dataSourceJson(*h.data));
        hosts.append(o);
    }
    QJsonArray parties;
    for (const Party& p : t.parties) parties.append(party(p));
    return {{"format", "hips-topology"}, {"version", Topology::kFormatVersion}, {"name", t.name},    {"hosts", hosts},
            {"parties", parties},        {"training", training(t.training)},    {"layout", t.layout}};
}

QByteArray TopologyWriter::toJson(const Topology& t) {
    return QJsonDocument(toJsonObject(t)).toJson(QJsonDocument::Indented);
}

}  // namespace hips
