#include "LinkShaper.h"

namespace hips {

bool LinkShaper::enqueue(const void* sender, const LinkShape& shape, Pending message) {
    size_t& held = m_heldFor[{sender, message.peer}];
    if (held >= kMaxHeld) return false;
    ++held;
    std::deque<Pending>& queue = m_queues[{sender, shape.link}];
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
            forget(sender, queue.front().peer);
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

std::optional<LinkShaper::Clock::time_point> LinkShaper::lastDue(const void* sender) const {
    std::optional<Clock::time_point> last;
    for (auto it = m_queues.lower_bound({sender, QString()}); it != m_queues.end() && it->first.first == sender; ++it)
        if (!it->second.empty() && (!last || it->second.back().due > *last)) last = it->second.back().due;
    return last;
}

std::vector<LinkShaper::Pending> LinkShaper::takeHeld(const void* sender, const std::function<bool(const QString&)>& drop) {
    std::vector<Pending> taken;
    for (auto it = m_queues.lower_bound({sender, QString()}); it != m_queues.end() && it->first.first == sender; ++it) {
        std::deque<Pending> kept;
        for (Pending& p : it->second) {
            if (drop && !drop(p.peer)) {
                kept.push_back(std::move(p));
                continue;
            }
            forget(sender, p.peer);
            taken.push_back(std::move(p));
        }
        it->second = std::move(kept);
    }
    return taken;
}

void LinkShaper::forget(const void* sender, const QString& peer) {
    const auto it = m_heldFor.find({sender, peer});
    if (it != m_heldFor.end() && --it->second == 0) m_heldFor.erase(it);
}

bool LinkShaper::empty(const void* sender) const {
    return !nextDue(sender).has_value();
}

}  // namespace hips
