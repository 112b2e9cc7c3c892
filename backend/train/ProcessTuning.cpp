#include "ProcessTuning.h"

#include <dlfcn.h>
#include <malloc.h>

namespace hips {

void keepLargeAllocations() {
    // Measured on the default run: 4.8 M page faults and ~11 s of system CPU in the master
    // without this, 44 k with it (the same as GLIBC_TUNABLES mmap_threshold=64 MiB,
    // trim_threshold=256 MiB).
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
}

void pinBlasThreads(int threads) {
    // OpenBLAS names it openblas_set_num_threads; its older GotoBLAS name is kept as a fallback.
    for (const char* name : {"openblas_set_num_threads", "goto_set_num_threads"})
        if (auto* set = reinterpret_cast<void (*)(int)>(dlsym(RTLD_DEFAULT, name))) {
            set(threads);
            return;
        }
}

}  // namespace hips
