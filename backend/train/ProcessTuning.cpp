#include "ProcessTuning.h"

#include <dlfcn.h>

namespace hips {

void pinBlasThreads(int threads) {
    // OpenBLAS names it openblas_set_num_threads; its older GotoBLAS name is kept as a fallback.
    for (const char* name : {"openblas_set_num_threads", "goto_set_num_threads"})
        if (auto* set = reinterpret_cast<void (*)(int)>(dlsym(RTLD_DEFAULT, name))) {
            set(threads);
            return;
        }
}

}  // namespace hips
