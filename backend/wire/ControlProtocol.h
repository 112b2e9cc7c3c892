#pragma once
// Control plane between a controller (DEALER) and a hips-agent (ROUTER), always over CURVE:
// the agent admits only its controller's key, and names that connection "controller".
// Controller → agent: hello, start {node, topology, out_dir, threads, node_key, peer_keys}, stop {node},
// stop_all, shutdown, ping, ack {seq}. Agent → controller: hello_ok {version, host, pid}, pong
// (hello, ping and their answers also carry the clocks: ClockStamp.h),
// event {seq, kind, node, ...} with kind started/exited/metric/log; every event is kept
// until acknowledged and sent again until it is.
#include <QLatin1String>
#include <cstddef>

namespace hips::control {

// The kinds of event an agent sends (event {seq, kind, node, ...}), with their fields.
namespace event {
inline constexpr QLatin1String kStarted{"started"};  // pid
inline constexpr QLatin1String kExited{"exited"};  // code, crashed, error; restarting, attempt, max_restarts, delay_ms
inline constexpr QLatin1String kMetric{"metric"};  // json: one record of the role's (Vocabulary.h)
inline constexpr QLatin1String kLog{"log"};  // stream (stdout, stderr), line
// Events that gave way while the journal was full (EventJournal.h): numbers seq … through.
inline constexpr QLatin1String kSkipped{"skipped"};  // through
}  // namespace event

// 2: a skipped marker stands for a run of events (through).
constexpr int kProtocolVersion = 2;
constexpr const char* kControllerId = "controller";
constexpr int kResendMs = 2000;
constexpr int kPingMs = 1000;
// Either side gives up on a silent peer after this, unless the run's agent_timeout_s says otherwise
// (before a run: a handshake, hips deploy and stop).
constexpr int kSilenceTimeoutS = 10;
// hips-agent's exit status when it ended a run because its controller fell silent: the
// controller (stopped with SIGSTOP, suspended, starved) learns on waking that it was the cause.
constexpr int kAgentExitControllerSilent = 3;
// An agent asked for its devices answers its hello once hips-trainer's probe has (CUDA's first
// start on a large GPU takes tens of seconds); a probe past this is killed and its host said.
constexpr int kDeviceProbeTimeoutMs = 60000;
constexpr size_t kMaxCommandBytes = 4 << 20;  // a start carries the topology (≤ 1 MiB) and the run's public keys
constexpr size_t kMaxEventBytes = 1 << 20;  // an event carries one log or metric line (the agent cuts longer ones)

}  // namespace hips::control
