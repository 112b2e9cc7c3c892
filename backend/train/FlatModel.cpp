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
    if (device.is_cuda())
        m_host = torch::empty({m_flat.numel()}, torch::TensorOptions().dtype(torch::kFloat32).pinned_memory(true));
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
    const torch::Tensor source = torch::from_blob(const_cast<float*>(cpuWeights), {m_flat.numel()}, torch::kFloat32);
    if (!m_host.defined()) {
        m_flat.copy_(source);
        return;
    }
    // Through the pinned mirror: the host-to-GPU copy then runs asynchronously, ordered before
    // the next step's kernels on the same stream. The last copy out of the mirror has finished
    // (hostFlat waits for it), so overwriting it here is safe.
    torch::cuda::synchronize(m_flat.device().index());
    m_host.copy_(source);
    m_flat.copy_(m_host, /*non_blocking=*/true);
}

const torch::Tensor& FlatModel::hostFlat() {
    if (!m_host.defined()) return m_flat;
    m_host.copy_(m_flat, /*non_blocking=*/true);
    torch::cuda::synchronize(m_flat.device().index());
    return m_host;
}

void FlatModel::writeGradient(float scale, float* cpuOut) const {
    torch::NoGradGuard noGrad;
    torch::Tensor out = torch::from_blob(cpuOut, {m_flat.numel()}, torch::kFloat32);
    // On a GPU, gathered in the flat layout where the gradients are, then moved in one copy.
    torch::Tensor flat = m_host.defined() ? torch::zeros_like(m_flat) : out.zero_();
    size_t i = 0;
    for (const torch::Tensor& p : m_net->parameters()) {
        const int64_t offset = m_offsets[i++];
        if (p.grad().defined()) flat.narrow(0, offset, p.numel()).copy_(p.grad().reshape(-1));
    }
    if (m_host.defined()) out.copy_(flat);
    out.mul_(scale);
}

std::vector<float> FlatModel::weights() const {
    const torch::Tensor cpu = m_flat.to(torch::kCPU).contiguous();
    return std::vector<float>(cpu.data_ptr<float>(), cpu.data_ptr<float>() + cpu.numel());
}

}  // namespace hips
