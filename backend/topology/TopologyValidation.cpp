// Semantic checks of a topology: the checks that need more than one field at a time.
#include "TopologyReader.h"
#include "TopologyWriter.h"

#include "AggregatorRegistry.h"
#include "DataValidation.h"
#include "RuleValidation.h"
#include "FaultPolicy.h"
#include "FedOptimizer.h"
#include "FieldRules.h"
#include "ClientSampling.h"
#include "PartyLauncher.h"
#include "PartyTransport.h"
#include "ModeConflicts.h"
#include "SecureAggregationCheck.h"
#include "ModeRegistry.h"
#include "ModelRegistry.h"
#include "Partition.h"
#include "ShardMap.h"
#include "TopologyLimits.h"

#include <algorithm>
#include <QCoreApplication>
#include <QHash>
#include <QRegularExpression>
#include <QSet>
#include <cmath>

namespace hips {

namespace {

class Validator {
public:
    explicit Validator(const Topology& t) : m_t(t) {}

    TopologyIssues run() {
        if (!checkLimits()) return m_issues;  // nothing else is looked at in a topology that large
        checkText("$.name", m_t.name, kMaxNameLength, QCoreApplication::translate("TopologyCheck", "the topology name"));
        checkHosts();
        checkParties();
        checkTraining();
        checkKeySlicing();
        checkData(m_t, &m_issues);
        return m_issues;
    }

private:
    void add(const QString& path, const QString& message) { m_issues.append({path, message}); }

    void addIf(const QString& path, const QString& problem) {
        if (!problem.isEmpty()) add(path, problem);
    }

    void checkText(const QString& path, const QString& text, qsizetype max, const QString& what) {
        addIf(path, textProblem(text, max, what));
    }

    void checkRange(const QString& path, int value, int min, int max, const QString& what) {
        if (value < min || value > max)
            add(path, QCoreApplication::translate("TopologyCheck", "%1 %2 is out of range; use an integer in [%3, %4]")
                          .arg(what, QString::number(value), QString::number(min), QString::number(max)));
    }

    // Counted, not expanded: nodes() of a hostile topology would build millions of entries.
    bool checkLimits() {
        const qint64 nodes = m_t.nodeCount();
        if (nodes > kMaxNodes)
            add("$.parties", QCoreApplication::translate("TopologyCheck",
                                                         "the topology holds %1 nodes; a topology may hold at most %2. "
                                                         "Use fewer workers, or split the setup into several topologies")
                                 .arg(nodes)
                                 .arg(kMaxNodes));
        if (m_t.parties.size() > kMaxParties)
            add("$.parties", QCoreApplication::translate("TopologyCheck",
                                                         "%1 parties; at most %2 are supported (each runs at least 3 of the "
                                                         "at most %3 processes); split the setup into several topologies")
                                 .arg(m_t.parties.size())
                                 .arg(kMaxParties)
                                 .arg(kMaxNodes));
        if (m_t.hosts.size() > kMaxHosts)
            add("$.hosts", QCoreApplication::translate("TopologyCheck",
                                                       "%1 hosts; at most %2 are supported; declare only the hosts that run processes")
                               .arg(m_t.hosts.size())
                               .arg(kMaxHosts));
        return m_issues.isEmpty();
    }

    void checkHostFields(int i) {
        const Host& h = m_t.hosts[i];
        const QString path = QStringLiteral("$.hosts[%1]").arg(i);
        const QString idIssue = idProblem(h.id, QCoreApplication::translate("TopologyCheck", "host id"));
        addIf(path + ".id", idIssue);
        const QString name = idIssue.isEmpty() ? QCoreApplication::translate("TopologyCheck", "host '%1'").arg(h.id)
                                               : QCoreApplication::translate("TopologyCheck", "this host");
        addIf(path + ".address", hostAddressProblem(h.address, name + QStringLiteral(": address")));
        checkRange(path + ".ssh_port", h.sshPort, 1, 65535, name + QStringLiteral(": ssh_port"));
        checkRange(path + ".agent_port", h.agentPort, 1024, 65535, name + QStringLiteral(": agent_port"));
        if (!h.user.isEmpty()) addIf(path + ".user", userNameProblem(h.user, name + QStringLiteral(": user")));
        checkText(path + ".identity_file", h.identityFile, kMaxPathLength, name + QStringLiteral(": identity_file"));
        checkText(path + ".install_dir", h.installDir, kMaxPathLength, name + QStringLiteral(": install_dir"));
    }

    // Roles on other machines cannot reach this one's loopback: a topology with remote hosts has
    // no loopback host (hips run refused it only at the start, after the designer called it valid).
    // (A Slurm party's hosts take their nodes' addresses, and a login host runs no role: neither counts.)
    void checkLoopbackBesideRemote() {
        const QSet<QString> noAgent = hostsWithoutSshAgent(m_t);
        const auto remote =
            std::find_if(m_t.hosts.begin(), m_t.hosts.end(), [&](const Host& h) { return !h.isLoopback() && !noAgent.contains(h.id); });
        if (remote == m_t.hosts.end()) return;
        for (int i = 0; i < m_t.hosts.size(); ++i)
            if (m_t.hosts[i].isLoopback() && !noAgent.contains(m_t.hosts[i].id))
                add(QStringLiteral("$.hosts[%1].address").arg(i),
                    QCoreApplication::translate("TopologyCheck",
                                                "host '%1' is this machine's loopback (%2) beside remote host '%3' (%4): roles on "
                                                "other machines cannot reach it; give it an address they can reach")
                        .arg(m_t.hosts[i].id, m_t.hosts[i].address, remote->id, remote->address));
    }

    void checkHosts() {
        QSet<QString> seen;
        for (int i = 0; i < m_t.hosts.size(); ++i) {
            checkHostFields(i);
            const QString& id = m_t.hosts[i].id;
            if (seen.contains(id))
                add(QStringLiteral("$.hosts[%1].id").arg(i),
                    QCoreApplication::translate("TopologyCheck", "duplicate host id '%1'; give every host its own id").arg(id));
            seen.insert(id);
        }
        if (m_t.hosts.isEmpty()) add("$.hosts", QCoreApplication::translate("TopologyCheck", "no hosts; declare at least one"));
        checkLoopbackBesideRemote();
        // Two deployed hosts on one machine each get an agent: they need their own port and directory.
        for (int i = 0; i < m_t.hosts.size(); ++i)
            for (int j = 0; j < i; ++j) {
                const Host &a = m_t.hosts[j], &b = m_t.hosts[i];
                if (a.address != b.address || a.isLoopback()) continue;
                if (a.agentPort == b.agentPort)
                    add(QStringLiteral("$.hosts[%1].agent_port").arg(i),
                        QCoreApplication::translate("TopologyCheck",
                                                    "hosts '%1' and '%2' share address %3 and agent_port %4; give each its own agent_port")
                            .arg(a.id, b.id, a.address, QString::number(a.agentPort)));
                if (a.installDir == b.installDir)
                    add(QStringLiteral("$.hosts[%1].install_dir").arg(i),
                        QCoreApplication::translate(
                            "TopologyCheck", "hosts '%1' and '%2' share address %3 and install_dir %4; give each its own install_dir")
                            .arg(a.id, b.id, a.address, a.installDir));
            }
    }

    void checkHostRef(const QString& path, const QString& host) {
        if (!host.isEmpty() && !m_t.host(host))
            add(path + ".host",
                QCoreApplication::translate("TopologyCheck", "host '%1' is not declared in $.hosts; add it there or fix the name")
                    .arg(host));
    }

    // A standby host (a global server's, the master's, the state service's): where the role starts
    // again when its own host is lost, under fault_policy continue. False when it is not declared
    // or is the role's own (nothing else to check).
    bool checkStandbyHost(const QString& field, const QString& standby, bool ownHost, const QString& ownHostProblem) {
        if (!m_t.host(standby)) {
            add(field, QCoreApplication::translate("TopologyCheck", "host '%1' is not declared in $.hosts; add it there or fix the name")
                           .arg(standby));
            return false;
        }
        if (ownHost) {  // (its port there is its own: nothing more to say)
            add(field, ownHostProblem);
            return false;
        }
        if (!m_t.training.continuesThroughFailures())
            add(field, QCoreApplication::translate("TopologyCheck",
                                                   "a standby host takes over only under fault_policy continue; "
                                                   "set it, or remove standby_host"));
        return true;
    }

    // The master's standby host: it starts there and evaluates from the newest model on.
    void checkMasterStandby(const QString& path, const WorkerGroup& master) {
        checkStandbyHost(path + QStringLiteral(".standby_host"), master.standbyHost, master.standbyHost == master.host,
                         QCoreApplication::translate("TopologyCheck", "the standby host is the master's own host '%1'; name another host")
                             .arg(master.host));
    }

    // The state service's standby host: a new service there learns the workers from their next
    // steps (it keeps nothing worth a copy). Its port must be free there too.
    void checkStateServiceStandby(const QString& path, const Party& party, const ListeningRole& service) {
        const QString field = path + QStringLiteral(".standby_host");
        if (!checkStandbyHost(
                field, service.standbyHost, service.standbyHost == service.host,
                QCoreApplication::translate("TopologyCheck", "the standby host is the state service's own host '%1'; name another host")
                    .arg(service.host)))
            return;
        claimStandbyPort(field, party, service, QStringLiteral("state_service"));
    }

    void claimStandbyPort(const QString& field, const Party& party, const ListeningRole& role, const QString& roleName) {
        const QString key = m_t.host(role.standbyHost)->address + ':' + QString::number(role.port);
        if (m_ports.contains(key))
            add(field,
                QCoreApplication::translate("TopologyCheck", "port %1 on the standby host '%2' is already used by %3; choose a free port")
                    .arg(role.port)
                    .arg(role.standbyHost, m_ports.value(key)));
        else m_ports.insert(key, party.id + ' ' + roleName + QStringLiteral(" (standby)"));
    }

    // A global server's standby host: it starts there from the copy of its recovery point the
    // global scheduler keeps. Its port must be free there too.
    void checkStandby(const QString& path, const Party& party, const ListeningRole& server) {
        const QString field = path + QStringLiteral(".standby_host");
        if (!checkStandbyHost(
                field, server.standbyHost, server.standbyHost == server.host,
                QCoreApplication::translate("TopologyCheck", "the standby host is the server's own host '%1'; name another host")
                    .arg(server.host)))
            return;
        // (The server and its standby swap roles when it moves, so neither may be the scheduler's.)
        for (const QString& host : {server.host, server.standbyHost})
            if (party.scheduler && party.scheduler->host == host)
                add(field, QCoreApplication::translate("TopologyCheck",
                                                       "the global scheduler keeps the copy of the model a standby starts from, "
                                                       "and it runs on '%1', which a lost host would take with it: put the global "
                                                       "scheduler on a host that is neither the global server's nor its standby's")
                               .arg(host));
        claimStandbyPort(field, party, server, QStringLiteral("global_servers"));
    }

    void checkDevice(const QString& path, const QString& device) {
        static const QRegularExpression re(QStringLiteral("^(cpu|cuda(:[0-9]+)?)$"));
        if (!re.match(device).hasMatch())
            add(path + ".device", QCoreApplication::translate("TopologyCheck", "'%1' is not a device; use cpu or cuda:N").arg(device));
    }

    void checkPort(const QString& path, const Party& party, const ListeningRole& role, const QString& what) {
        checkHostRef(path, role.host);
        checkDevice(path, role.device);
        checkRange(path + ".port", role.port, 1024, 65535, QStringLiteral("port"));
        const Host* h = m_t.host(role.host);
        const QString key = (h ? h->address : role.host) + ':' + QString::number(role.port);
        if (m_ports.contains(key))
            add(path + ".port",
                QCoreApplication::translate("TopologyCheck", "port %1 on host '%2' is already used by %3; choose a free port")
                    .arg(role.port)
                    .arg(role.host, m_ports.value(key)));
        else m_ports.insert(key, party.id + ' ' + what);
        // A deployed host's agent listens on its agent_port (on every address): a role there could not bind.
        for (const Host& other : m_t.hosts)
            if (h && !h->isLoopback() && other.address == h->address && other.agentPort == role.port)
                add(path + ".port",
                    QCoreApplication::translate("TopologyCheck",
                                                "port %1 on host '%2' is where hips-agent listens (agent_port of host '%3'); "
                                                "choose another port")
                        .arg(role.port)
                        .arg(role.host, other.id));
    }

    void checkParties() {
        QSet<QString> ids;
        int centrals = 0;
        for (int i = 0; i < m_t.parties.size(); ++i) {
            const Party& p = m_t.parties[i];
            const QString path = QStringLiteral("$.parties[%1]").arg(i);
            if (ids.contains(p.id))
                add(path + ".id",
                    QCoreApplication::translate("TopologyCheck", "duplicate party id '%1'; give every party its own id").arg(p.id));
            ids.insert(p.id);
            addIf(path + ".id", idProblem(p.id, QCoreApplication::translate("TopologyCheck", "party id")));
            centrals += p.central;
            checkRoles(p, path + ".roles");
        }
        if (centrals == 0)
            add("$.parties", QCoreApplication::translate("TopologyCheck",
                                                         "no central party; mark the party holding the global scheduler, "
                                                         "global server and master worker with \"central\": true"));
        if (centrals > 1)
            add("$.parties",
                QCoreApplication::translate("TopologyCheck", "%1 parties are marked central; exactly one must be").arg(centrals));
        if (m_t.parties.size() - centrals < 1)
            add("$.parties", QCoreApplication::translate(
                                 "TopologyCheck", "no ordinary party; add at least one party with a scheduler, a server and workers"));
    }

    void checkRoles(const Party& p, const QString& path) {
        const QString sched = p.central ? "global_scheduler" : "scheduler";
        const QString servers = p.central ? "global_servers" : "servers";
        if (!p.scheduler) add(path, QCoreApplication::translate("TopologyCheck", "party '%1' has no %2; add one").arg(p.id, sched));
        else checkPort(path + '.' + sched, p, *p.scheduler, sched);
        if (p.servers.isEmpty() && !p.collective())  // (a collective party's workers sum among themselves)
            add(path, QCoreApplication::translate("TopologyCheck", "party '%1' has no %2; add one").arg(p.id, servers));
        if (p.servers.size() > kMaxServersPerParty)
            add(path + '.' + servers, QCoreApplication::translate("TopologyCheck", "%1 %2 given; a party runs at most %3")
                                          .arg(p.servers.size())
                                          .arg(servers)
                                          .arg(kMaxServersPerParty));
        for (int i = 0; i < p.servers.size(); ++i) {
            checkPort(QStringLiteral("%1.%2[%3]").arg(path, servers).arg(i), p, p.servers[i], servers);
            if (!p.servers[i].standbyHost.isEmpty()) checkStandby(QStringLiteral("%1.%2[%3]").arg(path, servers).arg(i), p, p.servers[i]);
        }
        if (p.stateService) {
            checkPort(path + ".state_service", p, *p.stateService, QStringLiteral("state_service"));
            if (!p.stateService->standbyHost.isEmpty()) checkStateServiceStandby(path + ".state_service", p, *p.stateService);
        }
        if (p.central && !p.stateService && ModeRegistry::policy(m_t.training.mode).stateService)
            add(path, QCoreApplication::translate("TopologyCheck",
                                                  "mode %1 needs a state service in the central party '%2': add "
                                                  "\"state_service\": {\"port\": N} to its roles")
                          .arg(m_t.training.mode, p.id));
        if (p.central && !p.masterWorker)
            add(path, QCoreApplication::translate("TopologyCheck", "the central party '%1' has no master_worker; add one").arg(p.id));
        if (p.masterWorker) {
            checkHostRef(path + ".master_worker", p.masterWorker->host);
            checkDevice(path + ".master_worker", p.masterWorker->device);
            if (!p.masterWorker->standbyHost.isEmpty()) checkMasterStandby(path + ".master_worker", *p.masterWorker);
        }
        for (int i = 0; i < p.workers.size(); ++i) {
            checkHostRef(QStringLiteral("%1.workers[%2]").arg(path).arg(i), p.workers[i].host);
            checkDevice(QStringLiteral("%1.workers[%2]").arg(path).arg(i), p.workers[i].device);
            checkRange(QStringLiteral("%1.workers[%2].count").arg(path).arg(i), p.workers[i].count, 0, kMaxWorkersPerGroup,
                       QStringLiteral("count"));
        }
        if (!p.central && p.workerCount() == 0)
            add(path + ".workers",
                QCoreApplication::translate("TopologyCheck", "party '%1' has no workers; add a group with count >= 1").arg(p.id));
    }

    void checkTraining() {
        const TrainingSettings& s = m_t.training;
        checkText("$.training.data_dir", s.dataDir, kMaxPathLength, QStringLiteral("data_dir"));
        // Checked here, not only when a file is read: the designer edits a topology in memory.
        if ((s.localIters > 0) == (s.localEpochs > 0))
            add("$.training.local_iters",
                QCoreApplication::translate("TopologyCheck", "set exactly one of local_iters and local_epochs above 0"));
        checkRules(m_t, &m_issues);
        if (s.adversary && s.adversary->count > m_t.trainingWorkerCount())
            add("$.training.adversary.count",
                QCoreApplication::translate("TopologyCheck", "%1 attackers a round, but the run has %2 training workers")
                    .arg(s.adversary->count)
                    .arg(m_t.trainingWorkerCount()));
        if (s.resumeRound >= s.rounds)
            add("$.training.resume_round", QCoreApplication::translate("TopologyCheck",
                                                                       "resume_round (%1) must be below rounds (%2): a run resumes "
                                                                       "from a checkpoint before its end")
                                               .arg(s.resumeRound)
                                               .arg(s.rounds));
    }

    // Several servers per tier cut the model's keys between them (ShardMap): each party server
    // relays its shard to the global server of the same rank, and each server aggregates its
    // shard on its own. What would then differ from one server is refused, naming the way out.
    void checkKeySlicing() {
        const Party* central = m_t.centralParty();
        if (!central) return;
        const qsizetype globals = central->servers.size();
        bool sliced = globals > 1;
        if (!m_t.training.flat())
            for (int i = 0; i < m_t.parties.size(); ++i) {
                const Party& p = m_t.parties[i];
                if (p.central || p.servers.isEmpty() || p.collective()) continue;
                sliced = sliced || p.servers.size() > 1;
                if (p.servers.size() != globals)
                    add(QStringLiteral("$.parties[%1].roles.servers").arg(i),
                        QCoreApplication::translate("TopologyCheck",
                                                    "party '%1' has %2 servers and the central party %3 global servers; "
                                                    "each party server relays its slice of the model to the global server "
                                                    "of the same rank: give every party as many servers as there are global servers")
                            .arg(p.id)
                            .arg(p.servers.size())
                            .arg(globals));
            }
        if (!sliced) return;
        const TrainingSettings& s = m_t.training;
        if (!ModeRegistry::policy(s.mode).resumable())
            add("$.training.mode", QCoreApplication::translate("TopologyCheck",
                                                               "mode %1 applies each push as it comes, and every server would count "
                                                               "its own versions, so a model put together from several servers "
                                                               "would mix them: run %1 with one server per party")
                                       .arg(s.mode));
        const auto wholeUpdates = [](const QString& rule) {
            const auto r = AggregatorRegistry::create(rule);
            return r && r->comparesWholeUpdates();
        };
        if (wholeUpdates(s.aggregation) && globals > 1)
            add("$.training.aggregation", QCoreApplication::translate("TopologyCheck",
                                                                      "%1 compares whole updates, and each of the %2 global servers "
                                                                      "holds only a slice of them: use one global server, or a "
                                                                      "coordinate-wise rule (fedavg, mean, median, trimmed_mean)")
                                              .arg(s.aggregation)
                                              .arg(globals));
        if (wholeUpdates(s.partyAggregation) && !s.flat())
            add("$.training.party_aggregation", QCoreApplication::translate("TopologyCheck",
                                                                            "%1 compares whole updates, and each party server "
                                                                            "holds only a slice of them: use one server per party, or a "
                                                                            "coordinate-wise rule (fedavg, mean, median, trimmed_mean)")
                                                    .arg(s.partyAggregation));
        if (s.privacy && s.privacy->atParty() && !s.flat())
            add("$.training.privacy.where", QCoreApplication::translate("TopologyCheck",
                                                                        "privacy where \"party\" clips each worker's whole update by its "
                                                                        "norm, and each party server holds only a slice of it: use one "
                                                                        "server per party"));
        if (s.continuesThroughFailures())
            add("$.training.fault_policy", QCoreApplication::translate("TopologyCheck",
                                                                       "under fault_policy continue each server would close "
                                                                       "its round with the workers it heard from, so the slices of one "
                                                                       "model could come from different workers: use fault_policy "
                                                                       "fail, or one server per party"));
        const ShardMap map(KeyLayout::ofModel(s.modelSpec()), int(globals), size_t(std::max(s.sliceBound, 1)));
        for (int i = 0; i < map.servers() && map.total() > 0; ++i)
            if (map.shardSize(i) == 0) {
                add("$.training.slice_bound", QCoreApplication::translate("TopologyCheck",
                                                                          "with slice_bound %1, server %2 of %3 would hold none "
                                                                          "of model %4's keys: lower slice_bound, or run fewer servers")
                                                  .arg(s.sliceBound)
                                                  .arg(i)
                                                  .arg(map.servers())
                                                  .arg(s.model));
                break;
            }
        if (s.param(QStringLiteral("quorum")) > 0)
            add("$.training.quorum", QCoreApplication::translate("TopologyCheck",
                                                                 "a quorum lets each server close its round with different "
                                                                 "contributions, so the slices of one model would come from different "
                                                                 "workers: remove quorum, or use one server per party"));
    }

    const Topology& m_t;
    TopologyIssues m_issues;
    QHash<QString, QString> m_ports;  // "address:port" -> who uses it
};

}  // namespace

TopologyIssues TopologyReader::checkTopology(const Topology& topology) {
    return Validator(topology).run();
}

TopologyIssues TopologyReader::validate(const Topology& topology) {
    TopologyIssues issues = checkTopology(topology);
    // A topology made or changed in memory (the designer, hips run's options) is held to the
    // fields' ranges too, as every agent will read it: its JSON, read back. (`hips run --lr 200`
    // passed here and was refused by the first role to start.)
    if (issues.isEmpty()) {
        std::optional<Topology> draft;
        issues = readDocument(TopologyWriter::toJson(topology), &draft);
    }
    return presentableIssues(issues);
}

}  // namespace hips
