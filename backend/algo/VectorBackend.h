#pragma once
// Where robust rules do their whole-vector work: Krum's and Bulyan's pairwise distances and the
// geometric median's Weiszfeld iterations. This process's CPU by default; a server whose `device`
// is a GPU runs in hips-trainer (it has LibTorch), which installs a GPU backend before the role
// starts (backend/train/GpuVectorBackend.h). bench_gpu_rules measures the two side by side.
#include <QString>

#include <memory>
#include <vector>

namespace hips {

struct WeiszfeldOptions {
    double tolerance = 1e-5;  // the relative step that ends the iterations
    int maxIterations = 100;
    double nu = 1e-6;  // the smallest distance a weight divides by
};

class VectorBackend {
public:
    virtual ~VectorBackend() = default;
    virtual QString device() const { return QStringLiteral("cpu"); }
    // ‖a − b‖² for every pair of the n vectors of `length` floats, row-major n × n.
    virtual std::vector<double> pairwiseSquaredDistances(const std::vector<const float*>& vectors, size_t length) const;
    // n × the weighted geometric median of the n vectors, into out (`length` floats), by smoothed
    // Weiszfeld iterations from the weighted mean; returns the iterations taken.
    virtual int geometricMedian(const std::vector<const float*>& vectors, const std::vector<double>& weights, size_t length,
                                const WeiszfeldOptions& options, float* out) const;
};

// The backend of this process (the CPU's unless one was installed).
const VectorBackend& vectorBackend();
// Installs `backend` for the rest of the process (nullptr: the CPU's again). Not thread-safe:
// called once, before a role starts.
void setVectorBackend(std::shared_ptr<const VectorBackend> backend);

}  // namespace hips
