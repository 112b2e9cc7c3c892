#pragma once
// Control plane between a controller (DEALER, routing id "controller") and a hips-agent
// (ROUTER). Controller → agent: hello, start {node, topology, out_dir, threads}, stop {node},
// stop_all, shutdown, ping, ack {seq}. Agent → controller: hello_ok {version, host, pid}, pong,
// event {seq, kind, node, ...} with kind started/exited/metric/log; every event is kept
// until acknowledged and sent again until it is.
namespace hips::control {

constexpr int kProtocolVersion = 1;
constexpr const char* kControllerId = "controller";
constexpr int kResendMs = 2000;
constexpr int kPingMs = 1000;
constexpr int kSilenceTimeoutS = 10;  // either side gives up on a silent peer after this

}  // namespace hips::control
