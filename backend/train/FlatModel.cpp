#include "FlatModel.h"

#include <regex>

#include "Models.h"
#include "ScriptModel.h"
#include "TrainError.h"
#include "PrivateFiles.h"

#include <sstream>

namespace hips {

FlatModel::FlatModel(const QString& name, InputShape in, torch::Device device, int seed) {
    std::lock_guard<std::recursive_mutex> lock(processGeneratorLock());
    torch::manual_seed(seed);  // the same seed gives every process the same initial model
    m_net = createNet(name, in);
    flatten(device);
}

FlatModel::FlatModel(const TrainingSettings& s, torch::Device device) {
    std::lock_guard<std::recursive_mutex> lock(processGeneratorLock());
    torch::manual_seed(s.seed);
    if (!s.torchScript()) {
        m_net = createNet(s.model, s.modelInput(), s.classes);
        flatten(device);
        return;
    }
    // The file's own initial weights, the same in every process that loads the same file.
    const QString file = modelFileOnThisHost(s);
    if (!s.modelSha256.isEmpty() && fileSha256(file) != s.modelSha256)
        throw TrainError("the TorchScript model " + file.toStdString() +
                         " on this host is not the file the run was "
                         "started with (its SHA-256 differs): every role must load the identical file");
    m_net = std::make_shared<ScriptNet>(file);
    flatten(device);
    if (!s.modelTensors.empty() && s.modelTensors != m_tensorSizes)
        throw TrainError("the TorchScript model " + file.toStdString() +
                         " has other tensors than the run was sized "
                         "for: every role must load the identical file");
    // (A topology that said none for a BatchNorm net had its running statistics stepped as
    // weights by the server's optimizer.)
    if (const size_t buffers = m_tensorSizes.size() - m_parameterTensors;
        !s.modelTensors.empty() && size_t(s.modelBufferTensors) != buffers)
        throw TrainError("the TorchScript model " + file.toStdString() + " has " + std::to_string(buffers) +
                         " floating buffers where the run was sized for " + std::to_string(s.modelBufferTensors) +
                         " (training.model.buffers); remove training.model's sha256, tensors and buffers, and hips run reads them again");
}

bool FlatModel::isTorchScript() const {
    return dynamic_cast<const ScriptNet*>(m_net.get()) != nullptr;
}

void FlatModel::flatten(torch::Device device) {
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
    if (device.is_cuda()) m_host = torch::empty({m_flat.numel()}, torch::TensorOptions().dtype(torch::kFloat32).pinned_memory(true));
    int64_t offset = 0;
    for (torch::Tensor& p : tensors) {
        m_tensorSizes.push_back(size_t(p.numel()));
        offset = aligned(offset);
        m_offsets.push_back(offset);
        torch::Tensor view = m_flat.narrow(0, offset, p.numel());
        view.copy_(p.reshape(-1));
        p.set_(view.view(p.sizes()));
        offset += p.numel();
    }
}

void FlatModel::releaseWeights() {
    if (m_host.defined() || m_released) return;
    m_flat.storage().unsafeGetStorageImpl()->set_data_ptr_noswap(at::DataPtr(nullptr, m_flat.device()));
    m_released = true;
}

void FlatModel::checkHeld() const {
    if (m_released) throw TrainError("this worker's model was parked between its turns: its weights are loaded at the next turn");
}

void FlatModel::load(const float* cpuWeights) {
    torch::NoGradGuard noGrad;
    if (m_released) {  // (the same bytes again, the same storage: every parameter's view sees them)
        c10::StorageImpl* storage = m_flat.storage().unsafeGetStorageImpl();
        storage->set_data_ptr_noswap(storage->allocator()->allocate(storage->nbytes()));
        m_released = false;
    }
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
    checkHeld();
    if (!m_host.defined()) return m_flat;
    m_host.copy_(m_flat, /*non_blocking=*/true);
    torch::cuda::synchronize(m_flat.device().index());
    return m_host;
}

void FlatModel::writeGradient(float scale, float* cpuOut) const {
    checkHeld();
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
    checkHeld();
    const torch::Tensor cpu = m_flat.to(torch::kCPU).contiguous();
    return std::vector<float>(cpu.data_ptr<float>(), cpu.data_ptr<float>() + cpu.numel());
}

}  // namespace hips

namespace hips {

namespace {

QString shapeText(at::IntArrayRef sizes) {
    QStringList dims;
    for (int64_t d : sizes) dims << QString::number(d);
    return dims.join(QStringLiteral(" x "));
}

}  // namespace

std::string torchErrorLine(const std::exception& e) {
    const auto* own = dynamic_cast<const c10::Error*>(&e);
    const std::string text = own ? own->what_without_backtrace() : e.what();
    // The interpreter's traceback ends with the error's class and message, one line.
    static const std::regex last(R"((?:^|\n)[A-Za-z]*(?:Error|Exception): ([^\n]+))");
    std::string line;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), last); it != std::sregex_iterator(); ++it) line = (*it)[1];
    return line.empty() ? text.substr(0, text.find('\n')) : line;
}

void FlatModel::checkInput(const torch::Tensor& images, int classes, const QString& owner, bool trains) {
    if (images.size(0) == 0) return;
    const torch::Tensor batch = images.narrow(0, 0, std::min<int64_t>(2, images.size(0)));
    const bool training = m_net->is_training();
    m_net->eval();  // no BatchNorm statistics move for a check
    torch::Tensor logits;
    bool learns = true;
    // With gradients where the samples are for training (an evaluator's weights are inference
    // tensors): a model whose outputs are cut from its parameters is named here, not at its first step.
    try {  // (a TorchScript model's error is a std::runtime_error, not LibTorch's own)
        torch::AutoGradMode gradients(trains);
        logits = m_net->forward(batch);
        learns = !trains || logits.requires_grad();
        logits = logits.detach();
    } catch (const std::exception& e) {
        m_net->train(training);
        throw TrainError(QStringLiteral("the model does not take %1's samples (%2 each): %3")
                             .arg(owner, shapeText(batch.sizes().slice(1)), QString::fromStdString(torchErrorLine(e)))
                             .toStdString());
    }
    m_net->train(training);
    if (!learns)
        throw TrainError(QStringLiteral("the model's outputs for %1's samples do not depend on its parameters (detached, or computed "
                                        "without gradients): it cannot learn; return what its parameters compute")
                             .arg(owner)
                             .toStdString());
    if (logits.dim() != 2 || logits.size(0) != batch.size(0) || logits.size(1) != classes || !logits.is_floating_point())
        throw TrainError(QStringLiteral("the model returns %1 %2 for a batch of %3 of %4's samples; it must return "
                                        "floating outputs of batch x %5 (training.classes; a regression's training.outputs)")
                             .arg(shapeText(logits.sizes()), QString::fromStdString(std::string(c10::toString(logits.scalar_type()))))
                             .arg(batch.size(0))
                             .arg(owner)
                             .arg(classes)
                             .toStdString());
}

void FlatModel::saveForPyTorch(const QString& path, bool stateDict) const {
    try {
        if (auto* script = dynamic_cast<ScriptNet*>(m_net.get()); script && !stateDict) {
            std::ostringstream bytes;
            script->module().save(bytes);
            if (const QString error = writeFileAtomically(path, QByteArray::fromStdString(bytes.str())); !error.isEmpty())
                throw TrainError(error.toStdString());
            return;
        }
        // A dict of name -> tensor that Python's torch.load reads and load_state_dict takes.
        c10::Dict<std::string, at::Tensor> dict;
        const auto add = [&dict](const std::string& name, const torch::Tensor& t) {
            dict.insert(name, t.detach().to(torch::kCPU).clone());
        };
        if (auto* script = dynamic_cast<ScriptNet*>(m_net.get())) {
            for (const auto& p : script->module().named_parameters(true)) add(p.name, p.value);
            for (const auto& b : script->module().named_buffers(true)) add(b.name, b.value);
        } else {
            for (const auto& p : m_net->named_parameters(true)) add(p.key(), p.value());
            for (const auto& b : m_net->named_buffers(true)) add(b.key(), b.value());
        }
        const std::vector<char> bytes = torch::jit::pickle_save(c10::IValue(dict));
        if (const QString error = writeFileAtomically(path, QByteArray(bytes.data(), qsizetype(bytes.size()))); !error.isEmpty())
            throw TrainError(error.toStdString());
    } catch (const c10::Error& e) {
        throw TrainError("cannot write the model to " + path.toStdString() + ": " + e.what_without_backtrace());
    }
}

}  // namespace hips
