#include "SchedulerRole.h"

#include "Channel.h"
#include "GlobalPolicies.h"
#include "PartyTransport.h"
#include "PrintableText.h"
#include "RecoveryCopy.h"
#include "RoleError.h"
#include "RoundCollector.h"
#include "SchedulerIncarnations.h"
#include "ShardedLinks.h"
#include "Vocabulary.h"
#include "RoleScope.h"

#include <QCborArray>
#include <QHash>
#include <QSet>
#include <cstdio>
#include <optional>
#include <set>
#include <utility>

namespace hips {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

QList<Node> membersOf(const Topology& topology, const Node& scheduler) {
    QList<Node> out;
    for (const Node& n : topology.nodes()) {
        const bool mine = scheduler.kind == RoleKind::GlobalScheduler
                              ? (n.kind == RoleKind::GlobalServer || n.kind == RoleKind::MasterWorker || n.kind == RoleKind::Server ||
                                 (n.kind == RoleKind::Worker && (n.party == scheduler.party || topology.training.flat())) ||
                                 pushesForItsParty(topology, n))  // a collective party's in place of its server
                              : (n.party == scheduler.party && (n.kind == RoleKind::Server || n.kind == RoleKind::Worker));
        if (mine) out.append(n);
    }
    return out;
}

namespace {

class Scheduler {
public:
    explicit Scheduler(RoleContext& ctx) : m_ctx(ctx), m_channel(Channel::router(ctx.zmq, ctx.node.id, bindEndpoint(ctx))) {
        for (const Node& n : membersOf(ctx.topology, ctx.node)) m_expected.insert(n.id, n);
    }

    int run() {
        const auto registerDeadline = Clock::now() + m_ctx.replyTimeout();
        auto lastPass = Clock::now();
        while (!everyoneDone()) {
            if (auto e = m_channel.receive(200ms)) {
                handle(*e);
                handleWaiting();
            }
            if (m_aborted) return kRoleFailed;
            discountOwnStall(std::exchange(lastPass, Clock::now()));
            if (!m_tableSent && Clock::now() > registerDeadline) return abort(missingText());
            if (!m_tableSent) continue;
            for (const QString& dead : deadNodes()) {
                const QString evidence = QStringLiteral("node %1 sent no heartbeat for %2 s; it is dead or hung — see its log")
                                             .arg(dead)
                                             .arg(m_ctx.training().heartbeatTimeoutS);
                if (!m_ctx.training().continuesThroughFailures()) return abort(evidence);
                if (const QString shortage = markDown(dead, evidence); !shortage.isEmpty()) return abort(shortage);
            }
        }
        m_ctx.metrics.report(metric::kSchedulerDone, {{QStringLiteral("nodes"), m_expected.size()},
                                                      {QStringLiteral("byes"), m_byes.size()},
                                                      {QStringLiteral("down"), m_down.size()}});
        return kRoleOk;
    }

private:
    static QString bindEndpoint(const RoleContext& ctx) { return ctx.topology.endpoint(ctx.node); }

    void handle(const Envelope& e) {
        if (!m_expected.contains(e.peer) && !admitsStandIn(e)) {
            m_log.reject(e.peer, QStringLiteral("'%1' from a node that is not a member here").arg(e.message.type));
            return;
        }
        const QString& type = e.message.type;
        const qint64 incarnation = e.message.integer(QStringLiteral("incarnation"));
        const SchedulerIncarnations::Verdict verdict =
            type == message::kRegister ? m_incarnations.registration(e.peer, incarnation, e.message.integer(QStringLiteral("placement"), 0))
                                       : m_incarnations.message(e.peer, incarnation);
        if (verdict == SchedulerIncarnations::Verdict::Superseded) return supersede(e);
        m_incarnations.heardOn(e.peer, e.route);
        m_lastSeen[e.peer] = Clock::now();
        m_heard.insert(e.peer);
        if (type == message::kHeartbeat && !m_endpoints.contains(e.peer)) return askToRejoin(e.peer);
        if (m_down.contains(e.peer) && type != message::kRegister) markUp(e.peer, QStringLiteral("heartbeats again"));
        if (type == message::kRegister) onRegister(e, verdict == SchedulerIncarnations::Verdict::Replaces);
        else if (type == message::kBarrier) onBarrier(e);
        else if (type == message::kBye) m_byes.insert(e.peer);
        else if (type == message::kRecoveryPoint) onRecoveryPoint(e);
    }

    // fault_policy continue: a collective party whose pushing worker was lost pushes through the
    // lowest of its workers left (PartyCollective.h), which registers here in the first one's place.
    // A heartbeat from one means this scheduler was restarted after it stood in: it is asked to
    // register again, as every member is (until 2026-12-02 each of its heartbeats was refused).
    bool admitsStandIn(const Envelope& e) {
        const bool registers = e.message.type == message::kRegister && m_tableSent;
        if (m_ctx.node.kind != RoleKind::GlobalScheduler || !(registers || e.message.type == message::kHeartbeat) ||
            !m_ctx.training().continuesThroughFailures())
            return false;
        const std::optional<Node> node = m_ctx.topology.node(e.peer);
        const Party* party = node ? m_ctx.topology.party(node->party) : nullptr;
        if (!party || node->kind != RoleKind::Worker || !party->collective()) return false;
        for (auto it = m_expected.cbegin(); it != m_expected.cend(); ++it)
            if (it->party == node->party && pushesForItsParty(m_ctx.topology, *it)) {
                m_standsFor.insert(e.peer, it.key());
                m_expected.insert(e.peer, *node);
                return true;
            }
        return false;
    }

    // A process of a node that another replaced (SchedulerIncarnations.h) is told to stop, on its
    // own connection; the node's messages then go to the one listened to again. Nothing it says
    // counts: a stale heartbeat would keep a dead node looking alive.
    void supersede(const Envelope& e) {
        m_log.reject(e.peer, QStringLiteral("a %1 from a process of it that another replaced; it is told to stop").arg(e.message.type));
        const QString reason = QStringLiteral("another process of %1, placed later, registered from %2")
                                   .arg(e.peer, m_endpoints.value(e.peer, QStringLiteral("another host")));
        sendTo(e.peer, Message(message::kSuperseded, {{QStringLiteral("reason"), reason}}));
        m_channel.routeTo(e.peer, m_incarnations.route(e.peer));
    }

    // A global server with a standby host keeps its recovery point here too (RecoveryCopy.h).
    void onRecoveryPoint(const Envelope& e) {
        const Node& server = m_expected[e.peer];
        if (server.kind != RoleKind::GlobalServer || server.standbyHost.isEmpty()) {
            m_log.reject(e.peer, QStringLiteral("a recovery point from a node that is not a global server with a standby host"));
            return;
        }
        const size_t floats = shardMapOf(m_ctx.training(), int(m_ctx.topology.centralParty()->servers.size())).shardSize(server.rank);
        if (const QString wrong = m_recovery.keep(e.peer, e.message, floats); !wrong.isEmpty()) {
            m_log.reject(e.peer, wrong);
            return;
        }
        sendTo(e.peer, Message(message::kRecoveryKept, {{QStringLiteral("version"), m_recovery.version(e.peer)}}));
    }

    // Members heartbeat only once they have a table, so a heartbeat from one that never registered
    // here means this scheduler was restarted (fault_policy continue): it takes up the run, and
    // each member registers again.
    // (Silences count only for members heard from since: one that said bye to our predecessor
    // never speaks again, and one that died meanwhile is restarted and registers.)
    void askToRejoin(const QString& peer) {
        if (!std::exchange(m_tableSent, true)) {
            m_tookOver = true;
            std::fprintf(roleErr(), "%s: restarted during the run; its members register again\n", qPrintable(m_ctx.node.id));
            // Those that registered first were restarted meanwhile: they wait for a table, and
            // their peers must learn that they lost what they held.
            for (const QString& id : m_endpoints.keys()) {
                m_restarted.insert(id);
                sendTable(id, /*late=*/true);
                markUp(id, QStringLiteral("restarted"), /*restarted=*/true);
            }
        }
        sendTo(peer, Message(message::kRejoin));
    }

    // What a member that rejoins is told of another: restarted (a new process), or rejoined.
    Message upMessage(const QString& node) const {
        const bool restarted = m_restarted.contains(node);
        Message up(message::kMemberUp, {{QStringLiteral("node"), node},
                                        {QStringLiteral("reason"), restarted ? QStringLiteral("restarted") : QStringLiteral("rejoined")},
                                        {QStringLiteral("restarted"), restarted},
                                        {QStringLiteral("endpoint"), m_endpoints.value(node)}});
        if (m_standsFor.contains(node)) up.fields.insert(QStringLiteral("stands_for"), m_standsFor.value(node));
        return up;
    }

    // `newProcess`: the first registration of this process here.
    void onRegister(const Envelope& e, bool newProcess) {
        // A registration said again while its node waits for the table: known here, it changes
        // nothing (the table crossed it, or all have not registered yet); unknown, it is news to
        // a restarted scheduler, whose predecessor took the first one along.
        if (e.message.fields.value(QStringLiteral("again")).toBool() && !newProcess && m_endpoints.contains(e.peer)) return;
        m_endpoints[e.peer] = e.message.string(QStringLiteral("endpoint"));
        m_settings[e.peer] = printableText(e.message.string(QStringLiteral("settings")), 300);
        if (m_tableSent && e.message.fields.value(QStringLiteral("rejoin")).toBool()) {
            takeWhoWasDown(e);
            // Alive all along: its server may have been told otherwise by our predecessor.
            if (m_down.contains(e.peer)) markUp(e.peer, QStringLiteral("heartbeats again"));
            else tellMembers(upMessage(e.peer), e.peer);
            // ... and it learns of those that came back before it was heard from, and who is down.
            for (auto it = m_endpoints.cbegin(); it != m_endpoints.cend(); ++it)
                if (it.key() != e.peer && !m_down.contains(it.key())) sendTo(e.peer, upMessage(it.key()));
            tellWhoIsDown(e.peer);
            return;
        }
        if (m_tableSent) {  // a restarted node rejoins, and its server learns it is back
            m_restarted.insert(e.peer);
            const QString standsFor = m_standsFor.value(e.peer);
            markUp(e.peer,
                   !standsFor.isEmpty()      ? QStringLiteral("pushes for %1 in place of %2").arg(m_expected[e.peer].party, standsFor)
                   : m_down.contains(e.peer) ? QStringLiteral("restarted")
                                             : QStringLiteral("restarted before it was found silent"),
                   /*restarted=*/true);
            sendTable(e.peer, /*late=*/true);
            tellWhoIsDown(e.peer);
            return;
        }
        if (m_endpoints.size() < m_expected.size()) return;
        if (const QString disagreement = settingsDisagreement(); !disagreement.isEmpty()) {
            m_tableSent = true;  // nobody waits for a table any more: they are told why
            abort(disagreement);
            m_aborted = true;
            return;
        }
        for (const QString& id : m_expected.keys()) sendTable(id);
        m_tableSent = true;
        // Nodes heartbeat only once they have the table: their silence counts from now.
        for (auto it = m_lastSeen.begin(); it != m_lastSeen.end(); ++it) it.value() = Clock::now();
        m_ctx.metrics.report(metric::kRendezvous, {{QStringLiteral("nodes"), m_expected.size()}});
    }

    // A member that registers again with this scheduler, restarted, says whom our predecessor
    // declared down (and not up since), of its own party: one not back here yet is down here too,
    // and one back already is told once that it was, as a node back from a silence is (markUp): a
    // collective party went on without it. (Only once a member, and only in a scheduler that took
    // the run up: elsewhere the list would let a member have another told to leave.)
    void takeWhoWasDown(const Envelope& e) {
        if (!m_tookOver || !m_downListFrom.insert(e.peer).second) return;
        const QCborArray down = e.message.fields.value(QStringLiteral("down")).toArray();
        const QString party = m_expected[e.peer].party;
        for (qsizetype i = 0; i < std::min<qsizetype>(down.size(), m_expected.size()); ++i) {
            const QString node = down[i].toString();
            const auto member = m_expected.constFind(node);
            if (member == m_expected.constEnd() || node == e.peer || member->party != party || m_down.contains(node) ||
                m_byes.contains(node) || m_restarted.contains(node) || m_toldItWasDown.contains(node))
                continue;
            const QString evidence =
                QStringLiteral("%1 declared it down before it was restarted, as %2 was told").arg(m_ctx.node.id, e.peer);
            std::fprintf(roleErr(), "%s: %s was declared down before this scheduler was restarted (%s was told so)%s\n",
                         qPrintable(m_ctx.node.id), qPrintable(node), qPrintable(e.peer),
                         m_endpoints.contains(node) ? "; it is back, and is told" : "");
            if (m_endpoints.contains(node)) {
                m_toldItWasDown.insert(node);
                sendTo(node, Message(message::kMemberDown, {{QStringLiteral("node"), node}, {QStringLiteral("reason"), evidence}}));
                continue;
            }
            m_down.insert(node);
            m_downEvidence.insert(node, evidence);
        }
    }

    // Mode, aggregation rule, model and their parameters are agreed before the first push: a
    // member whose settings differ from its server's (the party's server, or the global server)
    // would push what the server cannot combine, so the run is refused with both named.
    QString settingsDisagreement() const {
        const RoleKind serverKind = m_ctx.node.kind == RoleKind::GlobalScheduler ? RoleKind::GlobalServer : RoleKind::Server;
        QString server;
        for (auto it = m_expected.begin(); it != m_expected.end(); ++it)
            if (it->kind == serverKind && it->party == m_ctx.node.party) server = it.key();
        if (server.isEmpty()) return {};
        const QString agreed = m_settings.value(server);
        for (auto it = m_settings.begin(); it != m_settings.end(); ++it)
            if (*it != agreed)
                return QStringLiteral("%1 runs %2, but its server %3 runs %4; start every role from the same topology")
                    .arg(it.key(), *it, server, agreed);
        return {};
    }

    // (A restarted scheduler has not heard from every member yet: the others are where the
    // topology puts them, as they bind there.)
    // `late`: the others had theirs (a member started again mid-run).
    void sendTable(const QString& peer, bool late = false) {
        QCborArray nodes;
        for (auto it = m_expected.begin(); it != m_expected.end(); ++it)
            if (!m_standsFor.contains(it.key()))  // (not a stand-in: the others learn of it from member_up, whose place it takes)
                nodes.append(QCborMap{{QStringLiteral("id"), it.key()},
                                      {QStringLiteral("role"), roleName(it->kind)},
                                      {QStringLiteral("endpoint"), m_endpoints.value(it.key(), m_ctx.topology.endpoint(*it))}});
        Message table(message::kTable, {{QStringLiteral("nodes"), nodes}});
        if (late) table.fields.insert(QStringLiteral("late"), true);
        m_recovery.attachTo(peer, table);
        sendTo(peer, std::move(table));
    }

    void tellWhoIsDown(const QString& peer) {
        for (const QString& down : m_down)
            sendTo(peer,
                   Message(message::kMemberDown, {{QStringLiteral("node"), down}, {QStringLiteral("reason"), m_downEvidence.value(down)}}));
    }

    void onBarrier(const Envelope& e) {
        const QString name = e.message.string(QStringLiteral("name"));
        QSet<QString>& arrived = m_barriers[name];
        arrived.insert(e.peer);
        if (arrived.size() < m_expected.size()) return;
        for (const QString& id : arrived) sendTo(id, Message(message::kBarrierOk, {{QStringLiteral("name"), name}}));
        m_barriers.remove(name);
    }

    // Everything waiting is read before anyone is judged: after this process was starved or
    // stopped, its members' heartbeats wait here, and judging first called them dead.
    void handleWaiting() {
        for (int i = 0; i < 10000 && !m_aborted; ++i) {
            std::optional<Envelope> e = m_channel.receive(0ms);
            if (!e) return;
            handle(*e);
        }
    }

    // A pass far longer than its wait: this process did not run meanwhile (stopped, starved), and
    // its members' silence in that time is unknown, not theirs: it is not counted.
    void discountOwnStall(Clock::time_point passBegan) {
        const auto gap = Clock::now() - passBegan;
        if (gap < std::chrono::seconds(m_ctx.training().heartbeatTimeoutS) / 2) return;
        for (auto it = m_lastSeen.begin(); it != m_lastSeen.end(); ++it) it.value() += gap;
    }

    QStringList deadNodes() const {
        const auto limit = std::chrono::seconds(m_ctx.training().heartbeatTimeoutS);
        QStringList dead;
        for (auto it = m_lastSeen.begin(); it != m_lastSeen.end(); ++it)
            if (!m_byes.contains(it.key()) && !m_down.contains(it.key()) && Clock::now() - it.value() > limit) dead << it.key();
        return dead;
    }

    // fault_policy continue: the members (its server among them) go on without the node. Returns
    // why the run cannot go on when too few are left (min_workers, min_parties), else nothing.
    QString markDown(const QString& node, const QString& evidence) {
        m_down.insert(node);
        m_downEvidence.insert(node, evidence);
        std::fprintf(roleErr(), "%s: %s; the run goes on without it (fault_policy continue)\n", qPrintable(m_ctx.node.id),
                     qPrintable(evidence));
        m_ctx.metrics.report(
            metric::kMembership,
            {{QStringLiteral("member"), node}, {QStringLiteral("state"), QStringLiteral("down")}, {QStringLiteral("reason"), evidence}});
        tellMembers(Message(message::kMemberDown, {{QStringLiteral("node"), node}, {QStringLiteral("reason"), evidence}}), node);
        return shortage();
    }

    // `restarted`: a new process (its state is gone: a server's peers send it what it had again).
    void markUp(const QString& node, const QString& how, bool restarted = false) {
        m_down.remove(node);
        m_ctx.metrics.report(
            metric::kMembership,
            {{QStringLiteral("member"), node}, {QStringLiteral("state"), QStringLiteral("up")}, {QStringLiteral("reason"), how}});
        // (With its endpoint: a global server that lost its host is back on its standby host.)
        Message up(message::kMemberUp, {{QStringLiteral("node"), node},
                                        {QStringLiteral("reason"), how},
                                        {QStringLiteral("restarted"), restarted},
                                        {QStringLiteral("endpoint"), m_endpoints.value(node)}});
        if (m_standsFor.contains(node)) up.fields.insert(QStringLiteral("stands_for"), m_standsFor.value(node));
        tellMembers(up, node);
        // A node back from a silence learns that it was declared down: the others may have gone
        // on without it (a collective party's members do), and it must not wait for them. It
        // missed what was said meanwhile: it hears who is down now (its client forgets its own
        // list on hearing it was down, so that a later restarted scheduler is not told stale news).
        if (!restarted) {
            m_toldItWasDown.insert(node);
            sendTo(node,
                   Message(message::kMemberDown, {{QStringLiteral("node"), node}, {QStringLiteral("reason"), m_downEvidence.value(node)}}));
            tellWhoIsDown(node);
        }
    }

    // (Only those heard from since this scheduler started: it cannot reach the others yet.)
    void tellMembers(const Message& m, const QString& about) {
        for (const QString& id : m_heard)
            if (id != about && !m_byes.contains(id) && !m_down.contains(id)) sendTo(id, Message(m.type, m.fields));
    }

    // Every member said bye or is down (the down ones may come back until then). Under
    // fault_policy continue the tier is done when its servers are: a member that recovers later
    // has no round to come back to. Those still up say bye right after their last model, and are
    // given a moment for it: else each would wait out its bye's linger (2 s) for a scheduler gone.
    bool everyoneDone() {
        if (m_byes.size() + m_down.size() >= m_expected.size()) return true;
        if (!m_ctx.training().continuesThroughFailures() || !serversGone()) return false;
        if (!m_serversGoneAt) m_serversGoneAt = Clock::now();
        return Clock::now() - *m_serversGoneAt > kByeGrace;
    }

    bool serversGone() const {
        bool any = false;
        for (auto it = m_expected.begin(); it != m_expected.end(); ++it)
            if (it->kind == RoleKind::Server || it->kind == RoleKind::GlobalServer) {
                if (!m_byes.contains(it.key())) return false;
                any = true;
            }
        return any && m_tableSent;
    }

    // Too few left: fewer of a party's workers up than min_workers, or (the global scheduler)
    // fewer parties with every server up than min_parties, or a global server down that is not
    // restarted (nothing goes on without it). The rounds go on while the master is down: only its
    // evaluations wait.
    QString shortage() const {
        const TrainingSettings& s = m_ctx.training();
        QHash<QString, std::pair<int, int>> workers, servers;  // party → (up, all)
        QHash<QString, bool> pushers;  // a collective party's one place at the global tier: up while any who pushes for it is
        const bool global = m_ctx.node.kind == RoleKind::GlobalScheduler;
        for (auto it = m_expected.begin(); it != m_expected.end(); ++it) {
            if (it->kind == RoleKind::GlobalServer && m_down.contains(it.key()) && !recoversGlobalServer(s))
                return QStringLiteral("%1 is down, and the run cannot go on without it").arg(it.key());
            // (At the global tier a collective party's pushing worker stands for its party, as a server does.)
            if (global && (pushesForItsParty(m_ctx.topology, *it) || m_standsFor.contains(it.key()))) {
                pushers[it->party] |= !m_down.contains(it.key());
                continue;
            }
            const bool forItsParty = global && it->kind == RoleKind::Server;
            if (it->kind != RoleKind::Worker && !forItsParty) continue;
            auto& [up, all] = (forItsParty ? servers : workers)[it->party];
            ++all;
            up += !m_down.contains(it.key());
        }
        for (auto it = workers.begin(); it != workers.end(); ++it) {
            const int need = requiredContributors(s.param(QStringLiteral("min_workers")), it->second);
            if (it->first < need)
                return QStringLiteral("party %1 has %2 of its %3 workers up, and min_workers is %4: the run cannot go on")
                    .arg(it.key())
                    .arg(it->first)
                    .arg(it->second)
                    .arg(need);
        }
        for (auto it = pushers.cbegin(); it != pushers.cend(); ++it) servers[it.key()] = {it.value() ? 1 : 0, 1};
        if (servers.isEmpty()) return {};
        int partiesUp = 0;
        for (const auto& [up, all] : servers) partiesUp += up == all;
        const int need = std::min(int(s.param(QStringLiteral("min_parties"))), int(servers.size()));
        if (partiesUp < need)
            return QStringLiteral("%1 of %2 parties have their servers up, and min_parties is %3: the run cannot go on")
                .arg(partiesUp)
                .arg(servers.size())
                .arg(need);
        return {};
    }

    QString missingText() const {
        QStringList missing;
        for (const QString& id : m_expected.keys())
            if (!m_endpoints.contains(id)) missing << id;
        return QStringLiteral("%1 did not register within %2 s; check that they started (see their logs)")
            .arg(missing.join(QStringLiteral(", ")))
            .arg(m_ctx.training().replyTimeoutS);
    }

    int abort(const QString& reason) {
        std::fprintf(roleErr(), "%s: %s\n", qPrintable(m_ctx.node.id), qPrintable(reason));
        m_channel.lingerOnClose(1s);
        for (const QString& id : m_lastSeen.keys())
            if (!m_byes.contains(id)) sendTo(id, Message(message::kAbort, {{QStringLiteral("reason"), reason}}));
        return kRoleFailed;
    }

    // A peer whose connection is gone (the dead node itself) must not stop the others' messages:
    // the channel drops and counts what it cannot deliver.
    void sendTo(const QString& peer, Message m) { m_channel.send(peer, std::move(m)); }

    RoleContext& m_ctx;
    Channel m_channel;
    QHash<QString, Node> m_expected;
    QHash<QString, QString> m_endpoints, m_settings, m_downEvidence;
    QHash<QString, Clock::time_point> m_lastSeen;
    QHash<QString, QSet<QString>> m_barriers;
    QSet<QString> m_byes, m_down, m_heard;
    QSet<QString> m_restarted;  // members that registered anew during the run (new processes)
    bool m_tookOver = false;  // this scheduler was restarted and took the run up
    std::set<QString> m_downListFrom;  // members whose list of who was down was taken (once each)
    QSet<QString> m_toldItWasDown;  // members told that they had been declared down
    QHash<QString, QString> m_standsFor;  // a collective party's new pushing worker → the first one
    RecoveryCopies m_recovery;  // global servers' recovery points (those with a standby host)
    SchedulerIncarnations m_incarnations;  // which process of each member is listened to
    bool m_tableSent = false, m_aborted = false;
    std::optional<Clock::time_point> m_serversGoneAt;
    static constexpr std::chrono::seconds kByeGrace{2};
    RejectionLog m_log{m_ctx.node.id};
};

}  // namespace

int runScheduler(RoleContext& ctx) {
    return Scheduler(ctx).run();
}

}  // namespace hips
