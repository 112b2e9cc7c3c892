#include "StateServiceRole.h"

#include "Channel.h"
#include "EsyncState.h"
#include "RejectionLog.h"
#include "Vocabulary.h"
#include "WanLinks.h"
#include "RoleScope.h"

#include <QHash>
#include <QRandomGenerator>
#include <QSet>
#include <algorithm>
#include <cmath>

namespace hips {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

std::optional<Node> stateServiceNode(const Topology& t) {
    for (const Node& n : t.nodes())
        if (n.kind == RoleKind::StateService) return n;
    return std::nullopt;
}

}  // namespace

int runStateService(RoleContext& ctx) {
    Channel channel = Channel::router(ctx.zmq, ctx.node.id, ctx.topology.endpoint(ctx.node));
    channel.setLinkShaper(makeWanShaper(ctx));  // (an answer to a party with a wan crosses it)
    QHash<QString, int> rank;  // the training workers, by node id
    for (const Node& n : ctx.topology.nodes())
        if (n.kind == RoleKind::Worker) rank.insert(n.id, rank.size());
    EsyncState state;
    state.init(int(rank.size()), ctx.training().param(QStringLiteral("epsilon")));
    // Going on through failures: a worker silent as long as its scheduler takes to declare it dead
    // is not waited for (a new service, after a restart or on the standby host, learns the others
    // again from their next steps).
    if (ctx.training().continuesThroughFailures()) state.setSilenceLimit(ctx.training().heartbeatTimeoutS);
    state.setMostSteps(int(ctx.training().param(QStringLiteral("max_steps"))));
    RejectionLog log(ctx.node.id);
    const qint64 lastRound = ctx.training().rounds * ctx.training().globalStepsPerRound();
    QSet<QString> gone;
    const auto start = Clock::now();
    auto seconds = [start] { return std::chrono::duration<double>(Clock::now() - start).count(); };
    auto lastHeard = Clock::now();
    while (gone.size() < rank.size()) {
        auto e = channel.receive(200ms);
        if (!e) {
            if (Clock::now() - lastHeard > ctx.replyTimeout()) {
                std::fprintf(roleErr(), "%s: no worker asked anything for %d s; is the run still alive?\n", qPrintable(ctx.node.id),
                             ctx.training().replyTimeoutS);
                return kRoleFailed;
            }
            continue;
        }
        lastHeard = Clock::now();
        const auto r = rank.find(e->peer);
        if (r == rank.end()) {
            log.reject(e->peer, QStringLiteral("'%1' from a node that is not a training worker").arg(e->message.type));
            continue;
        }
        const QString& type = e->message.type;
        if (type == message::kEsyncReset) {
            const qint64 round = e->message.integer(QStringLiteral("round"));
            if (state.mayName(*r, round, lastRound)) state.reset(*r, round, seconds());
            else log.reject(e->peer, QStringLiteral("round %1 is not a round of this run").arg(round));
        } else if (type == message::kEsyncApply) {
            const qint64 k = e->message.integer(QStringLiteral("k"));
            const double c = e->message.fields.value(QStringLiteral("c")).toDouble(-1);
            if (k < 0 || k > 100000000 || !std::isfinite(c) || c < 0 || c > 86400) {
                log.reject(e->peer, QStringLiteral("k %1 or c %2 out of range").arg(k).arg(c));
                continue;
            }
            // The worker's round rides along: its reset may have gone to a service that is gone.
            const qint64 round = e->message.integer(QStringLiteral("round"), 0);
            if (round > state.record(*r).t && state.mayName(*r, round, lastRound)) state.reset(*r, round, seconds() - double(k) * c);
            const bool ready = state.apply(*r, int(k), c, state.record(*r).te, seconds());
            channel.send(e->peer, Message(message::kEsyncReady, {{QStringLiteral("ready"), ready},
                                                                 {QStringLiteral("n"), e->message.integer(QStringLiteral("n"), 0)}}));
        } else if (type == message::kBye) {
            gone.insert(e->peer);
        } else {
            log.reject(e->peer, QStringLiteral("unexpected message '%1'").arg(type));
        }
    }
    channel.lingerOnClose(1s);
    return kRoleOk;
}

StateServiceClient::StateServiceClient(RoleContext& ctx) : m_ctx(ctx) {
    const auto service = stateServiceNode(ctx.topology);
    if (!service) throw RoleError("mode esync needs the central party's state service; the topology has none");
    m_service = service->id;
    // Numbered from a random start: a restarted worker's questions are not taken for answered by
    // a late answer to its previous process's.
    m_asked = qint64(QRandomGenerator::system()->generate() >> 1) << 16;
    m_channels.push_back(std::make_unique<Channel>(Channel::dealer(ctx.zmq, ctx.node.id, ctx.topology.endpoint(*service), service->id)));
    if (const Host* standby = ctx.topology.host(service->standbyHost)) {
        Node there = *service;
        there.host = standby->id;
        m_channels.push_back(std::make_unique<Channel>(Channel::dealer(ctx.zmq, ctx.node.id, ctx.topology.endpoint(there), service->id)));
    }
    // A question from a party with a wan crosses it, after every local step: a round trip each.
    // (A shaper each: a held message leaves through the channel whose shaper releases it.)
    for (const auto& channel : m_channels) channel->setLinkShaper(makeWanShaper(ctx));
}

StateServiceClient::~StateServiceClient() = default;

void StateServiceClient::beginRound(qint64 round) {
    m_round = round;
    m_channels[m_current]->send(Message(message::kEsyncReset, {{QStringLiteral("round"), round}}));
}

// Under fault_policy continue a question not answered within kAskAgain is asked again: of the
// same service (one restarted lost it), and of the standby host's where there is one, listening
// to both from then on. The same number each time, so that a late answer to the first asking
// still counts; the service that answers is asked first from then on.
bool StateServiceClient::ready(int k, double c) {
    constexpr auto kAskAgain = 2s;
    const qint64 n = ++m_asked;
    const auto ask = [&](Channel& to) {
        to.send(
            Message(message::kEsyncApply,
                    {{QStringLiteral("k"), k}, {QStringLiteral("c"), c}, {QStringLiteral("round"), m_round}, {QStringLiteral("n"), n}}));
    };
    ask(*m_channels[m_current]);
    std::vector<Channel*> asked{m_channels[m_current].get()};
    const bool askAgain = m_ctx.training().continuesThroughFailures();
    const auto deadline = Clock::now() + m_ctx.replyTimeout();
    auto again = Clock::now() + kAskAgain;
    while (Clock::now() < deadline) {
        if (m_whileWaiting) m_whileWaiting();
        if (const int ready = pollChannels(asked, 200ms); ready >= 0)
            while (auto e = asked[size_t(ready)]->receive(0ms))
                if (e->message.type == message::kEsyncReady && e->message.integer(QStringLiteral("n"), 0) == n) {
                    for (size_t i = 0; i < m_channels.size(); ++i)
                        if (m_channels[i].get() == asked[size_t(ready)]) m_current = i;
                    return e->message.fields.value(QStringLiteral("ready")).toBool();
                }
        if (askAgain && Clock::now() > again) {
            for (const auto& channel : m_channels) {
                ask(*channel);
                if (std::find(asked.begin(), asked.end(), channel.get()) == asked.end()) asked.push_back(channel.get());
            }
            again = Clock::now() + kAskAgain;
        }
    }
    throw RoleError("no answer from the state service " + m_service.toStdString() + " within " +
                    std::to_string(m_ctx.training().replyTimeoutS) + " s; see its log");
}

void StateServiceClient::leave() {
    m_channels[m_current]->send(Message(message::kBye));
    m_channels[m_current]->lingerOnClose(2s);
}

}  // namespace hips
