#include "FlatModel.h"

namespace hips {

FlatModel::FlatModel(const QString& name, InputShape in, torch::Device device, int seed) {
    torch::manual_seed(seed);  // the same seed gives every process the same initial model
    m_net = createNet(name, in);
    m_net->to(device);
    torch::NoGradGuard noGrad;
    // The parameters, then the float buffers (BatchNorm's running statistics: averaged with the
    // weights, as ESync does); BatchNorm's int64 batch counter stays out, unused with a momentum.
    std::vector<torch::Tensor> tensors = m_net->parameters();
    m_parameterTensors = tensors.size();
    for (const torch::Tensor& b : m_net->buffers())
        if (b.scalar_type() == torch::kFloat32) tensors.push_back(b);
    // Each tensor starts on a 64-byte boundary, as a separately allocated tensor would:
    // convolution kernels run measurably slower on unaligned weights. Padding stays zero.
    constexpr int64_t kAlign = 16;
    auto aligned = [](int64_t n) { return (n + kAlign - 1) / kAlign * kAlign; };
    int64_t total = 0;
    for (const torch::Tensor& p : tensors) total = aligned(total) + p.numel();
    m_flat = torch::zeros({aligned(total)}, torch::TensorOptions().dtype(torch::kFloat32).device(device));
    int64_t offset = 0;
    for (torch::Tensor& p : tensors) {
        offset = aligned(offset);
        m_offsets.push_back(offset);
        torch::Tensor view = m_flat.narrow(0, offset, p.numel());
        view.copy_(p.reshape(-1));
        p.set_(view.view(p.sizes()));
        offset += p.numel();
    }
}

void FlatModel::load(const float* cpuWeights) {
    torch::NoGradGuard noGrad;
    m_flat.copy_(torch::from_blob(const_cast<float*>(cpuWeights), {m_flat.numel()}, torch::kFloat32));
}

void FlatModel::writeGradient(float scale, float* cpuOut) const {
    torch::NoGradGuard noGrad;
    torch::Tensor out = torch::from_blob(cpuOut, {m_flat.numel()}, torch::kFloat32);
    out.zero_();
    size_t i = 0;
    for (const torch::Tensor& p : m_net->parameters()) {
        const int64_t offset = m_offsets[i++];
        if (p.grad().defined()) out.narrow(0, offset, p.numel()).copy_(p.grad().reshape(-1).to(torch::kCPU)).mul_(scale);
    }
}

std::vector<float> FlatModel::weights() const {
    const torch::Tensor cpu = m_flat.to(torch::kCPU).contiguous();
    return std::vector<float>(cpu.data_ptr<float>(), cpu.data_ptr<float>() + cpu.numel());
}

}  // namespace hips
