#include "GpuVectorBackend.h"

#include "Models.h"

namespace hips {

namespace {

class GpuVectorBackend final : public VectorBackend {
public:
    GpuVectorBackend(torch::Device device, QString name) : m_device(device), m_name(std::move(name)) {}
    QString device() const override { return m_name; }

    std::vector<double> pairwiseSquaredDistances(const std::vector<const float*>& vectors, size_t length) const override {
        torch::NoGradGuard noGrad;
        const int64_t n = int64_t(vectors.size());
        const torch::Tensor x = upload(vectors, length);
        const torch::Tensor gram = torch::mm(x, x.t());
        const torch::Tensor norms = gram.diagonal();
        torch::Tensor d = (norms.unsqueeze(0) + norms.unsqueeze(1) - 2 * gram).clamp_min(0);
        d.fill_diagonal_(0);
        const torch::Tensor cpu = d.to(torch::kCPU).contiguous();
        return std::vector<double>(cpu.data_ptr<double>(), cpu.data_ptr<double>() + n * n);
    }

    int geometricMedian(const std::vector<const float*>& vectors, const std::vector<double>& weights, size_t length,
                        const WeiszfeldOptions& options, float* out) const override {
        torch::NoGradGuard noGrad;
        const torch::Tensor x = upload(vectors, length);
        const torch::Tensor w = torch::tensor(weights, torch::TensorOptions().dtype(torch::kFloat64)).to(m_device);
        torch::Tensor z = torch::mv(x.t(), w / w.sum());
        int iterations = 0;
        while (iterations < options.maxIterations) {
            ++iterations;
            const torch::Tensor beta = w / (x - z).norm(2, 1).clamp_min(options.nu);
            const torch::Tensor next = torch::mv(x.t(), beta / beta.sum());
            const double step = (next - z).norm().item<double>();
            const double norm = next.norm().item<double>();
            z = next;
            if (step <= options.tolerance * std::max(norm, 1e-30)) break;
        }
        torch::from_blob(out, {int64_t(length)}, torch::kFloat32).copy_((z * double(vectors.size())).to(torch::kFloat32));
        return iterations;
    }

private:
    // The n contributions as rows of one double matrix on the GPU: each row copied as float
    // straight from where it lies, then widened there.
    torch::Tensor upload(const std::vector<const float*>& vectors, size_t length) const {
        torch::Tensor x =
            torch::empty({int64_t(vectors.size()), int64_t(length)}, torch::TensorOptions().dtype(torch::kFloat32).device(m_device));
        for (size_t k = 0; k < vectors.size(); ++k)
            x[int64_t(k)].copy_(torch::from_blob(const_cast<float*>(vectors[k]), {int64_t(length)}, torch::kFloat32));
        return x.to(torch::kFloat64);
    }

    torch::Device m_device;
    QString m_name;
};

}  // namespace

std::shared_ptr<const VectorBackend> makeGpuVectorBackend(const QString& device) {
    return std::make_shared<GpuVectorBackend>(resolveDevice(device), device);
}

}  // namespace hips
