#pragma once
// Runs one Channel on its own thread: a poll loop with a timeout and an atomic stop flag.
// Other threads hand it messages with post(); received messages go to `onMessage`, called
// on the socket thread (Qt users forward them with a queued invocation). The DESIGN rule:
// never hang a ZeroMQ fd on a QSocketNotifier.
#include "Channel.h"

#include <atomic>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace hips {

// Called at the start of helper threads: the signals go to the main thread's handler, and a
// ZeroMQ call interrupted by one (EINTR) would otherwise throw out of the thread.
void blockTerminationSignals();

class SocketThread {
public:
    using Handler = std::function<void(Envelope&&)>;

    // The channel is built (and bound or connected) by the caller, so errors surface there.
    SocketThread(zmq::context_t& ctx, Channel channel, Handler onMessage);
    ~SocketThread();

    void post(const QString& peer, Message m);
    void post(Message m) { post({}, std::move(m)); }
    void stop();

private:
    void loop();
    void flushOutbox();

    Channel m_channel;
    Handler m_onMessage;
    zmq::socket_t m_wakeReceiver, m_wakeSender;
    std::mutex m_mutex;  // guards m_outbox and m_wakeSender
    std::deque<std::pair<QString, Message>> m_outbox;
    std::atomic<bool> m_stop{false};
    std::thread m_thread;
};

}  // namespace hips
