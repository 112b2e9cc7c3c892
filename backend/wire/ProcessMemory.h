#pragma once
// How a role process's heap treats large blocks, set once at its start (hips-agent's roles,
// hips-trainer, the benches).

namespace hips {

// Keeps large blocks in the heap. By default glibc maps each block above 128 KiB afresh and
// returns it on free, so every ZeroMQ message of a model slice a server receives, and every
// ~19 MB evaluation temporary of the master, is faulted back in page by page (issue 10: millions
// of minor faults a run in the master; a quarter of four workers' throughput at 1 MB in
// bench_dataplane). Call before the first allocation that matters.
void keepLargeAllocations();

}  // namespace hips
