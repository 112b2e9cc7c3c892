#include "LinkShaper.h"

namespace hips {

bool LinkShaper::enqueue(const LinkShape& shape, Pending message) {
    Link& link = m_links[shape.link];
    if (link.queue.size() >= kMaxHeld) return false;
    const Clock::time_point now = Clock::now();
    const auto transfer =
        std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(double(message.bytes) / shape.bytesPerSecond));
    link.freeAt = std::max(link.freeAt, now) + transfer;
    message.due = link.freeAt + shape.latency;
    link.queue.push_back(std::move(message));
    return true;
}

void LinkShaper::releaseDue(const std::function<void(Pending&)>& send) {
    const Clock::time_point now = Clock::now();
    for (auto& entry : m_links) {
        std::deque<Pending>& queue = entry.second.queue;
        while (!queue.empty() && queue.front().due <= now) {
            send(queue.front());
            queue.pop_front();
        }
    }
}

std::optional<LinkShaper::Clock::time_point> LinkShaper::nextDue() const {
    std::optional<Clock::time_point> next;
    for (const auto& entry : m_links)
        if (const Link& link = entry.second; !link.queue.empty() && (!next || link.queue.front().due < *next))
            next = link.queue.front().due;
    return next;
}

bool LinkShaper::empty() const {
    return !nextDue().has_value();
}

}  // namespace hips
