#pragma once
// What a role has of its own that a process would have process-wide: its output streams and the
// variables the agent hands it. A role runs as a process of its own (the default: stdout, stderr,
// the environment) or as a thread of a shared trainer (ThreadHost.h: several workers of one host
// in one process), whose thread sets a scope naming its own pipes and variables.
//
// Threads a role starts (a heartbeat, a socket's I/O) write to the process's streams.
#include <QByteArray>
#include <QHash>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <zmq.hpp>

namespace hips {

class RoleScope {
public:
    FILE* out = nullptr;  // metrics lines ("@metric ...") and log text
    FILE* err = nullptr;  // log text, errors
    QHash<QByteArray, QByteArray> variables;  // HIPS_NODE_KEY, HIPS_PEER_KEYS_FILE, ...
    // When the role was asked for: its start-up counts from here, not from its process's start.
    const std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();

    // A thread cannot be killed as a process can: a role is stopped by shutting its ZeroMQ
    // context down, which fails its next socket call (ETERM) wherever it waits. The role attaches
    // its context while it lives; a stop asked before that shuts it down as it attaches.
    void attach(zmq::context_t* context);
    void requestStop();  // (any thread)
    bool stopRequested() const;

private:
    mutable std::mutex m_lock;
    zmq::context_t* m_context = nullptr;
    bool m_stop = false;
};

// The calling thread's scope (nullptr: none; the role is the process). Not owned.
void setThreadRoleScope(RoleScope* scope);
RoleScope* threadRoleScope();
// Whether the calling role speaks for its process's memory: a role that is its process always;
// of a shared trainer's roles the first to ask, for the process's life, so that where a party's
// processes are summed the shared process counts once, not once a worker. (Not handed on when it
// ends: two workers' figures of one round would be summed again.)
bool speaksForProcessMemory();

FILE* roleOut();  // the scope's out, else stdout
FILE* roleErr();  // the scope's err, else stderr
// A variable the agent set for this role: the scope's, else the process environment's.
QByteArray roleVariable(const char* name);

}  // namespace hips
