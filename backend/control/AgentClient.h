#pragma once
// The controller's connection to one hips-agent: version handshake, pings, and the
// event stream with acknowledgements (duplicates from resends are dropped by sequence).
#include "ClockOffset.h"
#include "ControlProtocol.h"
#include "SocketThread.h"

#include <QCborMap>
#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <memory>

namespace hips {

class AgentClient : public QObject {
    Q_OBJECT
public:
    // With `curve` enabled, the connection is encrypted and the agent must hold the expected key.
    // With `probeDevices`, the agent answers the handshake only once it knows the host's GPUs
    // (its hello_ok's "devices": DeviceCheck.h).
    AgentClient(const QString& host, const QString& endpoint, const CurveConfig& curve = {}, bool probeDevices = false,
                QObject* parent = nullptr);
    ~AgentClient() override;

    const QString& host() const { return m_host; }
    qint64 silentForMs() const { return m_sinceAgent.elapsed(); }  // since the agent's last word
    void send(Message m);
    // Stops talking to the agent: the socket thread ends (joined) and posts nothing more to this
    // object's thread, which may be about to quit.
    void close();

    // By default each event is acknowledged as soon as it is emitted. With manual acks the
    // owner acknowledges once the event is durable (stored), so that an agent keeps and
    // resends whatever a crashed controller had not yet committed.
    void setManualAcks(bool manual) { m_manualAcks = manual; }
    void acknowledge(qint64 seq);
    // A controller that attaches to a run under way (hips attach) already holds the agent's events
    // up to `seq`: they are acknowledged, and dropped if they come again.
    void resumeAfter(qint64 seq);
    // A stall of this process shorter than `ms` is no loss: the agent keeps the run going that
    // long without us (orphan_timeout_s) and sends the events we missed once we are back.
    void setStallTolerance(qint64 ms) { m_stallToleranceMs = ms; }
    void setSilenceTimeout(int seconds) { m_silenceS = seconds; }  // the run's agent_timeout_s
    // How far the agent's host clock is from this one's, measured by each hello and ping.
    const ClockOffset& clock() const { return m_clock; }

Q_SIGNALS:
    void ready(const QCborMap& hello);
    void event(const QCborMap& event, qint64 seq);
    void lost(const QString& reason);
    // This process itself did not run for longer than the agents wait for it (SIGSTOP, suspend):
    // the agent's silence since is the controller's doing, not the agent's.
    void stalled(qint64 ms);
    void resumedAfterStall(qint64 ms);  // ... but for less than the stall tolerance
    void bye();  // the agent is exiting (after a shutdown)

private:
    void sendAck();
    Message hello() const;
    Message stamped(Message m) const;  // with this clock's time, which the agent echoes with its own
    void measureClock(const Message& answer);
    void onMessage(const Message& m);
    void tick();

    zmq::context_t m_zmq{1};
    QString m_host;
    bool m_probeDevices = false;
    QString m_endpoint;
    std::unique_ptr<SocketThread> m_socket;
    qint64 m_lastSeq = 0;  // last event emitted
    qint64 m_acked = 0;  // last event acknowledged to the agent
    bool m_manualAcks = false;
    bool m_ackDue = false;  // events came since the last ack
    qint64 m_stallToleranceMs = 0;
    int m_silenceS = control::kSilenceTimeoutS;
    bool m_ready = false, m_lost = false;
    QElapsedTimer m_sinceAgent, m_sinceTick;
    ClockOffset m_clock;
    QTimer m_timer;
};

}  // namespace hips
