#include "ThreadPeers.h"

#include "GradientCodec.h"

#include <algorithm>
#include <cstring>

namespace hips {

class ThreadPeers final : public CollectivePeers {
public:
    ThreadPeers(ThreadMesh& mesh, int rank) : m_mesh(mesh), m_rank(rank) {}
    int rank() const override { return m_rank; }
    int size() const override { return m_mesh.m_size; }

    void send(int to, quint64 tag, const float* data, size_t count) override {
        ThreadMesh::Mailbox& box = *m_mesh.m_boxes[size_t(to)];
        {
            std::lock_guard lock(box.mutex);
            if (!box.messages.emplace(std::pair{m_rank, tag}, std::vector<float>(data, data + count)).second)
                throw CollectiveError(nameOf(m_rank) + " sent tag " + std::to_string(tag) + " to " + nameOf(to) + " twice");
        }
        box.arrived.notify_all();
        m_mesh.m_bytes[size_t(m_rank * m_mesh.m_size + to)] += count * sizeof(float);
    }

    void receive(int from, quint64 tag, float* out, size_t count, bool add) override {
        ThreadMesh::Mailbox& box = *m_mesh.m_boxes[size_t(m_rank)];
        std::unique_lock lock(box.mutex);
        const auto key = std::pair{from, tag};
        if (!box.arrived.wait_for(lock, m_mesh.m_deadline, [&] { return box.messages.count(key) > 0; }))
            throw CollectiveError(nameOf(from) + " sent nothing to " + nameOf(m_rank) + " within the deadline");
        auto node = box.messages.extract(key);
        lock.unlock();
        const std::vector<float>& floats = node.mapped();
        if (floats.size() != count)
            throw CollectiveError(nameOf(from) + " sent " + std::to_string(floats.size()) + " floats where " + std::to_string(count) +
                                  " were due");
        if (add)
            for (size_t i = 0; i < count; ++i) out[i] += floats[i];
        else std::memcpy(out, floats.data(), count * sizeof(float));
    }

    // Half floats travel widened (exactly) in the mailbox, and count two bytes each.
    void sendHalf(int to, quint64 tag, const quint16* data, size_t count) override {
        std::vector<float> widened(count);
        for (size_t i = 0; i < count; ++i) widened[i] = halfToFloat(data[i]);
        send(to, tag, widened.data(), count);
        m_mesh.m_bytes[size_t(m_rank * m_mesh.m_size + to)] -= count * (sizeof(float) - sizeof(quint16));
    }

    void receiveHalf(int from, quint64 tag, float* out, size_t count, bool add) override { receive(from, tag, out, count, add); }

private:
    ThreadMesh& m_mesh;
    int m_rank;
};

ThreadMesh::ThreadMesh(int size, std::chrono::milliseconds deadline)
    : m_size(size), m_deadline(deadline), m_bytes(new std::atomic<quint64>[size_t(size * size)]()) {
    for (int r = 0; r < size; ++r) m_boxes.push_back(std::make_unique<Mailbox>());
}

std::unique_ptr<CollectivePeers> ThreadMesh::peersOf(int rank) {
    return std::make_unique<ThreadPeers>(*this, rank);
}

size_t ThreadMesh::unclaimed() const {
    size_t n = 0;
    for (const auto& box : m_boxes) {
        std::lock_guard lock(box->mutex);
        n += box->messages.size();
    }
    return n;
}

}  // namespace hips
