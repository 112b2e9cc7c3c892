#include "LinkShaper.h"

namespace hips {

bool LinkShaper::enqueue(const void* sender, const LinkShape& shape, Pending message) {
    std::deque<Pending>& queue = m_queues[{sender, shape.link}];
    if (queue.size() >= kMaxHeld) return false;
    const Clock::time_point now = Clock::now();
    const auto transfer =
        std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(double(message.bytes) / shape.bytesPerSecond));
    Clock::time_point& freeAt = m_freeAt[shape.link];
    freeAt = std::max(freeAt, now) + transfer;
    message.due = freeAt + shape.latency;
    queue.push_back(std::move(message));
    return true;
}

void LinkShaper::releaseDue(const void* sender, const std::function<void(Pending&)>& send) {
    const Clock::time_point now = Clock::now();
    for (auto it = m_queues.lower_bound({sender, QString()}); it != m_queues.end() && it->first.first == sender; ++it) {
        std::deque<Pending>& queue = it->second;
        while (!queue.empty() && queue.front().due <= now) {
            send(queue.front());
            queue.pop_front();
        }
    }
}

std::optional<LinkShaper::Clock::time_point> LinkShaper::nextDue(const void* sender) const {
    std::optional<Clock::time_point> next;
    for (auto it = m_queues.lower_bound({sender, QString()}); it != m_queues.end() && it->first.first == sender; ++it)
        if (!it->second.empty() && (!next || it->second.front().due < *next)) next = it->second.front().due;
    return next;
}

bool LinkShaper::empty(const void* sender) const {
    return !nextDue(sender).has_value();
}

}  // namespace hips
