#pragma once
// The controller's connection to one hips-agent: version handshake, pings, and the
// event stream with acknowledgements (duplicates from resends are dropped by sequence).
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
    AgentClient(const QString& host, const QString& endpoint, QObject* parent = nullptr);
    ~AgentClient() override;

    const QString& host() const { return m_host; }
    void send(Message m);

Q_SIGNALS:
    void ready(const QCborMap& hello);
    void event(const QCborMap& event);
    void lost(const QString& reason);

private:
    void onMessage(const Message& m);
    void tick();

    zmq::context_t m_zmq{1};
    QString m_host, m_endpoint;
    std::unique_ptr<SocketThread> m_socket;
    qint64 m_lastSeq = 0;
    bool m_ready = false, m_lost = false;
    QElapsedTimer m_sinceAgent;
    QTimer m_timer;
};

}  // namespace hips
