// A shared trainer's compute slots (ProcessTuning.h): at most the limit at once, served in the
// order they came, a round's steps in one turn, a wait that calls back and can be given up, and a
// limit that follows the cores and a step's threads; the process-wide generator's turn; a slowed
// step's sleep that calls back; and LibTorch's threads set by a shared trainer's worker threads at
// once after a fork. No model trains here but the slowed step's.
#include "LocalTrainer.h"
#include "ProcessTuning.h"

#include <QtTest>
#include <atomic>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>
#include <sys/wait.h>
#include <unistd.h>

using namespace hips;

namespace {

// A wait for `Turn` whose callback throws at its second call (a stop): whether the wait was given
// up by it, and the calls made.
template <typename Turn>
std::pair<bool, int> givenUpAtTheSecondCall() {
    std::atomic<int> calls{0};
    std::atomic<bool> gaveUp{false};
    std::thread stopped([&] {
        try {
            const Turn turn([&] {
                if (++calls == 2) throw std::runtime_error("asked to stop");
            });
        } catch (const std::runtime_error&) {
            gaveUp = true;
        }
    });
    stopped.join();
    return {gaveUp.load(), calls.load()};
}

}  // namespace

class ComputeSlotsTest : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // A shared trainer's steps: at most `slots` at once, the others served in the order they came,
    // and a step inside a round that holds a slot takes none.
    void computeSlotsAdmitInOrderAndNest() {
        setComputeSlots(1);
        std::vector<int> admitted;
        std::mutex admittedLock;
        std::vector<std::thread> steps;
        {
            ComputeSlot round;
            { const ComputeSlot step; }  // (nested: would wait for itself forever)
            for (int i = 0; i < 3; ++i) {
                steps.emplace_back([&, i] {
                    const ComputeSlot slot;
                    std::lock_guard<std::mutex> hold(admittedLock);
                    admitted.push_back(i);
                });
                while (computeSlotsWaiting() != i + 1) std::this_thread::yield();
            }
            QVERIFY(admitted.empty());
        }
        for (std::thread& t : steps) t.join();
        QCOMPARE(admitted, (std::vector<int>{0, 1, 2}));
        QCOMPARE(computeSlotsWaiting(), 0);

        setComputeSlots(2);
        std::atomic<int> inside{0}, most{0};
        steps.clear();
        for (int i = 0; i < 6; ++i)
            steps.emplace_back([&] {
                for (int k = 0; k < 200; ++k) {
                    const ComputeSlot slot;
                    const int now = ++inside;
                    int seen = most.load();
                    while (now > seen && !most.compare_exchange_weak(seen, now)) {
                    }
                    std::this_thread::yield();
                    --inside;
                }
            });
        for (std::thread& t : steps) t.join();
        QVERIFY2(most.load() <= 2, qPrintable(QString::number(most.load())));
        setComputeSlots(0);
        const ComputeSlot unlimited;  // (no limit: at once)
        QCOMPARE(computeSlotsWaiting(), 0);
    }

    // More slots (more cores, or fewer LibTorch threads a step) let the waiting steps in at once;
    // fewer hold the next ones back until the steps computing are within them.
    void computeSlotsFollowTheirLimit() {
        setComputeSlots(1);
        std::vector<std::thread> steps;
        std::atomic<int> done{0};
        {
            const ComputeSlot held;
            for (int i = 0; i < 2; ++i) {
                steps.emplace_back([&] {
                    const ComputeSlot slot;
                    ++done;
                });
                while (computeSlotsWaiting() != i + 1) std::this_thread::yield();
            }
            setComputeSlots(4);  // (both in, beside the one held)
            for (std::thread& t : steps) t.join();
            QCOMPARE(done.load(), 2);
            setComputeThreadsPerStep(4);  // 4 cores, a step on 4 threads: one slot, the held one
            steps.clear();
            steps.emplace_back([&] {
                const ComputeSlot slot;
                ++done;
            });
            while (computeSlotsWaiting() != 1) std::this_thread::yield();
            QCOMPARE(done.load(), 2);
        }
        steps.front().join();
        QCOMPARE(done.load(), 3);
        setComputeThreadsPerStep(1);
        setComputeSlots(0);
    }

    // A wait for a slot calls back (a role's heartbeats vouch for its thread meanwhile), and what
    // the callback throws (a stop) ends the wait: the step leaves the line, and the slot's next
    // holder takes it as if it had never waited.
    void aWaitForASlotCallsBackAndCanBeGivenUp() {
        setComputeSlots(1);
        std::optional<ComputeSlot> held(std::in_place);
        const auto [gaveUp, calls] = givenUpAtTheSecondCall<ComputeSlot>();
        QVERIFY(gaveUp);
        QCOMPARE(calls, 2);
        QCOMPARE(computeSlotsWaiting(), 0);
        held.reset();
        std::thread next([] { const ComputeSlot slot; });  // (would wait forever were the slot lost)
        next.join();
        QCOMPARE(computeSlotsWaiting(), 0);
        setComputeSlots(0);
    }

    // The process-wide generator's turn (a TorchScript model's dropout): one holder at a time
    // whatever the compute slots, a wait that calls back and can be given up, and the turn
    // handed on to the one that waited.
    void theGeneratorsTurnIsOneAtATimeAndCanBeGivenUp() {
        std::atomic<bool> tookIt{false};
        std::optional<GeneratorTurn> held(std::in_place);
        const auto [gaveUp, calls] = givenUpAtTheSecondCall<GeneratorTurn>();
        QVERIFY(gaveUp);
        QCOMPARE(calls, 2);
        std::thread next([&] {
            const GeneratorTurn turn;  // (would wait forever were the turn lost)
            tookIt = true;
        });
        held.reset();
        next.join();
        QVERIFY(tookIt);
    }

    // A slowed worker's step sleeps out its slowness in slices that call the worker back: a long
    // step vouches for its heartbeats (a sleep longer than heartbeat_timeout_s was taken for a
    // hang) and a stop, thrown there, ends it. Before, the whole sleep went by in one call.
    void aSlowedStepCallsBackWhileItSleeps() {
        setTorchThreads(1);
        TrainingSettings s;
        s.dataset = "synthetic";
        s.model = "mlp";
        s.syntheticSamples = 512;
        LocalTrainer trainer(s, 0, 1, "cpu");
        trainer.setSlowdown(1000);  // a step of ~1 ms or more: a second's sleep or more
        int calls = 0;
        trainer.setProgress([&calls] {
            if (++calls == 2) throw std::runtime_error("asked to stop");
        });
        bool stopped = false;
        try {
            trainer.trainSteps(1);
        } catch (const std::runtime_error&) {
            stopped = true;
        }
        QVERIFY2(stopped, "the step slept out its slowness without a call back");
        QCOMPARE(calls, 2);
    }

    // A shared trainer is forked from the zygote, and its worker threads each set LibTorch's
    // threads as they start: concurrent first calls after a fork raced in LibTorch's pool
    // ("Invalid thread pool!", the worker aborted). Forked children here, eight threads each
    // setting them at once: every child ends cleanly.
    void threadsSetFromManyThreadsAfterAForkAreSafe() {
        setTorchThreads(1);
        int failed = 0;
        for (int child = 0; child < 40; ++child) {  // (without the lock, 21 and 24 of 40 failed)
            const pid_t pid = ::fork();
            if (pid == 0) {
                std::atomic<int> ready{0};
                std::atomic<bool> error{false};
                std::vector<std::thread> threads;
                for (int t = 0; t < 8; ++t)
                    threads.emplace_back([&] {
                        ++ready;
                        while (ready.load() < 8) {
                        }
                        try {
                            setTorchThreads(1);
                        } catch (...) {
                            error = true;
                        }
                    });
                for (std::thread& t : threads) t.join();
                ::_exit(error ? 1 : 0);
            }
            QVERIFY(pid > 0);
            int status = 0;
            QDeadlineTimer deadline(30000);  // (a child may also hang in the race: it is killed, and counts)
            pid_t done = 0;
            while ((done = ::waitpid(pid, &status, WNOHANG)) == 0 && !deadline.hasExpired()) QThread::msleep(5);
            if (done == 0) {
                ::kill(pid, SIGKILL);
                ::waitpid(pid, &status, 0);
            }
            failed += !(done == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
        }
        QCOMPARE(failed, 0);
    }
};

QTEST_GUILESS_MAIN(ComputeSlotsTest)
#include "tst_computeslots.moc"
