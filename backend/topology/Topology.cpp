#include "Topology.h"

#include "ClientSampling.h"

#include "AggregatorRegistry.h"
#include "Collective.h"
#include "FaultPolicy.h"
#include "FedOptimizer.h"
#include "GradientCodec.h"
#include "ModeRegistry.h"
#include "Partition.h"

#include <algorithm>
#include <cmath>

namespace hips {

QString roleName(RoleKind kind) {
    switch (kind) {
        case RoleKind::GlobalScheduler: return QStringLiteral("global_scheduler");
        case RoleKind::GlobalServer: return QStringLiteral("global_server");
        case RoleKind::MasterWorker: return QStringLiteral("master_worker");
        case RoleKind::Scheduler: return QStringLiteral("scheduler");
        case RoleKind::Server: return QStringLiteral("server");
        case RoleKind::Worker: return QStringLiteral("worker");
        case RoleKind::StateService: return QStringLiteral("state_service");
    }
    return {};
}

QList<std::pair<QString, const ParamSpec*>> TrainingSettings::declaredParams() const {
    QList<std::pair<QString, const ParamSpec*>> out;
    auto add = [&out](const StrategyInfo* s, const QString& prefix) {
        if (!s) return;
        for (const ParamSpec& p : s->params)
            if (std::none_of(out.begin(), out.end(), [&](const auto& d) { return d.first == prefix + p.name; }))
                out.append({prefix + p.name, &p});
    };
    add(ModeRegistry::find(mode), {});
    add(AggregatorRegistry::find(aggregation), {});
    add(PartitionRegistry::find(partition), {});
    add(AggregatorRegistry::find(partyAggregation), QStringLiteral("party_"));
    add(ServerOptimizerRegistry::find(serverOptimizer), {});
    add(FaultPolicyRegistry::find(faultPolicy), {});
    add(CodecRegistry::find(compression), {});
    add(CodecRegistry::find(partyCompression), QStringLiteral("party_"));
    return out;
}

InputShape TrainingSettings::modelInput() const {
    if (inputShape.size() == 1) return {inputShape[0], 1};
    if (inputShape.size() == 3) return {inputShape[0], inputShape[1]};  // square: TopologyValidation
    return DatasetRegistry::inputShape(dataset);
}

ModelSpec TrainingSettings::modelSpec() const {
    return {model, modelInput(), classes, modelTensors, modelBufferTensors};
}

bool TrainingSettings::continuesThroughFailures() const {
    return faultPolicy == QLatin1String(fault::kContinue);
}

double TrainingSettings::param(const QString& name) const {
    if (const auto it = params.find(name); it != params.end()) return *it;
    for (const auto& [setting, spec] : declaredParams())
        if (setting == name) return spec->defaultValue;
    return 0;
}

qint64 TrainingSettings::workerPushesPerRound() const {
    const ModePolicy policy = ModeRegistry::policy(mode);
    if (policy.hierarchicalFrequency) return qint64(param(QStringLiteral("k2")));
    return globalStepsPerRound();
}

qint64 TrainingSettings::globalStepsPerRound() const {
    return ModeRegistry::policy(mode).roundOfSyncs ? qMax(1, localIters) : 1;
}

int TrainingSettings::secureThreshold(int parties) const {
    return secureAggregationThreshold > 0 ? secureAggregationThreshold : std::max(1, parties / 2 + parties % 2);
}

int ceilOfFraction(double fraction, int n) {
    return int(std::ceil(fraction * n - 1e-9));
}

int TrainingSettings::quorumOf(int contributors) const {
    const double q = param(QStringLiteral("quorum"));
    if (q <= 0) return contributors;
    const int wanted = q < 1 ? ceilOfFraction(q, contributors) : int(q);
    return std::clamp(wanted, 1, contributors);
}

QString TrainingSettings::agreementText() const {
    QString text = QStringLiteral("mode %1, aggregation %2, party aggregation %3, server optimizer %4, model %5, partition %6")
                       .arg(mode, aggregation, partyAggregation, serverOptimizer, model, partition);
    if (torchScript()) text += QStringLiteral(" (sha256 %1)").arg(modelSha256);
    if (regression()) text += QStringLiteral(", task regression");
    if (!inputShape.isEmpty() || classes != 10) {
        QStringList dims;
        for (int d : inputShape) dims << QString::number(d);
        text += QStringLiteral(", input [%1], %2 classes").arg(dims.join(QStringLiteral(", "))).arg(classes);
    }
    if (compression != QLatin1String(codecs::kNone)) text += QStringLiteral(", compression %1").arg(compression);
    if (partyCompression != QLatin1String(codecs::kNone)) text += QStringLiteral(", party compression %1").arg(partyCompression);
    if (proximalMu > 0) text += QStringLiteral(", proximal_mu %1").arg(proximalMu);
    for (auto it = params.begin(); it != params.end(); ++it) text += QStringLiteral(", %1 %2").arg(it.key()).arg(*it);
    return text;
}

double Party::transportParam(const QString& name) const {
    if (const auto it = transportParams.constFind(name); it != transportParams.constEnd()) return *it;
    const StrategyInfo* info = CollectiveRegistry::find(transport);
    const ParamSpec* spec = info ? info->param(name) : nullptr;
    return spec ? spec->defaultValue : 0;
}

int Party::workerCount() const {
    int n = 0;
    for (const WorkerGroup& g : workers) n += g.count;
    return n;
}

const Host* Topology::host(const QString& id) const {
    for (const Host& h : hosts)
        if (h.id == id) return &h;
    return nullptr;
}

const DataSource* Topology::dataSourceOf(const QString& partyId, const QString& hostId) const {
    if (const Host* h = host(hostId); h && h->data) return &*h->data;
    if (const Party* p = party(partyId); p && p->data) return &*p->data;
    return nullptr;
}

bool Topology::partiesBringData() const {
    return std::any_of(parties.begin(), parties.end(), [](const Party& p) { return p.data.has_value(); }) ||
           std::any_of(hosts.begin(), hosts.end(), [](const Host& h) { return h.data.has_value(); });
}

const Party* Topology::party(const QString& id) const {
    for (const Party& p : parties)
        if (p.id == id) return &p;
    return nullptr;
}

const Party* Topology::centralParty() const {
    for (const Party& p : parties)
        if (p.central) return &p;
    return nullptr;
}

static void addListening(QList<Node>& out, const Party& p, const QList<ListeningRole>& roles, RoleKind kind, const QString& stem) {
    for (int i = 0; i < roles.size(); ++i) {
        const ListeningRole& r = roles[i];
        Node n{p.id + '/' + stem + QString::number(i), kind, p.id, r.host, r.port, i, r.device};
        n.standbyHost = r.standbyHost;
        out.append(n);
    }
}

static Node masterNode(const Party& p) {
    Node n{p.id + QStringLiteral("/master_worker"), RoleKind::MasterWorker, p.id, p.masterWorker->host, 0, 0, p.masterWorker->device};
    n.standbyHost = p.masterWorker->standbyHost;
    return n;
}

// The local baseline starts the master alone: it trains and evaluates by itself.
static bool masterAlone(const TrainingSettings& t) {
    return ModeRegistry::policy(t.mode).standalone;
}
// The state service answers ESync's workers, and runs only for them.
static bool runsStateService(const Party& p, const TrainingSettings& t) {
    return p.central && p.stateService && ModeRegistry::policy(t.mode).stateService;
}

// Party p's nodes, each into its list (nodes() puts every party's schedulers first, then servers,
// then workers).
static void addPartyNodes(const Party& p, const TrainingSettings& training, QList<Node>& schedulers, QList<Node>& servers,
                          QList<Node>& workers) {
    if (masterAlone(training)) {
        if (p.masterWorker) workers.append(masterNode(p));
        return;
    }
    const bool c = p.central;
    const bool partyTier = c || !training.flat();  // a flat run starts no party schedulers and servers
    if (p.scheduler && partyTier) {
        const RoleKind k = c ? RoleKind::GlobalScheduler : RoleKind::Scheduler;
        schedulers.append({p.id + '/' + roleName(k), k, p.id, p.scheduler->host, p.scheduler->port, 0, p.scheduler->device});
    }
    if (partyTier && !p.collective())  // a collective party's workers sum among themselves
        addListening(servers, p, p.servers, c ? RoleKind::GlobalServer : RoleKind::Server,
                     c ? QStringLiteral("global_server") : QStringLiteral("server"));
    if (runsStateService(p, training)) {
        servers.append({p.id + QStringLiteral("/state_service"), RoleKind::StateService, p.id, p.stateService->host, p.stateService->port,
                        0, p.stateService->device});
        servers.last().standbyHost = p.stateService->standbyHost;
    }
    if (p.masterWorker) workers.append(masterNode(p));
    if (c && !training.trainCentralWorkers) return;  // idle central workers are not started
    int rank = 0;
    for (const WorkerGroup& g : p.workers)
        for (int i = 0; i < g.count; ++i, ++rank) {
            Node worker{p.id + QStringLiteral("/worker") + QString::number(rank),
                        RoleKind::Worker,
                        p.id,
                        g.host,
                        0,
                        rank,
                        g.device,
                        g.slowdown,
                        g.stepSeconds,
                        g.availability};
            if (g.adversary || p.adversary) worker.adversary = g.adversary ? *g.adversary : *p.adversary;
            workers.append(worker);
        }
}

// The training workers party p starts, counted (nodes() would build every node of the run).
static int partyWorkerCount(const Party& p, const TrainingSettings& training) {
    if (masterAlone(training) || (p.central && !training.trainCentralWorkers)) return 0;
    int n = 0;
    for (const WorkerGroup& g : p.workers) n += qMax(0, g.count);
    return n;
}

QList<Node> Topology::nodes() const {
    QList<Node> schedulers, servers, workers;
    for (const Party& p : parties) addPartyNodes(p, training, schedulers, servers, workers);
    return schedulers + servers + workers;
}

bool Topology::sharesTrainer(const Node& node) const {
    if (node.kind != RoleKind::Worker || training.trainerProcesses == QLatin1String("per_worker")) return false;
    if (training.trainerProcesses == QLatin1String("per_host")) return true;
    if (!node.device.startsWith(QLatin1String("cpu"))) return false;  // (auto: a GPU's workers keep a process each)
    int onHost = 0;
    for (const Party& p : parties) {
        if (partyWorkerCount(p, training) == 0) continue;
        for (const WorkerGroup& g : p.workers)
            if (g.host == node.host && g.device.startsWith(QLatin1String("cpu"))) onHost += qMax(0, g.count);
    }
    return onHost > kSharedTrainerWorkers;
}

qint64 Topology::nodeCount() const {
    qint64 n = 0;
    for (const Party& p : parties) {
        if (masterAlone(training)) {
            n += qint64(p.masterWorker.has_value());
            continue;
        }
        n += qint64(p.scheduler.has_value()) + (p.collective() ? 0 : p.servers.size()) + qint64(p.masterWorker.has_value()) +
             qint64(runsStateService(p, training));
        if (p.central && !training.trainCentralWorkers) continue;  // as in nodes()
        for (const WorkerGroup& g : p.workers) n += qMax(0, g.count);
    }
    return n;
}

// Only the node's party's are built: a simulated run asks this of thousands of nodes.
std::optional<Node> Topology::node(const QString& id) const {
    const Party* p = party(id.section(QLatin1Char('/'), 0, 0));
    if (!p) return std::nullopt;
    QList<Node> schedulers, servers, workers;
    addPartyNodes(*p, training, schedulers, servers, workers);
    for (const QList<Node>* list : {&schedulers, &servers, &workers})
        for (const Node& n : *list)
            if (n.id == id) return n;
    return std::nullopt;
}

std::optional<Node> Topology::scheduler(RoleKind kind, const QString& party) const {
    for (const Node& n : nodes())
        if (n.kind == kind && (kind == RoleKind::GlobalScheduler || (kind == RoleKind::Scheduler && n.party == party))) return n;
    return std::nullopt;
}

int Topology::trainingWorkerCount() const {
    if (masterAlone(training)) return 1;
    int n = 0;
    for (const Party& p : parties) n += partyWorkerCount(p, training);
    return n;
}

int Topology::trainReportsPerRound() const {
    if (samplesClients(*this)) return sampledPerRound(*this);
    int reports = 0;
    for (const Party& p : parties) {
        const int workers = partyWorkerCount(p, training);
        if (workers > 0) reports += training.quorumOf(workers);
    }
    return masterAlone(training) ? 1 : reports;
}

// "party/workerN": the workers of the parties before it, then N (nodes()' order of workers).
int Topology::trainingWorkerIndex(const QString& nodeId) const {
    const QString partyId = nodeId.section(QLatin1Char('/'), 0, 0), role = nodeId.section(QLatin1Char('/'), 1);
    if (!role.startsWith(QLatin1String("worker")) || nodeId.count(QLatin1Char('/')) != 1) return -1;
    bool ok = false;
    const int rank = role.mid(6).toInt(&ok);
    if (!ok || QString::number(rank) != role.mid(6)) return -1;  // (no "worker01", "worker+1")
    int before = 0;
    for (const Party& p : parties) {
        const int count = partyWorkerCount(p, training);
        if (p.id == partyId) return rank >= 0 && rank < count ? before + rank : -1;
        before += count;
    }
    return -1;
}

QString tcpEndpoint(const QString& address, int port) {
    const bool ipv6 = address.contains(QLatin1Char(':'));  // ZeroMQ wants tcp://[::1]:port
    return (ipv6 ? QStringLiteral("tcp://[%1]:%2") : QStringLiteral("tcp://%1:%2")).arg(address).arg(port);
}

QString Topology::endpoint(const Node& node) const {
    const Host* h = host(node.host);
    return tcpEndpoint(h ? h->address : QStringLiteral("127.0.0.1"), node.port);
}

bool Topology::allHostsLocal() const {
    for (const Host& h : hosts)
        if (!h.isLoopback()) return false;
    return true;
}

}  // namespace hips
