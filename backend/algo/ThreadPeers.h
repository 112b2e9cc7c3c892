#pragma once
// The ranks of a collective as threads of one process: a mailbox per rank. What the tests run
// every collective over, and what counts the bytes each link carries.
#include "Collective.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <vector>

namespace hips {

class ThreadMesh {
public:
    ThreadMesh(int size, std::chrono::milliseconds deadline);
    int size() const { return m_size; }
    // Rank `rank`'s peers; the mesh must outlive them.
    std::unique_ptr<CollectivePeers> peersOf(int rank);
    quint64 bytesSent(int from, int to) const { return m_bytes[size_t(from * m_size + to)].load(); }
    // The messages some rank sent that nobody took (a schedule that does not match must fail a test).
    size_t unclaimed() const;

private:
    friend class ThreadPeers;
    struct Mailbox {
        mutable std::mutex mutex;
        std::condition_variable arrived;
        std::map<std::pair<int, quint64>, std::vector<float>> messages;  // (sender, tag) → floats
    };
    int m_size;
    std::chrono::milliseconds m_deadline;
    std::vector<std::unique_ptr<Mailbox>> m_boxes;
    std::unique_ptr<std::atomic<quint64>[]> m_bytes;
};

}  // namespace hips
