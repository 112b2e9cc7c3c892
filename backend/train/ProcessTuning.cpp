#include "ProcessTuning.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <dlfcn.h>
#include <mutex>

namespace hips {

void pinBlasThreads(int threads) {
    // OpenBLAS names it openblas_set_num_threads; its older GotoBLAS name is kept as a fallback.
    for (const char* name : {"openblas_set_num_threads", "goto_set_num_threads"})
        if (auto* set = reinterpret_cast<void (*)(int)>(dlsym(RTLD_DEFAULT, name))) {
            set(threads);
            return;
        }
}

namespace {

// A slot freed goes straight to the longest waiting step, which alone is woken: dozens of threads
// waking at each of thousands of steps cost more than the steps.
struct ComputeSlots {
    explicit ComputeSlots(int places = 0) : slots(places) {}
    struct Waiter {
        std::condition_variable turn;
        bool admitted = false;
    };
    std::mutex lock;
    int slots = 0;  // 0: no limit
    int cores = 0;  // what setComputeSlots was given
    int threadsPerStep = 1;  // LibTorch's intra-op threads: a step takes as many cores
    int computing = 0;
    std::deque<Waiter*> waiting;
};

ComputeSlots& computeSlots() {
    static ComputeSlots s;
    return s;
}

thread_local bool t_holdsSlot = false;

void admit(ComputeSlots& s) {
    ComputeSlots::Waiter* next = s.waiting.front();
    s.waiting.pop_front();
    next->admitted = true;
    next->turn.notify_one();
}

// A slot let go of (the lock held): to the longest waiting step, else back to the free ones (so
// too when the slots became fewer meanwhile).
void handOn(ComputeSlots& s) {
    if (s.waiting.empty() || (s.slots > 0 && s.computing > s.slots)) {
        --s.computing;
        return;
    }
    admit(s);
}

// The slots changed (the lock held): as many waiting steps in as are now free.
void resize(ComputeSlots& s, int slots) {
    s.slots = slots;
    while (!s.waiting.empty() && (s.slots == 0 || s.computing < s.slots)) {
        ++s.computing;
        admit(s);
    }
}  // (a step inside a round that holds one takes none)

}  // namespace

void setComputeSlots(int slots) {
    ComputeSlots& s = computeSlots();
    std::lock_guard<std::mutex> hold(s.lock);
    s.cores = std::max(slots, 0);
    resize(s, s.cores > 0 ? std::max(1, s.cores / s.threadsPerStep) : 0);
}

void setComputeThreadsPerStep(int threads) {
    ComputeSlots& s = computeSlots();
    std::lock_guard<std::mutex> hold(s.lock);
    s.threadsPerStep = std::max(threads, 1);
    resize(s, s.cores > 0 ? std::max(1, s.cores / s.threadsPerStep) : 0);
}

int computeSlotsWaiting() {
    ComputeSlots& s = computeSlots();
    std::lock_guard<std::mutex> hold(s.lock);
    return int(s.waiting.size());
}

namespace {

// A place in `s` (its lock held): at once when one is free and nobody waits, else the longest
// waiting one's once it is handed on.
void takeTurn(ComputeSlots& s, std::unique_lock<std::mutex>& hold, const std::function<void()>& whileWaiting) {
    if (s.computing < s.slots && s.waiting.empty()) {
        ++s.computing;
        return;
    }
    ComputeSlots::Waiter self;
    s.waiting.push_back(&self);
    try {
        // (admitted with the slot counted.) The wait is in slices: `whileWaiting` keeps the
        // role's heartbeats vouching for this thread, and may end the wait by throwing.
        while (!self.turn.wait_for(hold, std::chrono::milliseconds(200), [&] { return self.admitted; }))
            if (whileWaiting) {
                hold.unlock();
                whileWaiting();
                hold.lock();
            }
    } catch (...) {
        if (!hold.owns_lock()) hold.lock();
        if (self.admitted) handOn(s);  // given the slot meanwhile: the next one takes it
        else s.waiting.erase(std::find(s.waiting.begin(), s.waiting.end(), &self));
        throw;
    }
}

ComputeSlots& generatorTurns() {
    static ComputeSlots s(1);
    return s;
}

}  // namespace

ComputeSlot::ComputeSlot(const std::function<void()>& whileWaiting) {
    ComputeSlots& s = computeSlots();
    if (t_holdsSlot) return;
    std::unique_lock<std::mutex> hold(s.lock);
    if (s.slots == 0) return;
    takeTurn(s, hold, whileWaiting);
    m_held = t_holdsSlot = true;
}

ComputeSlot::~ComputeSlot() {
    if (!m_held) return;
    t_holdsSlot = false;
    ComputeSlots& s = computeSlots();
    std::lock_guard<std::mutex> hold(s.lock);
    handOn(s);
}

GeneratorTurn::GeneratorTurn(const std::function<void()>& whileWaiting) {
    ComputeSlots& s = generatorTurns();
    std::unique_lock<std::mutex> hold(s.lock);
    takeTurn(s, hold, whileWaiting);
}

GeneratorTurn::~GeneratorTurn() {
    ComputeSlots& s = generatorTurns();
    std::lock_guard<std::mutex> hold(s.lock);
    handOn(s);
}

}  // namespace hips
