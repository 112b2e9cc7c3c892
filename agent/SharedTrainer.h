#pragma once
// The shared trainer: one hips-trainer per run directory that runs several workers of a host as
// threads (`training.trainer_processes`), so that a worker costs its model, optimizer and buffers,
// not a process with LibTorch's heap (issue 48: 64 workers on one host).
//
// It speaks the zygote's protocol (TrainerZygote.h) on descriptor 3: a spawn starts the role on a
// thread of its own, whose output goes to the pipes sent with it (RoleScope.h) and whose
// variables are the environment sent with it; "spawned" names this process's pid for every one.
// SIGTERM for a node stops that thread (its ZeroMQ context shut down); SIGKILL, which the agent
// sends only to a role that did not stop, can only end the process, and every role in it.
// When the agent closes the socket (or dies: PR_SET_PDEATHSIG) every role is stopped.
#include <QStringList>

namespace hips::shared_trainer {

// Runs one role on the calling thread, from its command line (`hips-trainer role --topology ...`);
// returns its exit status.
using RunRole = int (*)(const QStringList& args);

int serve(int socket, RunRole runRole);

}  // namespace hips::shared_trainer
