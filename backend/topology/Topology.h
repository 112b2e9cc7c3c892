#pragma once
// The topology: hosts, parties with their roles, and training settings.
// Plain value types; reading, validation and writing live in TopologyReader/TopologyWriter.
#include "Adversary.h"
#include "DataSource.h"
#include "ModelRegistry.h"
#include "StrategyInfo.h"

#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>
#include <optional>

namespace hips {

enum class RoleKind { GlobalScheduler, GlobalServer, MasterWorker, Scheduler, Server, Worker, StateService };

QString roleName(RoleKind kind);  // "global_scheduler", "server", ...

struct Host {
    QString id;
    QString address = QStringLiteral("127.0.0.1");
    int sshPort = 22;
    QString user;
    QString identityFile;
    QString installDir = QStringLiteral("~/.hips");
    int agentPort = 7070;  // where a deployed hips-agent listens for its controller
    std::optional<DataSource> data;  // this host's own data, where it differs from its party's

    // This machine's loopback: its roles run here, started by a local agent (no SSH).
    bool isLoopback() const {
        return address == QLatin1String("127.0.0.1") || address == QLatin1String("localhost") || address == QLatin1String("::1");
    }
};

// A role that binds a port (schedulers and servers).
struct ListeningRole {
    QString host;
    int port = 0;
    QString device = QStringLiteral("cpu");
    // Global servers only: where the server starts again when its host is lost (fault_policy
    // continue), from the copy of its recovery point that the global scheduler keeps.
    QString standbyHost = {};
    int uid = -1;  // the designer's handle on a server (edits::assignUids); not in the file
};

// A role that only connects out (master worker, a group of workers).
struct WorkerGroup {
    QString host;
    int count = 1;
    QString device = QStringLiteral("cpu");
    // Each local step stretched to this multiple of its measured compute time: heterogeneous
    // devices (ESync's setting) emulated on one machine.
    double slowdown = 1;
    std::optional<AdversarySpec> adversary = std::nullopt;  // every worker of the group attacks, every round
    // The master worker only: where it starts again when its host is lost (fault_policy continue);
    // it evaluates from the newest model on.
    QString standbyHost = {};
    // hips simulate only (a deployed run measures its devices): a local step's cost on the virtual
    // clock in seconds ("device_profile"; 0: the step's measured time x slowdown), and when the
    // group's workers can train ("availability": empty or "always", a probability per round, or a
    // trace file of the seconds they are on; SimAvailability.h).
    double stepSeconds = 0;
    QString availability = {};
    int uid = -1;  // the designer's handle on the group (edits::assignUids); not in the file
};

// A party's link to the others, emulated on the sending side of each message that crosses it
// (LinkShaper, backend/wire): its bandwidth shared by the party's nodes that cross, and a delay.
struct WanLink {
    double bandwidthMbps = 0;  // megabits per second
    double latencyMs = 0;  // one way
};

// How a party's hosts come to run its roles (`launcher`): "ssh" (the default: its hosts are
// machines the controller deploys an agent to over SSH, or this machine), or "slurm": its hosts
// are the nodes of a batch job submitted from a login host, known only once Slurm allocates them
// (PartyLauncher.h, SlurmJob.h).
struct SlurmLauncher {
    QString loginHost;  // a host id reached over SSH; empty: sbatch runs on this machine
    QString partition, account;  // empty: the cluster's defaults
    int nodes = 1;
    int tasksPerNode = 1;
    int gpusPerNode = 0;  // --gres=gpu:N
    QString timeLimit;  // "HH:MM:SS" (or "D-HH:MM:SS"); empty: the partition's default
    QStringList sbatchOptions;  // each from SlurmLauncher's allowed list (PartyLauncher.cpp)
    QString installDir = QStringLiteral("~/.hips");  // on the login host, shared with the nodes
    int queuePatienceS = 3600;  // how long the job may wait in the queue before the run gives up
};

struct Party {
    QString id;
    std::optional<WanLink> wan;
    bool central = false;
    std::optional<ListeningRole> scheduler;  // the global scheduler in the central party
    QList<ListeningRole> servers;  // global servers in the central party
    std::optional<WorkerGroup> masterWorker;  // central party only
    std::optional<ListeningRole> stateService;  // central party only; started in mode esync
    QList<WorkerGroup> workers;
    std::optional<AdversarySpec> adversary;  // every worker of the party (a group's own comes first)
    // The party's own data, read only on its hosts and split among its workers; none: the run's
    // `dataset` split over all parties (split_from, the experiment setting).
    std::optional<DataSource> data;
    // Client sampling inside this party (`clients_per_round`): each round a seeded draw of this
    // many of its workers (a fraction below 1) trains; 0: the run's setting (ClientSampling.h).
    double clientsPerRound = 0;
    // How the party's workers sum their updates (`transport`, CollectiveRegistry): "server" (a
    // party server, the default), or a collective among the workers themselves ("ring",
    // "butterfly", "binary_blocks", "gossip"), whose lowest-ranked worker then pushes the party's
    // sum up and passes the global model back down. Such a party starts no party server: any in
    // its `servers` wait unused for the transport to go back to "server".
    QString transport = QStringLiteral("server");
    QMap<QString, double> transportParams;  // the collective's settings given, e.g. transport_chunk_kb
    std::optional<SlurmLauncher> slurm;  // `launcher: {kind: slurm, ...}`; none: ssh

    int workerCount() const;
    bool collective() const { return transport != QLatin1String("server"); }
    // The collective's setting `name`: the party's own, else the registry's default.
    double transportParam(const QString& name) const;
};

// Differential privacy of the parties' updates (`training.privacy`): each update clipped to
// clipNorm and Gaussian noise of standard deviation noiseMultiplier · clipNorm added once per round,
// at the party server before its sum leaves the party (where "party": central DP at the party)
// or by each worker to its own update (where "worker": local DP). PrivacyAccountant.h accounts.
struct PrivacySettings {
    QString where = QStringLiteral("party");  // "party" | "worker"
    double clipNorm = 1;
    double noiseMultiplier = 1;  // set from targetEpsilon before the run where autoNoise
    bool autoNoise = false;  // "noise_multiplier": "auto"
    double delta = 1e-5;
    std::optional<double> targetEpsilon;  // the run stops before a round that would exceed it
    QString sampling = QStringLiteral("none");  // each round one full-participation Gaussian mechanism
    // Rounds a resume trained again ("rerun_rounds": [[first, last], …]): their noised updates had
    // left before the run stopped, and the resume used each worker's data in them once more.
    QList<std::pair<int, int>> rerunRounds;
    bool atParty() const { return where == QLatin1String("party"); }
};

struct TrainingSettings {
    QString dataset = QStringLiteral("fashion-mnist");  // or "synthetic"
    QString dataDir = QStringLiteral("/usr/share/datasets/fashion-mnist");
    QString partition = QStringLiteral("iid");
    QString model = QStringLiteral("cnn");  // a ModelRegistry name, or kTorchScript
    // The user's own model (`"model": {"torchscript": FILE}`): the file, and what the controller
    // read from it before the run (its SHA-256 and its tensors' sizes, parameters then floating
    // buffers), which every role checks the file it loads against.
    QString modelFile;
    QString modelSha256;
    std::vector<size_t> modelTensors;
    int modelBufferTensors = 0;  // of modelTensors, the last ones that are floating buffers
    static constexpr const char* kTorchScript = "torchscript";
    bool torchScript() const { return model == QLatin1String(kTorchScript); }
    // The model's input per sample ([C, H, W] images, [F] features) and its classes; empty: the
    // dataset's shape (1 x 28 x 28 for Fashion-MNIST).
    QList<int> inputShape;
    // Classification's classes; regression's outputs (the targets a sample has, `outputs`, 1 by default).
    int classes = 10;
    // "classification" (cross-entropy, accuracy) or "regression" (`task: regression`: mean squared
    // error on float targets, RMSE), the latter on the parties' own csv, npy or npz data.
    QString task = QStringLiteral("classification");
    bool regression() const { return task == QLatin1String("regression"); }
    // The master's test set (`evaluation_data`); none: the dataset's test split.
    std::optional<DataSource> evaluationData;
    QString mode = QStringLiteral("fedavg");  // a ModeRegistry name
    QString aggregation = QStringLiteral("fedavg");  // an AggregatorRegistry name, at the global server
    QString partyAggregation = QStringLiteral("fedavg");  // the same, at the party servers
    // "two_layer" (HiPS), or "flat": a single-layer parameter server, every worker pushing straight
    // to the global server (party schedulers and servers are not started), the baseline HiPS's
    // two-layer saving is measured against.
    QString hierarchy = QStringLiteral("two_layer");
    // How data-plane payloads are sealed: "sealed" (the default: CURVE for identities, handshakes
    // and headers, frames of 16 KiB and more sealed with the link's AES-256-GCM on a plain socket
    // beside it: SealedPlane.h, and a collective party's mesh: SealedBulk.h; 1.7–2.6 times CURVE's
    // speed here), or "curve" (ZeroMQ's CURVE seals every byte on its socket's I/O thread).
    QString transportSecurity = QStringLiteral("sealed");
    bool flat() const { return hierarchy == QLatin1String("flat"); }
    // How a host's workers are run (`trainer_processes`): "per_worker" (a process each, forked
    // from the host's LibTorch zygote), "per_host" (threads of one shared trainer process per run
    // directory: one LibTorch runtime, each worker costing about its model and optimizer), or
    // "auto" (per_host where a host runs more than kSharedTrainerWorkers of the run's CPU workers).
    // A shared trainer is one process: a crash in one worker takes the host's others with it.
    QString trainerProcesses = QStringLiteral("auto");
    QString faultPolicy = QStringLiteral("fail");  // a FaultPolicyRegistry name
    QString serverOptimizer = QStringLiteral("sgd");  // a ServerOptimizerRegistry name, at the global server
    // How floats travel (CodecRegistry): on links across parties, and inside a party.
    QString compression = QStringLiteral("none");
    QString partyCompression = QStringLiteral("none");
    double proximalMu = 0;  // FedProx: workers add (μ/2)·‖w − w_global‖² to their loss
    // Parameters of the chosen mode and rule given in the topology (`training.dc_lambda`, …), by
    // name; the others take their registry default (param()).
    QMap<QString, double> params;
    int rounds = 20;
    int localIters = 50;  // local SGD steps per round; used when localEpochs == 0
    int localEpochs = 0;  // whole passes over the shard per round
    int batchSize = 64;
    double learningRate = 0.05;
    double momentum = 0.9;
    int evalEvery = 1;
    bool trainCentralWorkers = false;
    int seed = 1;
    int threads = 1;  // intra-op threads per role process
    int syntheticSamples = 4096;
    int heartbeatTimeoutS = 15;  // a node silent this long is declared dead
    int replyTimeoutS = 120;  // a data-plane answer slower than this fails the run
    int checkpointEvery = 5;  // the global server keeps a checkpoint every N rounds (0: never)
    // A run whose controller died or lost its link goes on this long for one to attach again
    // (hips attach); 0: its agents stop it as soon as they find the controller silent.
    int orphanTimeoutS = 600;
    // The controller and an agent give up on each other after this long silent (they ping each
    // other every second): a lost host is found this soon, and a controller stopped this long
    // leaves its run to the agents (orphan_timeout_s).
    int agentTimeoutS = 10;
    // Key slicing over several servers: a tensor of fewer floats goes whole to one server (by a
    // hash of its key), a larger one is cut into one slice per server (ShardMap).
    int sliceBound = 1024;
    bool continuesThroughFailures() const;  // fault_policy continue
    // Each round a seeded random adversary.count of the training workers attack (Draco's setting).
    std::optional<AdversarySpec> adversary;
    std::optional<PrivacySettings> privacy;  // none: updates leave as they are
    // Secure aggregation across parties (`secure_aggregation`): each party server's sum goes up
    // masked, so that the global server learns only the parties' total (SecureAggregation.h).
    bool secureAggregation = false;
    // Client sampling (`clients_per_round`, McMahan et al.'s C): each round a seeded draw of this
    // many training workers (a fraction below 1) trains and pushes, across the parties without
    // their own setting; 0: every worker, every round (ClientSampling.h).
    double clientsPerRound = 0;
    // Parties whose shares recover a dropped party's masks (`secure_aggregation_threshold`);
    // 0: a majority of the parties (secureThreshold()).
    int secureAggregationThreshold = 0;
    int secureThreshold(int parties) const;
    // Set by `hips run --resume` only: the roles start from the checkpoint of this round (0: afresh).
    int resumeRound = 0;

    // The model as the servers and trainers size it: name, input, classes, TorchScript tensors.
    ModelSpec modelSpec() const;
    InputShape modelInput() const;

    // A parameter of the chosen mode, global rule or partition: the topology's value, else the default.
    double param(const QString& name) const;
    // A parameter of the party servers' rule: `party_<name>` in the topology, else its default.
    double partyParam(const QString& name) const { return param(QStringLiteral("party_") + name); }
    // Every parameter the chosen strategies take, by the setting that holds it: the mode's, the
    // global rule's and the partition's under their own names, the party rule's as party_<name>.
    QList<std::pair<QString, const ParamSpec*>> declaredParams() const;
    // Pushes each worker makes in one round: one, one per step where the mode pushes every step
    // (ssgd), or one per party sync (hfa: k2).
    qint64 workerPushesPerRound() const;
    // Model versions the global server makes in one round (ssgd: one per step).
    qint64 globalStepsPerRound() const;
    // Contributions that close a round at a server with `contributors` of them (`quorum`).
    int quorumOf(int contributors) const;
    // Everything a role must agree on with its server before the first push (the join handshake).
    QString agreementText() const;
};

// One process of the run, as expanded from the topology.
struct Node {
    QString id;  // "party1/worker0", "central/global_server0"
    RoleKind kind;
    QString party;
    QString host;
    int port = 0;  // 0 for roles that bind nothing
    int rank = 0;  // index among the roles of its kind in its party
    QString device;
    double slowdown = 1;  // workers: see WorkerGroup
    double stepSeconds = 0;  // workers: see WorkerGroup
    QString availability = {};  // workers: see WorkerGroup
    AdversarySpec adversary = {};  // workers: their group's, else their party's (kind empty: honest)
    QString standbyHost = {};  // global servers and the master: see ListeningRole, WorkerGroup
};

// ceil(fraction × n) for the settings that take a share of a count (quorum, min_workers,
// clients_per_round), a float's error not rounded up: 0.14 of 100 is 14, not 15.
int ceilOfFraction(double fraction, int n);

// ZeroMQ's TCP endpoint of a host's address and a port: tcp://10.0.0.5:9100, tcp://[::1]:9100.
QString tcpEndpoint(const QString& address, int port);

struct Topology {
    static constexpr int kFormatVersion = 1;

    QString name;
    QList<Host> hosts;
    QList<Party> parties;
    TrainingSettings training;
    QJsonObject layout;  // free-form, owned by the designer

    const Host* host(const QString& id) const;
    const Party* party(const QString& id) const;
    const Party* centralParty() const;
    // The data source a worker on `hostId` of `partyId` reads: the host's own, else its party's;
    // none: the run's dataset (split_from).
    const DataSource* dataSourceOf(const QString& partyId, const QString& hostId) const;
    bool partiesBringData() const;  // some party (or host) declares its own data

    // Every process of the run; schedulers first, then servers, then workers.
    QList<Node> nodes() const;
    // Whether `node` runs as a thread of its host's shared trainer (TrainingSettings::trainerProcesses).
    bool sharesTrainer(const Node& node) const;
    static constexpr int kSharedTrainerWorkers = 8;
    qint64 nodeCount() const;  // nodes().size(), counted without building them
    std::optional<Node> node(const QString& id) const;
    // The scheduler of `party` (kind Scheduler), or the global scheduler (kind GlobalScheduler,
    // any party); nullopt when the topology has none.
    std::optional<Node> scheduler(RoleKind kind, const QString& party = {}) const;

    // Workers that train and push (party workers, plus central ones when enabled).
    int trainingWorkerCount() const;
    // Train reports sure to come for every round: every worker's, or with a quorum, as many as
    // close each server's rounds (a late worker skips rounds).
    int trainReportsPerRound() const;
    // Global training index of a worker node, 0..trainingWorkerCount()-1, or -1.
    int trainingWorkerIndex(const QString& nodeId) const;

    QString endpoint(const Node& node) const;  // tcp://address:port ([address] for IPv6) of a listening node
    bool allHostsLocal() const;
};

}  // namespace hips
