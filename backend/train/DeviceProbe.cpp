#include "DeviceProbe.h"

#include <QCborArray>
#include <dlfcn.h>

namespace hips {

QStringList driverGpuNames() {
    // The driver API's C entry points are stable across CUDA versions, so the probe needs no
    // CUDA headers and works with a CPU-only LibTorch too (then it names GPUs it cannot use).
    // Kept loaded (RTLD_NODELETE): unloading an initialised driver under LibTorch's feet is no good.
    void* cuda = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!cuda) return {};
    using Init = int (*)(unsigned);
    using Count = int (*)(int*);
    using Get = int (*)(int*, int);
    using Name = int (*)(char*, int, int);
    const auto init = reinterpret_cast<Init>(::dlsym(cuda, "cuInit"));
    const auto count = reinterpret_cast<Count>(::dlsym(cuda, "cuDeviceGetCount"));
    const auto get = reinterpret_cast<Get>(::dlsym(cuda, "cuDeviceGet"));
    const auto name = reinterpret_cast<Name>(::dlsym(cuda, "cuDeviceGetName"));
    QStringList names;
    int n = 0;
    if (init && count && get && name && init(0) == 0 && count(&n) == 0) {
        for (int i = 0; i < n; ++i) {
            int device = 0;
            char text[256] = {};
            names << (get(&device, i) == 0 && name(text, int(sizeof text) - 1, device) == 0 ? QString::fromUtf8(text)
                                                                                            : QStringLiteral("GPU %1").arg(i));
        }
    }
    ::dlclose(cuda);
    return names;
}

QCborMap probeDevices() {
    QCborArray gpus;
    for (const QString& name : driverGpuNames()) gpus.append(name);
    return {{QStringLiteral("torch"), QStringLiteral(HIPS_TORCH_FLAVOR)},
            {QStringLiteral("cuda"), torch::cuda::is_available()},
            {QStringLiteral("gpus"), gpus}};
}

QCborMap describeDevice(const QString& device) {
    QCborMap fields{{QStringLiteral("torch"), QStringLiteral(HIPS_TORCH_FLAVOR)}, {QStringLiteral("device"), device}};
    if (device.startsWith(QLatin1String("cuda"))) {
        const int index = device.contains(':') ? device.section(':', 1).toInt() : 0;
        fields.insert(QStringLiteral("gpu"), driverGpuNames().value(index, QStringLiteral("GPU %1").arg(index)));
    }
    return fields;
}

}  // namespace hips
