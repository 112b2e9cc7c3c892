#pragma once
// The trainer zygote: one hips-trainer per agent that loads LibTorch once (its static set-up
// costs ~0.4 CPU-s per process) and forks a trainer for each worker or master the agent starts,
// so that start-up does not grow with the trainers on a host (issue 10).
//
// The agent talks to it over a private socket pair (PacketSocket.h), one CBOR map per packet:
//   agent -> zygote  {op: spawn, node, args, env, cwd} with the role's stdout and stderr pipes
//                    (env is the child's whole environment), and for a shared trainer
//                    (SharedTrainer.h) a third descriptor: its own socket to the agent, on its 3
//                    {op: signal, node, signal}
//   zygote -> agent  {op: spawned, node, pid} | {op: failed, node, error}
//                    {op: exited, node, code, signal}
// The zygote itself starts no thread before it forks (OpenBLAS is told to use one, and no
// Qt application, ZeroMQ context or torch operation exists in it), so every child starts clean.
#include <QCborMap>
#include <QString>
#include <QStringList>
#include <functional>
#include <optional>

namespace hips::zygote {

using RoleMain = int (*)(int argc, char** argv);

// The zygote's own command line, which each child overwrites with its role's (so that ps and
// /proc/PID/cmdline name the node): from argv[0] to the end of its last argument. The agent
// starts the zygote with a long blank argument to make room.
struct CommandLineRoom {
    char* start = nullptr;
    size_t size = 0;
};
constexpr int kCommandLineRoomBytes = 4096;

// hips-trainer side: serves the agent on `socket` until the agent closes it (or dies), then
// kills the trainers it forked. A forked child runs roleMain and exits with its status.
int serve(int socket, CommandLineRoom title, RoleMain roleMain);

// A spawn request as received, with the role's stdout and stderr (the pipes' write ends).
struct Spawn {
    QString node, cwd;
    QStringList args;
    QCborMap env;
    int out = -1, err = -1;
    int channel = -1;  // a shared trainer's socket to the agent
};
// nullopt (and why) for a request without a node, directory, arguments or its two pipes.
std::optional<Spawn> parseSpawn(const QCborMap& m, const QList<int>& fds, QString* error);
// The replies, as both the zygote and the shared trainer send them.
void reply(int socket, const QCborMap& map);
// Reads one request from the agent and hands it to `spawn` (with the descriptors that came with
// it) or `signal`; false when the agent has closed its end, or is gone.
bool handleRequest(int socket, const std::function<void(const QCborMap&, const QList<int>&)>& spawn,
                   const std::function<void(const QCborMap&)>& signal);

// Both sides: the one place that spells the messages.
QByteArray spawnRequest(const QString& node, const QStringList& args, const QCborMap& env, const QString& cwd);
QByteArray signalRequest(const QString& node, int signal);

}  // namespace hips::zygote
