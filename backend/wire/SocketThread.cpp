#include "SocketThread.h"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <pthread.h>

namespace hips {

static std::string uniqueInprocName() {
    static std::atomic<int> counter{0};
    return "inproc://hips-wake-" + std::to_string(counter.fetch_add(1));
}

void blockTerminationSignals() {
    sigset_t set;
    sigemptyset(&set);
    for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, s);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

SocketThread::SocketThread(zmq::context_t& ctx, Channel channel, Handler onMessage)
    : m_channel(std::move(channel)),
      m_onMessage(std::move(onMessage)),
      m_wakeReceiver(ctx, zmq::socket_type::pair),
      m_wakeSender(ctx, zmq::socket_type::pair) {
    const std::string name = uniqueInprocName();
    m_wakeReceiver.set(zmq::sockopt::linger, 0);
    m_wakeSender.set(zmq::sockopt::linger, 0);
    m_wakeReceiver.bind(name);
    m_wakeSender.connect(name);
    m_thread = std::thread([this] { loop(); });
}

SocketThread::~SocketThread() {
    stop();
}

void SocketThread::post(const QString& peer, Message m) {
    std::lock_guard lock(m_mutex);
    m_outbox.emplace_back(peer, std::move(m));
    m_wakeSender.send(zmq::message_t(), zmq::send_flags::dontwait);
}

void SocketThread::stop() {
    if (!m_thread.joinable()) return;
    m_stop = true;
    {
        std::lock_guard lock(m_mutex);
        m_wakeSender.send(zmq::message_t(), zmq::send_flags::dontwait);
    }
    m_thread.join();
}

void SocketThread::flushOutbox() {
    std::deque<std::pair<QString, Message>> batch;
    {
        std::lock_guard lock(m_mutex);
        batch.swap(m_outbox);
    }
    for (auto& [peer, m] : batch) {
        try {
            if (peer.isEmpty()) m_channel.send(std::move(m));
            else m_channel.send(peer, std::move(m));
        } catch (const zmq::error_t& e) {
            // ROUTER with router_mandatory: the peer is gone. The caller learns it from timeouts.
            qWarning("hips: cannot send to '%s': %s", qPrintable(peer), e.what());
        }
    }
}

void SocketThread::loop() {
    using namespace std::chrono_literals;
    blockTerminationSignals();
    while (!m_stop) {
        m_channel.tickSealed();
        std::vector<zmq::pollitem_t> items{{m_wakeReceiver.handle(), 0, ZMQ_POLLIN, 0}};
        m_channel.appendPollItems(items);  // (its bulk socket too, when sealed)
        // (A sealed channel may need its hello said again sooner: SealedPlane::nextCheck.)
        const auto check = m_channel.sealedPlane() ? m_channel.sealedPlane()->nextCheck() : -1ms;
        zmq::poll(items.data(), items.size(), m_channel.hasDeliverable() ? 0ms : check.count() >= 0 ? std::min(check, 200ms) : 200ms);
        if (items[0].revents & ZMQ_POLLIN) {
            zmq::message_t drain;
            while (m_wakeReceiver.recv(drain, zmq::recv_flags::dontwait)) {
            }
        }
        flushOutbox();
        if (m_channel.hasDeliverable() ||
            std::any_of(items.begin() + 1, items.end(), [](const zmq::pollitem_t& i) { return i.revents & ZMQ_POLLIN; })) {
            while (auto envelope = m_channel.receive(std::chrono::milliseconds(0))) m_onMessage(std::move(*envelope));
        }
    }
    flushOutbox();
}

}  // namespace hips
