#include "RunOverrides.h"

#include "ModeRegistry.h"
#include "ModelRegistry.h"
#include "TopologyEdits.h"

#include <QFileInfo>
#include <cmath>

namespace hips {

namespace {

struct Override {
    const char* name;
    const char* help;
    const char* value;
};

// Options that override the topology's training settings for this run.
const Override kOverrides[] = {
    {"rounds", "Number of global rounds.", "N"},
    {"model", "Model (listed above), or a TorchScript file saved from PyTorch.", "NAME|FILE"},
    {"dataset", "Data set (listed above).", "NAME"},
    {"local-iters", "Local SGD steps per round.", "N"},
    {"local-epochs", "Local epochs per round (instead of --local-iters).", "N"},
    {"batch-size", "Batch size.", "N"},
    {"lr", "Learning rate.", "X"},
    {"eval-every", "Evaluate every N rounds.", "N"},
    {"threads", "Intra-op threads per role process.", "N"},
    {"seed", "Seed of the initial weights, the data's split and shuffles, and the attackers (training.seed).", "N"},
    {"clients-per-round", "Workers drawn to train each round: a count, or a fraction below 1 (training.clients_per_round).", "C"},
};

// --device DEV: every worker group and the master worker; --device PARTY=DEV: one party's.
QString applyDevices(const QStringList& settings, const QStringList& servers, Topology& t) {
    for (const QString& setting : settings) {
        const qsizetype eq = setting.indexOf('=');
        const QString party = eq > 0 ? setting.left(eq) : QString();
        const QString device = setting.mid(eq + 1);
        bool found = party.isEmpty();
        for (Party& p : t.parties) {
            if (!party.isEmpty() && p.id != party) continue;
            found = true;
            for (WorkerGroup& g : p.workers) g.device = device;
            if (p.masterWorker) p.masterWorker->device = device;
        }
        if (!found) return QStringLiteral("--device %1: the topology has no party '%2'").arg(setting, party);
    }
    for (const QString& device : servers)  // --server-device: every server's (robust rules on a GPU)
        for (Party& p : t.parties)
            for (ListeningRole& s : p.servers) s.device = device;
    return {};  // the devices' spelling is checked with the topology (TopologyReader::validate)
}

}  // namespace

// Option `name`, when given, into `field`: empty, or why it is not a positive integer.
QString readPositive(const QCommandLineParser& args, const char* name, int& field) {
    if (!args.isSet(name)) return {};
    bool ok = false;
    const int v = args.value(name).toInt(&ok);
    if (!ok || v < 1)
        return QStringLiteral("--%1 takes a positive integer (up to 2147483647); got '%2'").arg(QLatin1String(name), args.value(name));
    field = v;
    return {};
}

QString applyOverrides(const QCommandLineParser& args, Topology& t) {
    TrainingSettings& s = t.training;
    bool ok = true;
    QString notPositive;  // the first integer option whose value is not a positive integer
    auto integer = [&](const char* name, int& field) {
        if (notPositive.isEmpty()) notPositive = readPositive(args, name, field);
    };
    integer("rounds", s.rounds);
    integer("batch-size", s.batchSize);
    integer("eval-every", s.evalEvery);
    integer("threads", s.threads);
    if (args.isSet("local-iters") && args.isSet("local-epochs"))
        return QStringLiteral("--local-iters and --local-epochs exclude each other: give one");
    if (args.isSet("local-iters")) {
        integer("local-iters", s.localIters);
        s.localEpochs = 0;
    }
    if (args.isSet("local-epochs")) {
        integer("local-epochs", s.localEpochs);
        s.localIters = 0;
    }
    if (!notPositive.isEmpty()) return notPositive;
    if (args.isSet("seed")) {
        s.seed = args.value("seed").toInt(&ok);
        if (!ok || s.seed < 0) return QStringLiteral("--seed takes a whole number from 0 to 2147483647; got '%1'").arg(args.value("seed"));
    }
    if (args.isSet("clients-per-round")) {  // a count beyond the workers is refused with the topology
        s.clientsPerRound = args.value("clients-per-round").toDouble(&ok);
        if (!ok || !(s.clientsPerRound > 0) || !std::isfinite(s.clientsPerRound))
            return QStringLiteral("--clients-per-round takes a count of workers or a fraction below 1, e.g. 10 or 0.1; got '%1'")
                .arg(args.value("clients-per-round"));
    }
    if (args.isSet("lr")) {
        s.learningRate = args.value("lr").toDouble(&ok);
        if (!ok || !(s.learningRate > 0) || !std::isfinite(s.learningRate)) return QStringLiteral("--lr must be a positive number");
    }
    if (args.isSet("mode")) {  // names and parameters are checked with the topology (TopologyReader::validate)
        const StrategyInfo* m = ModeRegistry::find(args.value("mode"));
        s.mode = m ? m->name : args.value("mode");
    }
    if (args.isSet("aggregation")) s.aggregation = args.value("aggregation");
    if (args.isSet("party-aggregation")) s.partyAggregation = args.value("party-aggregation");
    if (args.isSet("server-optimizer")) s.serverOptimizer = args.value("server-optimizer");
    if (args.isSet("compression")) s.compression = args.value("compression");
    if (args.isSet("party-compression")) s.partyCompression = args.value("party-compression");
    if (args.isSet("fault-policy")) s.faultPolicy = args.value("fault-policy");
    if (args.isSet("transport-security")) s.transportSecurity = args.value("transport-security");  // (checked with the topology)
    if (args.isSet("flat")) s.hierarchy = QStringLiteral("flat");
    if (args.isSet("servers")) {
        const int count = args.value("servers").toInt(&ok);
        if (!ok)
            return QStringLiteral("--servers takes a count of servers per party, e.g. --servers 2; got '%1'").arg(args.value("servers"));
        if (const QString e = edits::setServerCount(t, count); !e.isEmpty()) return QStringLiteral("--servers: ") + e;
    }
    if (args.isSet("slice-bound")) {
        s.sliceBound = args.value("slice-bound").toInt(&ok);
        if (!ok || s.sliceBound < 1) return QStringLiteral("--slice-bound must be a positive number of floats");
    }
    if (args.isSet("wan")) {  // every party but the central one
        const QStringList parts = args.value("wan").split(',');
        bool okRate = false, okDelay = true;
        const WanLink wan{parts.value(0).toDouble(&okRate), parts.size() > 1 ? parts[1].toDouble(&okDelay) : 0.0};
        if (!okRate || !okDelay || parts.size() > 2 || !(wan.bandwidthMbps > 0) || !(wan.latencyMs >= 0) ||
            !std::isfinite(wan.bandwidthMbps) || !std::isfinite(wan.latencyMs))
            return QStringLiteral("--wan takes MBPS[,MS], e.g. --wan 5,50 (5 Mbit/s, 50 ms); got '%1'").arg(args.value("wan"));
        for (Party& p : t.parties)
            if (!p.central) p.wan = wan;
    }
    if (args.isSet("proximal-mu")) {
        s.proximalMu = args.value("proximal-mu").toDouble(&ok);
        if (!ok || !(s.proximalMu >= 0) || !std::isfinite(s.proximalMu)) return QStringLiteral("--proximal-mu must be a number >= 0");
    }
    if (args.isSet("orphan-timeout")) {
        s.orphanTimeoutS = args.value("orphan-timeout").toInt(&ok);
        if (!ok || s.orphanTimeoutS < 0 || s.orphanTimeoutS > 604800)
            return QStringLiteral("--orphan-timeout takes seconds from 0 to 604800; got '%1'").arg(args.value("orphan-timeout"));
    }
    if (args.isSet("agent-timeout")) {
        s.agentTimeoutS = args.value("agent-timeout").toInt(&ok);
        if (!ok || s.agentTimeoutS < 3 || s.agentTimeoutS > 3600)
            return QStringLiteral("--agent-timeout takes seconds from 3 to 3600; got '%1'").arg(args.value("agent-timeout"));
    }
    if (args.isSet("partition")) s.partition = args.value("partition");
    if (const QString e = applyDevices(args.values("device"), args.values("server-device"), t); !e.isEmpty()) return e;
    for (const QString& setting : args.values("param")) {
        const qsizetype eq = setting.indexOf('=');
        const double value = eq > 0 ? setting.mid(eq + 1).toDouble(&ok) : 0;
        if (eq <= 0 || !ok || !std::isfinite(value))
            return QStringLiteral("--param takes NAME=NUMBER, e.g. --param dc_lambda=0.04; got '%1'").arg(setting);
        s.params.insert(setting.left(eq), value);
    }
    if (args.isSet("dataset")) s.dataset = args.value("dataset");
    if (args.isSet("data-dir")) s.dataDir = args.value("data-dir");
    if (!findStrategy(DatasetRegistry::all(), s.dataset))
        return QStringLiteral("--dataset %1 is not known; use one of: %2")
            .arg(s.dataset, strategyNames(DatasetRegistry::all()).join(QStringLiteral(", ")));
    if (!args.isSet("model")) return {};
    const QString model = args.value("model");
    if (QFileInfo(model).isFile()) {  // a TorchScript file saved from PyTorch
        s.model = QString::fromLatin1(TrainingSettings::kTorchScript);
        s.modelFile = QFileInfo(model).absoluteFilePath();
        s.modelSha256.clear();
        s.modelTensors.clear();
        return {};
    }
    if (!findStrategy(ModelRegistry::all(), model))
        return QStringLiteral("--model %1 is not a built-in model (%2) nor a TorchScript file")
            .arg(model, strategyNames(ModelRegistry::all()).join(QStringLiteral(", ")));
    s.model = model;
    s.modelFile.clear();
    return {};
}

void addOverrideOptions(QCommandLineParser& args) {
    for (const Override& o : kOverrides) args.addOption({o.name, o.help, o.value});
}

QStringList overridesGiven(const QCommandLineParser& args) {
    QStringList given;
    for (const Override& o : kOverrides)
        if (args.isSet(o.name)) given << QStringLiteral("--") + QLatin1String(o.name);
    const QStringList others = QStringLiteral(
                                   "mode aggregation party-aggregation server-optimizer compression party-compression fault-policy "
                                   "transport-security flat servers slice-bound wan proximal-mu orphan-timeout agent-timeout "
                                   "partition device server-device param data-dir")
                                   .split(QLatin1Char(' '));
    for (const QString& name : others)
        if (args.isSet(name)) given << QStringLiteral("--") + name;
    return given;
}

}  // namespace hips
