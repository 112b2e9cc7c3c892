#include "TopologyReader.h"

#include "PartyLauncher.h"

#include "PrivacyFields.h"

#include "AggregatorRegistry.h"
#include "Collective.h"
#include "DataFormatRegistry.h"
#include "FaultPolicy.h"
#include "FedOptimizer.h"
#include "GradientCodec.h"
#include "ModeRegistry.h"
#include "ModelRegistry.h"
#include "Partition.h"

#include "DataFields.h"

#include <cmath>
#include "JsonDuplicateKeys.h"
#include "JsonFields.h"
#include "PrintableText.h"
#include "SimulationCheck.h"
#include "TopologyLimits.h"

#include <QCoreApplication>
#include <QFile>
#include <QHash>
#include <QJsonDocument>
#include <QRegularExpression>

namespace hips {

namespace {

// bytes < 0: read from a pipe and cut at the limit, so only "larger than" is known.
QString tooLargeMessage(qint64 bytes) {
    const QString size = bytes < 0 ? QCoreApplication::translate("TopologyCheck", "larger than %1 bytes").arg(kMaxTopologyBytes)
                                   : QCoreApplication::translate("TopologyCheck", "%1 bytes").arg(bytes);
    return QCoreApplication::translate("TopologyCheck",
                                       "the document is %1; a topology may be at most %2 bytes (1 MiB). Check that this "
                                       "is a topology file; a setup that large must be split into several topologies")
        .arg(size)
        .arg(kMaxTopologyBytes);
}

const QString kFormat = QStringLiteral("hips-topology");

QString at(const QString& base, int index) {
    return QStringLiteral("%1[%2]").arg(base).arg(index);
}

// An array too long to be valid is refused before its elements are read, so that a hostile file
// costs no more than its parse.
bool withinLimit(const QJsonArray& a, qsizetype max, const QString& path, const QString& what, const QString& why, TopologyIssues* issues) {
    if (a.size() <= max) return true;
    issues->append(
        {path,
         QCoreApplication::translate("TopologyCheck", "%1 %2; at most %3 are supported (%4)").arg(a.size()).arg(what).arg(max).arg(why)});
    return false;
}

const QString kNodeLimitReason =
    QCoreApplication::translate("TopologyCheck", "a topology holds at most %1 nodes; split the setup into several topologies")
        .arg(kMaxNodes);

Host readHost(const QJsonObject& o, const QString& path, TopologyIssues* issues) {
    JsonFields f(o, path, issues);
    f.rejectUnknown({"id", "address", "ssh_port", "user", "identity_file", "install_dir", "agent_port", "data"},
                    QCoreApplication::translate("TopologyCheck", "host field"));
    Host h;
    h.id = f.string("id", {}, true);
    h.address = f.string("address", h.address);
    h.sshPort = f.integer("ssh_port", h.sshPort, 1, 65535);
    h.user = f.string("user", {});
    h.identityFile = f.string("identity_file", {});
    h.installDir = f.string("install_dir", h.installDir);
    h.agentPort = f.integer("agent_port", h.agentPort, 1024, 65535);
    h.data = readDataSource(f, "data");
    return h;
}

// `standby`: the role may name a standby host (global servers, the state service).
ListeningRole readListening(const QJsonObject& o, const QString& path, const QString& partyHost, TopologyIssues* issues,
                            bool standby = false) {
    JsonFields f(o, path, issues);
    f.rejectUnknown(standby ? QStringList{"host", "port", "device", "standby_host"} : QStringList{"host", "port", "device"},
                    QStringLiteral("field"));
    ListeningRole r;
    r.host = f.string("host", partyHost, partyHost.isEmpty());
    r.port = f.integer("port", 0, 1024, 65535, true);
    r.device = f.string("device", r.device);
    if (standby) r.standbyHost = f.string("standby_host", {});
    return r;
}

// {"kind": "reverse", "strength": 100} (and, run-wide, "count": s): kinds and ranges from the
// AdversaryRegistry; the count's upper bound is checked with the topology (TopologyValidation).
std::optional<AdversarySpec> readAdversary(JsonFields& parent, const char* key, bool runWide) {
    const auto o = parent.object(key);
    if (!o) return std::nullopt;
    JsonFields f(*o, parent.path(key), parent.issues());
    f.rejectUnknown(runWide ? QStringList{"kind", "strength", "count"} : QStringList{"kind", "strength"},
                    QCoreApplication::translate("TopologyCheck", "adversary field"));
    AdversarySpec a;
    a.kind = f.string("kind", {}, true);
    const StrategyInfo* info = AdversaryRegistry::find(a.kind);
    if (!info) {
        f.issue("kind", QCoreApplication::translate("TopologyCheck", "'%1' is not an attack; use one of: %2")
                            .arg(a.kind, strategyNames(AdversaryRegistry::all()).join(", ")));
        return std::nullopt;
    }
    const ParamSpec* strength = info->param(QStringLiteral("strength"));
    if (strength) a.strength = f.number("strength", strength->defaultValue, strength->min, strength->max);
    else if (f.has("strength")) f.issue("strength", QCoreApplication::translate("TopologyCheck", "%1 takes no strength").arg(a.kind));
    if (runWide) a.count = f.integer("count", 1, 1, 1000000, true);
    return a;
}

WorkerGroup readWorkers(const QJsonObject& o, const QString& path, const QString& partyHost, TopologyIssues* issues, bool countAllowed) {
    JsonFields f(o, path, issues);
    f.rejectUnknown(countAllowed ? QStringList{"host", "count", "device", "slowdown", "adversary", "device_profile", "availability"}
                                 : QStringList{"host", "device", "standby_host"},
                    QStringLiteral("field"));
    WorkerGroup g;
    g.host = f.string("host", partyHost, partyHost.isEmpty());
    g.count = countAllowed ? f.integer("count", 1, 0, kMaxWorkersPerGroup) : 1;
    g.device = f.string("device", g.device);
    if (countAllowed) g.slowdown = f.number("slowdown", g.slowdown, 1, 1000);
    if (countAllowed) g.adversary = readAdversary(f, "adversary", false);
    if (countAllowed) readSimulationFields(f, g);
    if (!countAllowed) g.standbyHost = f.string("standby_host", {});  // (the master)
    return g;
}

std::optional<ListeningRole> readOne(JsonFields& roles, const QString& key, const QString& partyHost, TopologyIssues* issues,
                                     bool standby = false) {
    const auto o = roles.object(key);
    return o ? std::optional(readListening(*o, roles.path(key), partyHost, issues, standby)) : std::nullopt;
}

QList<ListeningRole> readServers(JsonFields& roles, const QString& key, const QString& partyHost, TopologyIssues* issues) {
    QList<ListeningRole> out;
    const auto a = roles.array(key);
    if (!a || !withinLimit(*a, kMaxRoleEntries, roles.path(key), key, kNodeLimitReason, issues)) return out;
    for (int i = 0; i < a->size(); ++i) {
        const QString p = at(roles.path(key), i);
        if (!a->at(i).isObject()) {
            issues->append({p, QCoreApplication::translate("TopologyCheck", "must be an object with host and port")});
            continue;
        }
        out.append(readListening(a->at(i).toObject(), p, partyHost, issues, key == QLatin1String("global_servers")));
    }
    return out;
}

std::optional<WanLink> readWan(JsonFields& parent, bool central) {
    const auto o = parent.object("wan");
    if (!o) return std::nullopt;
    if (central) {
        parent.issue("wan", QCoreApplication::translate("TopologyCheck",
                                                        "the central party has no WAN of its own: each other "
                                                        "party's wan shapes its link to the central party"));
        return std::nullopt;
    }
    JsonFields f(*o, parent.path("wan"), parent.issues());
    f.rejectUnknown({"bandwidth_mbps", "latency_ms"}, QCoreApplication::translate("TopologyCheck", "wan field"));
    WanLink w;
    w.bandwidthMbps = f.number("bandwidth_mbps", 0, 0.001, 100000);
    if (!f.has("bandwidth_mbps"))
        f.issue("bandwidth_mbps", QCoreApplication::translate("TopologyCheck", "a wan needs its bandwidth_mbps (megabits per second)"));
    w.latencyMs = f.number("latency_ms", 0, 0, 10000);
    return w;
}

// `clients_per_round`: a fraction in (0, 1), or a whole count of workers; 0 or absent: all.
double readClientsPerRound(JsonFields& f) {
    const double c = f.number("clients_per_round", 0, 0, 1e6);
    if (c > 1 && c != std::floor(c))
        f.issue("clients_per_round",
                QCoreApplication::translate("TopologyCheck", "%1 is neither a fraction below 1 nor a whole number of workers").arg(c));
    return c;
}

// Every setting some collective declares (a party's, beside its `transport`).
QStringList transportParamNames() {
    QStringList names;
    for (const StrategyInfo& s : CollectiveRegistry::all())
        for (const ParamSpec& p : s.params)
            if (!names.contains(p.name)) names << p.name;
    return names;
}

// `transport` and the settings of its collective; a setting of another collective is refused,
// naming the one it belongs to.
void readTransport(JsonFields& f, Party& p) {
    const QString given = f.string("transport", p.transport);
    const StrategyInfo* info = CollectiveRegistry::find(given);
    if (!info)
        f.issue("transport", QCoreApplication::translate("TopologyCheck", "'%1' is not a transport; use one of: %2")
                                 .arg(given, CollectiveRegistry::names().join(QStringLiteral(", "))));
    else p.transport = info->name;
    for (const QString& name : transportParamNames()) {
        if (!f.has(name)) continue;
        const ParamSpec* spec = info ? info->param(name) : nullptr;
        if (!spec) {
            if (info)
                f.issue(
                    name,
                    QCoreApplication::translate("TopologyCheck", "%1 is not a setting of transport %2; remove it").arg(name, info->name));
            continue;
        }
        const double value = f.number(name, spec->defaultValue, spec->min, spec->max);
        if (spec->type == ParamSpec::Type::Integer && value != std::floor(value))
            f.issue(name, QCoreApplication::translate("TopologyCheck", "%1 must be a whole number").arg(name));
        p.transportParams.insert(name, value);
    }
}

Party readParty(const QJsonObject& o, const QString& path, TopologyIssues* issues) {
    JsonFields f(o, path, issues);
    f.rejectUnknown(
        QStringList{"id", "central", "host", "roles", "adversary", "wan", "data", "clients_per_round", "transport", "launcher"} +
            transportParamNames(),
        QCoreApplication::translate("TopologyCheck", "party field"));
    Party p;
    p.id = f.string("id", {}, true);
    p.central = f.boolean("central", false);
    p.wan = readWan(f, p.central);
    p.adversary = readAdversary(f, "adversary", false);
    p.data = readDataSource(f, "data");
    p.clientsPerRound = readClientsPerRound(f);
    readTransport(f, p);
    p.slurm = readLauncher(f);
    const QString partyHost = f.string("host", {});
    const auto rolesObject = f.object("roles", true);
    if (!rolesObject) return p;

    JsonFields roles(*rolesObject, f.path("roles"), issues);
    const QString schedulerKey = p.central ? "global_scheduler" : "scheduler";
    const QString serversKey = p.central ? "global_servers" : "servers";
    QStringList known{schedulerKey, serversKey, "workers"};
    if (p.central)
        known << "master_worker"
              << "state_service";
    for (const QString& key : rolesObject->keys()) {
        if (known.contains(key)) continue;
        const bool otherLayer =
            QStringList{"global_scheduler", "global_servers", "master_worker", "state_service", "scheduler", "servers"}.contains(key);
        roles.issue(key, otherLayer ? QCoreApplication::translate("TopologyCheck", "role '%1' belongs to %2; %3 uses: %4")
                                          .arg(key,
                                               p.central ? QCoreApplication::translate("TopologyCheck", "an ordinary party")
                                                         : QCoreApplication::translate("TopologyCheck", "the central party"),
                                               p.central ? QCoreApplication::translate("TopologyCheck", "the central party")
                                                         : QCoreApplication::translate("TopologyCheck", "this party"),
                                               known.join(QStringLiteral(", ")))
                                    : QCoreApplication::translate("TopologyCheck", "unknown role '%1'; expected one of: %2")
                                          .arg(key, known.join(QStringLiteral(", "))));
    }

    p.scheduler = readOne(roles, schedulerKey, partyHost, issues);
    if (p.central) p.stateService = readOne(roles, QStringLiteral("state_service"), partyHost, issues, true);
    p.servers = readServers(roles, serversKey, partyHost, issues);
    if (p.central) {
        if (const auto m = roles.object("master_worker"))
            p.masterWorker = readWorkers(*m, roles.path("master_worker"), partyHost, issues, false);
    }
    if (const auto a = roles.array("workers");
        a && withinLimit(*a, kMaxRoleEntries, roles.path("workers"), "worker groups", kNodeLimitReason, issues)) {
        for (int i = 0; i < a->size(); ++i) {
            const QString wp = at(roles.path("workers"), i);
            if (!a->at(i).isObject()) {
                issues->append({wp, QCoreApplication::translate("TopologyCheck", "must be an object with host and count")});
                continue;
            }
            p.workers.append(readWorkers(a->at(i).toObject(), wp, partyHost, issues, true));
        }
    }
    return p;
}

// Every parameter some registered mode, rule or partition declares, once; a rule's also as
// party_<name> (the party servers' rule).
QStringList strategyParamNames() {
    QStringList names;
    for (const StrategyList* list : {&ModeRegistry::all(), &AggregatorRegistry::all(), &PartitionRegistry::all(),
                                     &ServerOptimizerRegistry::all(), &CodecRegistry::all(), &FaultPolicyRegistry::all()})
        for (const StrategyInfo& s : *list)
            for (const ParamSpec& p : s.params) {
                if (!names.contains(p.name)) names << p.name;
                const QString party = QStringLiteral("party_") + p.name;
                if ((list == &AggregatorRegistry::all() || list == &CodecRegistry::all()) && !names.contains(party)) names << party;
            }
    return names;
}

// The master's test set names the test split's files where it names none (idx: t10k-*, CIFAR:
// test_batch.bin), not the training split's that a party's source defaults to: the model would
// be scored on the rows the parties trained on.
void useTestSplit(DataSource* source) {
    if (const DataFormatInfo* format = DataFormatRegistry::find(source->format))
        for (const DataOption& o : format->options)
            if (!o.evaluationDefault.isEmpty() && !source->options.contains(o.name)) source->options.insert(o.name, o.evaluationDefault);
}

TrainingSettings readTraining(const QJsonObject& o, const QString& path, TopologyIssues* issues) {
    JsonFields f(o, path, issues);
    const QStringList paramNames = strategyParamNames();
    f.rejectUnknown(QStringList{"dataset",
                                "data_dir",
                                "partition",
                                "model",
                                "mode",
                                "aggregation",
                                "party_aggregation",
                                "server_optimizer",
                                "fault_policy",
                                "compression",
                                "party_compression",
                                "proximal_mu",
                                "hierarchy",
                                "transport_security",
                                "trainer_processes",
                                "rounds",
                                "local_iters",
                                "local_epochs",
                                "batch_size",
                                "learning_rate",
                                "momentum",
                                "eval_every",
                                "train_central_workers",
                                "seed",
                                "threads",
                                "synthetic_samples",
                                "heartbeat_timeout_s",
                                "reply_timeout_s",
                                "orphan_timeout_s",
                                "agent_timeout_s",
                                "checkpoint_every",
                                "slice_bound",
                                "resume_round",
                                "adversary",
                                "privacy",
                                "secure_aggregation",
                                "secure_aggregation_threshold",
                                "clients_per_round",
                                "evaluation_data",
                                "input_shape",
                                "classes",
                                "task",
                                "outputs"} +
                        paramNames,
                    QCoreApplication::translate("TopologyCheck", "training setting"));
    TrainingSettings t;
    t.dataset = f.strategy("dataset", t.dataset, DatasetRegistry::all());
    t.dataDir = f.string("data_dir", t.dataDir);
    t.partition = f.strategy("partition", t.partition, PartitionRegistry::all());
    readModel(f, ModelRegistry::all(), &t);
    t.task = f.choice("task", t.task, {QStringLiteral("classification"), QStringLiteral("regression")});
    if (!t.regression() && f.has("outputs"))
        f.issue("outputs", QCoreApplication::translate("TopologyCheck",
                                                       "outputs are a regression's: write \"task\": "
                                                       "\"regression\", or \"classes\" for a classifier"));
    if (!t.regression()) t.classes = f.integer("classes", t.classes, 2, 100000);
    else if (f.has("classes"))
        f.issue("classes", QCoreApplication::translate("TopologyCheck",
                                                       "a regression has outputs, not classes: write "
                                                       "\"outputs\" (the targets a sample has, 1 by default)"));
    else t.classes = f.integer("outputs", 1, 1, 100000);
    t.evaluationData = readDataSource(f, "evaluation_data");
    if (t.evaluationData) useTestSplit(&*t.evaluationData);
    t.mode = f.strategy("mode", t.mode, ModeRegistry::all());
    t.aggregation = f.strategy("aggregation", t.aggregation, AggregatorRegistry::all());
    t.partyAggregation = f.strategy("party_aggregation", t.partyAggregation, AggregatorRegistry::all());
    t.serverOptimizer = f.strategy("server_optimizer", t.serverOptimizer, ServerOptimizerRegistry::all());
    t.faultPolicy = f.strategy("fault_policy", t.faultPolicy, FaultPolicyRegistry::all());
    t.compression = f.strategy("compression", t.compression, CodecRegistry::all());
    t.partyCompression = f.strategy("party_compression", t.partyCompression, CodecRegistry::all());
    t.proximalMu = f.number("proximal_mu", t.proximalMu, 0, 100);
    t.hierarchy = f.choice("hierarchy", t.hierarchy, {QStringLiteral("two_layer"), QStringLiteral("flat")});
    t.transportSecurity = f.choice("transport_security", t.transportSecurity, {QStringLiteral("curve"), QStringLiteral("sealed")});
    t.trainerProcesses = f.choice("trainer_processes", t.trainerProcesses,
                                  {QStringLiteral("auto"), QStringLiteral("per_worker"), QStringLiteral("per_host")});
    for (const QString& name : paramNames)  // ranges and owners: TopologyValidation
        if (f.has(name)) t.params.insert(name, f.number(name, 0, -1e300, 1e300));
    t.rounds = f.integer("rounds", t.rounds, 1, kMaxRounds);
    t.localIters = f.integer("local_iters", t.localIters, 0, 1000000);
    t.localEpochs = f.integer("local_epochs", t.localEpochs, 0, 10000);
    t.batchSize = f.integer("batch_size", t.batchSize, 1, 65536);
    t.learningRate = f.number("learning_rate", t.learningRate, 1e-9, 100.0);
    t.momentum = f.number("momentum", t.momentum, 0.0, 0.999999);
    t.evalEvery = f.integer("eval_every", t.evalEvery, 1, 1000000);
    t.trainCentralWorkers = f.boolean("train_central_workers", t.trainCentralWorkers);
    t.seed = f.integer("seed", t.seed, 0, 2147483647);
    t.threads = f.integer("threads", t.threads, 1, 256);
    t.syntheticSamples = f.integer("synthetic_samples", t.syntheticSamples, 16, 10000000);
    t.heartbeatTimeoutS = f.integer("heartbeat_timeout_s", t.heartbeatTimeoutS, 2, 3600);
    t.replyTimeoutS = f.integer("reply_timeout_s", t.replyTimeoutS, 2, 86400);
    t.checkpointEvery = f.integer("checkpoint_every", t.checkpointEvery, 0, 1000000);
    t.orphanTimeoutS = f.integer("orphan_timeout_s", t.orphanTimeoutS, 0, 604800);
    t.agentTimeoutS = f.integer("agent_timeout_s", t.agentTimeoutS, 3, 3600);
    t.sliceBound = f.integer("slice_bound", t.sliceBound, 1, 1000000000);
    t.resumeRound = f.integer("resume_round", t.resumeRound, 0, 1000000);
    t.adversary = readAdversary(f, "adversary", true);
    t.privacy = readPrivacy(f, "privacy");
    t.clientsPerRound = readClientsPerRound(f);
    t.secureAggregation = f.boolean("secure_aggregation", false);
    t.secureAggregationThreshold = f.integer("secure_aggregation_threshold", 0, 1, int(kMaxParties));
    if (f.has("secure_aggregation_threshold") && !t.secureAggregation)
        f.issue("secure_aggregation_threshold",
                QCoreApplication::translate("TopologyCheck", "a threshold is secure aggregation's: add \"secure_aggregation\": true"));
    if (f.has("local_epochs") && !f.has("local_iters")) t.localIters = 0;  // (one of the two: TopologyValidation)
    return t;
}

Topology readTopology(const QJsonObject& o, TopologyIssues* issues) {
    JsonFields root(o, QStringLiteral("$"), issues);
    root.rejectUnknown({"format", "version", "name", "hosts", "parties", "training", "layout"},
                       QCoreApplication::translate("TopologyCheck", "top-level field"));
    if (root.string("format", {}, true) != kFormat && root.has("format"))
        root.issue("format", QCoreApplication::translate("TopologyCheck", "must be \"%1\"").arg(kFormat));
    const int version = root.integer("version", Topology::kFormatVersion, 1, 1000, true);
    if (version > Topology::kFormatVersion)
        root.issue("version",
                   QCoreApplication::translate("TopologyCheck", "version %1 is newer than this program reads (%2); upgrade HiPS Studio")
                       .arg(version)
                       .arg(Topology::kFormatVersion));

    Topology t;
    t.name = root.string("name", QStringLiteral("unnamed"));
    if (const auto hosts = root.array("hosts", true); hosts && withinLimit(*hosts, kMaxHosts, "$.hosts", "hosts", kNodeLimitReason, issues))
        for (int i = 0; i < hosts->size(); ++i) {
            const QString p = at(QStringLiteral("$.hosts"), i);
            if (hosts->at(i).isObject()) t.hosts.append(readHost(hosts->at(i).toObject(), p, issues));
            else issues->append({p, QCoreApplication::translate("TopologyCheck", "must be an object with id and address")});
        }
    if (const auto parties = root.array("parties", true);
        parties &&
        withinLimit(*parties, kMaxParties, "$.parties", "parties",
                    QCoreApplication::translate("TopologyCheck", "each party runs at least 3 processes and %1").arg(kNodeLimitReason),
                    issues))
        for (int i = 0; i < parties->size(); ++i) {
            const QString p = at(QStringLiteral("$.parties"), i);
            if (parties->at(i).isObject()) t.parties.append(readParty(parties->at(i).toObject(), p, issues));
            else issues->append({p, QCoreApplication::translate("TopologyCheck", "must be an object with id and roles")});
        }
    if (const auto training = root.object("training")) t.training = readTraining(*training, "$.training", issues);
    if (const auto layout = root.object("layout")) t.layout = *layout;

    return t;
}

}  // namespace

QString TopologyLoad::errorText() const {
    QStringList lines;
    const QString shownSource = printableText(source, 300);
    for (const TopologyIssue& i : issues) lines << shownSource + QStringLiteral(": ") + i.toString();
    return lines.join('\n');
}

TopologyLoad TopologyReader::readFile(const QString& path) {
    TopologyLoad refused;
    refused.source = path;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        refused.issues.append(
            {QStringLiteral("$"),
             QCoreApplication::translate("TopologyCheck", "cannot open the file (%1); check the path").arg(file.errorString())});
        refused.issues = presentableIssues(refused.issues);
        return refused;
    }
    if (file.size() > kMaxTopologyBytes) {  // refused unread; a pipe reports 0 and is bounded below
        refused.issues.append({QStringLiteral("$"), tooLargeMessage(file.size())});
        return refused;
    }
    QByteArray json;
    while (json.size() <= kMaxTopologyBytes) {
        const QByteArray chunk = file.read(kMaxTopologyBytes + 1 - json.size());
        if (chunk.isEmpty()) break;
        json += chunk;
    }
    if (json.size() > kMaxTopologyBytes) {
        refused.issues.append({QStringLiteral("$"), tooLargeMessage(-1)});
        return refused;
    }
    if (file.error() != QFileDevice::NoError) {
        refused.issues.append(
            {QStringLiteral("$"),
             QCoreApplication::translate("TopologyCheck", "cannot read the file (%1); check the path").arg(file.errorString())});
        refused.issues = presentableIssues(refused.issues);
        return refused;
    }
    return readJson(json, path);
}

TopologyLoad TopologyReader::readJson(const QByteArray& json, const QString& source) {
    TopologyLoad load;
    load.source = source;
    load.issues = presentableIssues(readDocument(json, &load.draft));
    if (load.issues.isEmpty()) load.topology = load.draft;
    return load;
}

TopologyIssues TopologyReader::readDocument(const QByteArray& json, std::optional<Topology>* draft) {
    TopologyIssues all;
    TopologyIssues* issues = &all;
    if (json.size() > kMaxTopologyBytes) {
        issues->append({QStringLiteral("$"), tooLargeMessage(json.size())});
        return all;
    }
    if (const qsizetype bad = firstInvalidUtf8(json); bad >= 0) {
        issues->append({QStringLiteral("$"),
                        QCoreApplication::translate("TopologyCheck", "not valid UTF-8 at line %1 (offset %2); save the file as UTF-8")
                            .arg(json.left(bad).count('\n') + 1)
                            .arg(bad)});
        return all;
    }

    if (json.trimmed().isEmpty()) {  // QJsonDocument would call it an "illegal value"
        issues->append({QStringLiteral("$"),
                        QCoreApplication::translate("TopologyCheck",
                                                    "the file is empty; a topology is a JSON "
                                                    "object (resources/topologies/default.json is one, or draw one in hips-studio)")});
        return all;
    }
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        const int line = json.left(parseError.offset).count('\n') + 1;
        issues->append({QStringLiteral("$"), QCoreApplication::translate("TopologyCheck", "not valid JSON at line %1 (offset %2): %3")
                                                 .arg(line)
                                                 .arg(parseError.offset)
                                                 .arg(parseError.errorString())});
        return all;
    }
    if (!doc.isObject()) {
        issues->append({QStringLiteral("$"), QCoreApplication::translate("TopologyCheck", "the document must be a JSON object")});
        return all;
    }
    if (TopologyIssues duplicates = duplicateKeyIssues(json); !duplicates.isEmpty()) return duplicates;

    const Topology t = readTopology(doc.object(), issues);
    if (issues->isEmpty()) {
        *draft = t;
        *issues = checkTopology(t);
    }
    return all;
}

}  // namespace hips
