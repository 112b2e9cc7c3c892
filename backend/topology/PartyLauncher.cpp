#include "PartyLauncher.h"

#include "FieldRules.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QRegularExpression>

namespace hips {

const StrategyList& launcherRegistry() {
    using T = ParamSpec::Type;
    static const StrategyList list{
        {QStringLiteral("ssh"),
         QStringLiteral("an agent deployed over SSH to each of the party's hosts (or this machine); the default"),
         {}},
        {QStringLiteral("slurm"),
         QStringLiteral("one sbatch job submitted from `login_host` (or this machine) to `partition` under `account`, with "
                        "`time_limit` and `sbatch_options`; its allocated nodes are the party's hosts, its agents installed in "
                        "`install_dir` (shared with the nodes)"),
         {{QStringLiteral("nodes"), T::Integer, 1, 1024, 1, QStringLiteral("nodes of the job; each of the party's hosts is one")},
          {QStringLiteral("tasks_per_node"), T::Integer, 1, 1024, 1, QStringLiteral("Slurm tasks (CPUs) per node")},
          {QStringLiteral("gpus_per_node"), T::Integer, 0, 64, 0, QStringLiteral("GPUs per node (--gres=gpu:N), the roles' cuda:0…")},
          {QStringLiteral("queue_patience_s"), T::Integer, 1, 7 * 86400, 3600,
           QStringLiteral("seconds the job may wait in the queue before the run gives up")}}}};
    return list;
}

static int launcherInt(JsonFields& f, const QString& name) {
    const ParamSpec* spec = launcherRegistry().at(1).param(name);
    return f.integer(name, int(spec->defaultValue), int(spec->min), int(spec->max));
}

const QStringList& allowedSbatchOptions() {
    static const QStringList names{"--qos",           "--constraint",  "--exclusive", "--mem",     "--mem-per-cpu", "--mem-per-gpu",
                                   "--cpus-per-task", "--reservation", "--nodelist",  "--exclude", "--comment",     "--licenses",
                                   "--mail-type",     "--mail-user",   "--gpus",      "--begin",   "--wckey",       "--priority"};
    return names;
}

QString sbatchOptionProblem(const QString& option) {
    static const QRegularExpression form(QStringLiteral(R"(^(--[a-z-]+)(=([A-Za-z0-9_.,:@+/\-\[\]]{1,200}))?$)"));
    const QRegularExpressionMatch m = form.match(option);
    if (!m.hasMatch())
        return QCoreApplication::translate("TopologyCheck", "'%1' is not of the form --name=value (letters, digits and _.,:@+/-[] only)")
            .arg(option.left(80));
    if (!allowedSbatchOptions().contains(m.captured(1)))
        return QCoreApplication::translate("TopologyCheck", "%1 is not an sbatch option a launcher may add; use one of: %2")
            .arg(m.captured(1), allowedSbatchOptions().join(QStringLiteral(", ")));
    return {};
}

static QStringList stringList(JsonFields& f, const QString& key) {
    QStringList out;
    const auto a = f.array(key);
    if (!a) return out;
    for (int i = 0; i < a->size() && i < 64; ++i) {
        if (!a->at(i).isString()) {
            f.issue(key, QCoreApplication::translate("TopologyCheck", "must be a list of strings such as \"--qos=normal\""));
            return {};
        }
        out << a->at(i).toString();
    }
    if (a->size() > 64) f.issue(key, QCoreApplication::translate("TopologyCheck", "at most 64 options"));
    return out;
}

std::optional<SlurmLauncher> readLauncher(JsonFields& party) {
    const auto o = party.object(QStringLiteral("launcher"));
    if (!o) return std::nullopt;
    JsonFields f(*o, party.path(QStringLiteral("launcher")), party.issues());
    const QString kind = f.choice(QStringLiteral("kind"), QStringLiteral("ssh"), {QStringLiteral("ssh"), QStringLiteral("slurm")});
    if (kind == QLatin1String("ssh")) {
        f.rejectUnknown({QStringLiteral("kind")}, QCoreApplication::translate("TopologyCheck", "ssh launcher field"));
        return std::nullopt;
    }
    f.rejectUnknown({"kind", "login_host", "partition", "account", "nodes", "tasks_per_node", "gpus_per_node", "time_limit",
                     "sbatch_options", "install_dir", "queue_patience_s"},
                    QCoreApplication::translate("TopologyCheck", "slurm launcher field"));
    SlurmLauncher s;
    s.loginHost = f.string(QStringLiteral("login_host"), {});
    s.partition = f.string(QStringLiteral("partition"), {});
    s.account = f.string(QStringLiteral("account"), {});
    s.nodes = launcherInt(f, QStringLiteral("nodes"));
    s.tasksPerNode = launcherInt(f, QStringLiteral("tasks_per_node"));
    s.gpusPerNode = launcherInt(f, QStringLiteral("gpus_per_node"));
    s.timeLimit = f.string(QStringLiteral("time_limit"), {});
    s.sbatchOptions = stringList(f, QStringLiteral("sbatch_options"));
    s.installDir = f.string(QStringLiteral("install_dir"), s.installDir);
    s.queuePatienceS = launcherInt(f, QStringLiteral("queue_patience_s"));
    return s;
}

QJsonObject launcherJson(const SlurmLauncher& s) {
    QJsonObject o{{"kind", "slurm"}, {"nodes", s.nodes}};
    if (!s.loginHost.isEmpty()) o.insert("login_host", s.loginHost);
    if (!s.partition.isEmpty()) o.insert("partition", s.partition);
    if (!s.account.isEmpty()) o.insert("account", s.account);
    if (s.tasksPerNode != 1) o.insert("tasks_per_node", s.tasksPerNode);
    if (s.gpusPerNode != 0) o.insert("gpus_per_node", s.gpusPerNode);
    if (!s.timeLimit.isEmpty()) o.insert("time_limit", s.timeLimit);
    if (!s.sbatchOptions.isEmpty()) o.insert("sbatch_options", QJsonArray::fromStringList(s.sbatchOptions));
    if (s.installDir != QLatin1String("~/.hips")) o.insert("install_dir", s.installDir);
    if (s.queuePatienceS != 3600) o.insert("queue_patience_s", s.queuePatienceS);
    return o;
}

QStringList partyHosts(const Party& p) {
    QStringList hosts;
    const auto add = [&](const QString& h) {
        if (!h.isEmpty() && !hosts.contains(h)) hosts << h;
    };
    if (p.scheduler) add(p.scheduler->host);
    if (p.stateService) add(p.stateService->host);
    for (const ListeningRole& s : p.servers) add(s.host);
    if (p.masterWorker) add(p.masterWorker->host);
    for (const WorkerGroup& g : p.workers) add(g.host);
    return hosts;
}

const Party* slurmPartyOf(const Topology& t, const QString& host) {
    for (const Party& p : t.parties)
        if (p.slurm && partyHosts(p).contains(host)) return &p;
    return nullptr;
}

QSet<QString> hostsWithoutSshAgent(const Topology& t) {
    QSet<QString> roleHosts, out;
    for (const Party& p : t.parties)
        for (const QString& h : partyHosts(p)) (p.slurm ? out : roleHosts).insert(h);
    for (const Party& p : t.parties)
        if (p.slurm && !p.slurm->loginHost.isEmpty() && !roleHosts.contains(p.slurm->loginHost)) out.insert(p.slurm->loginHost);
    return out;
}

static bool safeName(const QString& s) {
    static const QRegularExpression form(QStringLiteral(R"(^[A-Za-z0-9_.\-]{1,64}$)"));
    return s.isEmpty() || form.match(s).hasMatch();
}

static void checkLauncher(const Topology& t, int index, TopologyIssues* issues) {
    const Party& p = t.parties[index];
    const SlurmLauncher& s = *p.slurm;
    const QString path = QStringLiteral("$.parties[%1].launcher").arg(index);
    const auto add = [&](const QString& field, const QString& text) { issues->append({path + '.' + field, text}); };
    if (p.central)
        add(QStringLiteral("kind"),
            QCoreApplication::translate("TopologyCheck",
                                        "the central party runs over SSH or on this machine (its master's model comes back over SSH); "
                                        "give a Slurm launcher to another party"));
    if (!s.loginHost.isEmpty() && !t.host(s.loginHost))
        add(QStringLiteral("login_host"),
            QCoreApplication::translate("TopologyCheck", "host '%1' is not declared in $.hosts; add it there or fix the name")
                .arg(s.loginHost));
    for (const auto& [field, value] : {std::pair{QStringLiteral("partition"), s.partition}, {QStringLiteral("account"), s.account}})
        if (!safeName(value))
            add(field,
                QCoreApplication::translate("TopologyCheck", "'%1' is not a Slurm name (letters, digits, _ . - only)").arg(value.left(80)));
    static const QRegularExpression time(QStringLiteral(R"(^(\d{1,3}-)?\d{1,3}:\d{2}:\d{2}$)"));
    if (!s.timeLimit.isEmpty() && !time.match(s.timeLimit).hasMatch())
        add(QStringLiteral("time_limit"),
            QCoreApplication::translate("TopologyCheck", "'%1' is not a time limit; write HH:MM:SS or D-HH:MM:SS")
                .arg(s.timeLimit.left(40)));
    for (const QString& option : s.sbatchOptions)
        if (const QString e = sbatchOptionProblem(option); !e.isEmpty()) add(QStringLiteral("sbatch_options"), e);
    static const QRegularExpression plainPath(QStringLiteral(R"(^[A-Za-z0-9_.~/+\-]{1,1024}$)"));
    if (!plainPath.match(s.installDir).hasMatch())  // (it is written into #SBATCH lines)
        add(QStringLiteral("install_dir"),
            QCoreApplication::translate("TopologyCheck", "'%1' is not a plain path (letters, digits and _.~/+- only)")
                .arg(s.installDir.left(80)));
    // (A relative one was read from the job's folder by Slurm and from the login shell's by us:
    // the job's log went elsewhere, its agents were not found, and hips stop never matched it.)
    else if (!s.installDir.startsWith(QLatin1Char('/')) && s.installDir != QLatin1String("~") &&
             !s.installDir.startsWith(QLatin1String("~/")))
        add(QStringLiteral("install_dir"),
            QCoreApplication::translate("TopologyCheck",
                                        "'%1' starts from neither / nor ~/ (the login user's home); write it from one of them")
                .arg(s.installDir.left(80)));
    const QStringList hosts = partyHosts(p);
    if (hosts.size() > s.nodes)
        add(QStringLiteral("nodes"),
            QCoreApplication::translate("TopologyCheck",
                                        "the party's roles name %1 hosts (%2) and the job asks for %3 nodes; each host is one node: "
                                        "raise nodes or place the roles on fewer hosts")
                .arg(hosts.size())
                .arg(hosts.join(QStringLiteral(", ")))
                .arg(s.nodes));
    for (const Party& other : t.parties) {
        if (other.id == p.id) continue;
        for (const QString& h : partyHosts(other))
            if (hosts.contains(h))
                add(QStringLiteral("kind"),
                    QCoreApplication::translate("TopologyCheck",
                                                "host '%1' runs roles of party %2 too; a Slurm party's hosts are its job's nodes: give "
                                                "it hosts of its own")
                        .arg(h, other.id));
        if (other.slurm && !other.slurm->loginHost.isEmpty() && hosts.contains(other.slurm->loginHost))
            add(QStringLiteral("kind"),
                QCoreApplication::translate("TopologyCheck", "host '%1' is party %2's login host; give this party hosts of its own")
                    .arg(other.slurm->loginHost, other.id));
    }
    if (hosts.contains(s.loginHost))
        add(QStringLiteral("login_host"),
            QCoreApplication::translate("TopologyCheck", "host '%1' runs this party's roles; the login host only submits the job")
                .arg(s.loginHost));
}

void checkLaunchers(const Topology& t, TopologyIssues* issues) {
    for (int i = 0; i < t.parties.size(); ++i)
        if (t.parties[i].slurm) checkLauncher(t, i, issues);
}

}  // namespace hips
