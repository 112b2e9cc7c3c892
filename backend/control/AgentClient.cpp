#include "AgentClient.h"

#include "ClockStamp.h"
#include "ControlProtocol.h"

#include <QDateTime>
#include <algorithm>
#include <utility>

namespace hips {

AgentClient::AgentClient(const QString& host, const QString& endpoint, const CurveConfig& curve, bool probeDevices, QObject* parent)
    : QObject(parent), m_host(host), m_probeDevices(probeDevices), m_endpoint(endpoint) {
    WireLimits limits;  // events carry one line each, which the agent keeps under kMaxEventBytes
    limits.maxHeaderBytes = control::kMaxEventBytes;
    limits.maxPayloadBytes = 0;
    Channel channel = Channel::dealer(m_zmq, QString::fromLatin1(control::kControllerId), endpoint, host, curve, limits);
    m_socket = std::make_unique<SocketThread>(m_zmq, std::move(channel), [this](Envelope&& e) {
        auto shared = std::make_shared<Message>(std::move(e.message));
        QMetaObject::invokeMethod(
            this, [this, shared] { onMessage(*shared); }, Qt::QueuedConnection);
    });
    send(hello());
    m_sinceAgent.start();
    m_sinceTick.start();
    connect(&m_timer, &QTimer::timeout, this, &AgentClient::tick);
    m_timer.start(control::kPingMs);
}

Message AgentClient::hello() const {
    return stamped(Message(QStringLiteral("hello"),
                           {{QStringLiteral("version"), control::kProtocolVersion}, {QStringLiteral("probe_devices"), m_probeDevices}}));
}

static double unixSeconds() {
    return double(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
}

Message AgentClient::stamped(Message m) const {
    m.fields.insert(control::kSentAt, unixSeconds());
    return m;
}

// (An answer without both times, an older agent's, measures nothing: its records stay as stamped.)
void AgentClient::measureClock(const Message& answer) {
    if (const auto a = control::clockAnswer(answer)) m_clock.sample(a->sentAt, a->hostTime, unixSeconds());
}

AgentClient::~AgentClient() {
    m_socket->stop();
}

void AgentClient::send(Message m) {
    m_socket->post(std::move(m));
}

void AgentClient::close() {
    m_lost = true;
    m_timer.stop();
    m_socket->stop();
}

void AgentClient::tick() {
    const qint64 gap = m_sinceTick.restart();
    if (m_lost) return;
    if (gap > qint64(m_silenceS) * 1000 && gap < m_stallToleranceMs) {
        m_sinceAgent.restart();  // we could not have heard it meanwhile
        Q_EMIT resumedAfterStall(gap);
    } else if (gap > qint64(m_silenceS) * 1000) {  // a 1-second timer that fired this late: we were stopped
        m_lost = true;
        Q_EMIT stalled(gap);
        return;
    }
    if (m_sinceAgent.elapsed() > qint64(m_silenceS) * 1000) {
        m_lost = true;
        Q_EMIT lost(m_ready ? QStringLiteral("agent on %1 (%2) went silent for %3 s").arg(m_host, m_endpoint).arg(m_silenceS)
                            : QStringLiteral("agent on %1 (%2) did not answer the handshake within %3 s; "
                                             "check that it runs and the port is reachable")
                                  .arg(m_host, m_endpoint)
                                  .arg(m_silenceS));
        return;
    }
    if (std::exchange(m_ackDue, false)) sendAck();
    send(m_ready ? stamped(Message(QStringLiteral("ping"), {{QStringLiteral("version"), control::kProtocolVersion}})) : hello());
}

void AgentClient::onMessage(const Message& m) {
    // After a stop, what the agent sent meanwhile waits in the queue beside the overdue timer, in
    // no set order: the stall is judged first, so a "bye" for our silence is not taken as its own.
    if (!m_lost && m_sinceTick.elapsed() > qint64(m_silenceS) * 1000) {
        tick();
        if (m_lost) return;
    }
    m_sinceAgent.restart();
    if (m.type == QLatin1String("pong")) {
        measureClock(m);
    } else if (m.type == QLatin1String("hello_ok")) {
        measureClock(m);  // (each: the first answers the oldest hello, which may have waited for the agent to listen)
        if (m_ready) return;
        if (!m.fields.value(QStringLiteral("compatible")).toBool()) {
            m_lost = true;
            Q_EMIT lost(QStringLiteral("agent on %1 speaks protocol %2, this controller %3; deploy the same version")
                            .arg(m_host)
                            .arg(m.integer(QStringLiteral("version")))
                            .arg(control::kProtocolVersion));
            return;
        }
        m_ready = true;
        Q_EMIT ready(m.fields);
    } else if (m.type == QLatin1String("bye")) {
        m_lost = true;  // its silence from now on is expected
        Q_EMIT bye();
    } else if (m.type == QLatin1String("event")) {
        const qint64 seq = m.integer(QStringLiteral("seq"));
        // A marker of events that gave way stands for all of them: it is the last of them (and
        // one that holds the next number is taken, though it begins before it).
        const bool skipped = m.string(QStringLiteral("kind")) == control::event::kSkipped;
        const qint64 through = skipped ? std::max(seq, m.integer(QStringLiteral("through"), seq)) : seq;
        // TCP keeps order, so the only out-of-order arrivals are resends of old events.
        if (seq <= m_lastSeq + 1 && m_lastSeq + 1 <= through) {
            m_lastSeq = through;
            Q_EMIT event(m.fields, m_lastSeq);
            if (!m_manualAcks) m_acked = m_lastSeq;
        }
        m_ackDue = true;  // sent with the next tick: one ack stands for every event before it
    }
}

void AgentClient::resumeAfter(qint64 seq) {
    m_lastSeq = std::max(m_lastSeq, seq);
    acknowledge(seq);
}

void AgentClient::acknowledge(qint64 seq) {
    if (seq <= m_acked || m_lost) return;
    m_acked = std::min(seq, m_lastSeq);
    sendAck();
}

// `seq`: stored up to it (the agent may forget those); `seen`: received up to it, in order (the
// agent need not send those again while the history catches up).
void AgentClient::sendAck() {
    send(Message(QStringLiteral("ack"), {{QStringLiteral("seq"), m_acked}, {QStringLiteral("seen"), m_lastSeq}}));
}

}  // namespace hips
