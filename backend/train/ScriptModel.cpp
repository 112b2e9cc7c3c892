#include "ScriptModel.h"

#include "LocalTrainer.h"
#include "TrainError.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QFile>
#include <QFileInfo>
#include <set>
#include <sys/stat.h>
#include <torch/csrc/jit/passes/inliner.h>

namespace hips {

namespace {

std::string loadFailure(const QString& file, const std::string& why) {
    return "cannot load the TorchScript model " + file.toStdString() + " with " + torchVersion().toStdString() + ": " + why +
           "; save it from PyTorch with torch.jit.save(torch.jit.script(net), FILE) (torch.jit.trace only for a net without dropout or "
           "BatchNorm), with a "
           "PyTorch no newer than this LibTorch";
}

// The first line of a LibTorch error: its message without the C++ backtrace.
std::string firstLine(const c10::Error& e) {
    const std::string text = e.what_without_backtrace();
    return text.substr(0, text.find('\n'));
}

// nn::Module names may not contain dots: the module's own names ("features.0.weight") with the
// dots replaced, and a number after one that another already took ("conv.1.weight" and
// "conv_1.weight": LibTorch refused the second with a backtrace).
std::string flatName(const std::string& name, std::set<std::string>* taken) {
    std::string flat = name;
    for (char& c : flat)
        if (c == '.') c = '_';
    std::string out = flat;
    for (int n = 2; !taken->insert(out).second; ++n) out = flat + "_" + std::to_string(n);
    return out;
}

// The first node under `block` (its nested blocks too) whose dropout or BatchNorm mode is a
// constant, not self.training: what torch.jit.trace records (the mode the net was traced in,
// kept whether it is put in train() or eval() after), where torch.jit.script reads the flag.
const torch::jit::Node* modeFixedNode(const torch::jit::Block* block) {
    const auto constant = [](const torch::jit::Node* n, size_t input) {
        return n->inputs().size() > input && n->input(input)->node()->kind() == c10::prim::Constant;
    };
    for (const torch::jit::Node* n : block->nodes()) {
        const c10::Symbol kind = n->kind();
        const bool dropout = kind == c10::aten::dropout || kind == c10::aten::dropout_ || kind == c10::aten::feature_dropout ||
                             kind == c10::aten::alpha_dropout || kind == c10::aten::feature_alpha_dropout;
        // (BatchNorm without running statistics always normalises by the batch: its flag is moot.)
        const bool batchNorm = kind == c10::aten::batch_norm && !constant(n, 3);
        if ((dropout && constant(n, 2)) || (batchNorm && constant(n, 5))) return n;
        for (const torch::jit::Block* inner : n->blocks())
            if (const torch::jit::Node* found = modeFixedNode(inner)) return found;
    }
    return nullptr;
}

void refuseFixedModes(torch::jit::Module& module, const QString& file) {
    const std::shared_ptr<torch::jit::Graph> graph = module.get_method("forward").graph()->copy();
    torch::jit::Inline(*graph);  // (submodules' forwards, called as methods, into one graph)
    if (const torch::jit::Node* n = modeFixedNode(graph->block()))
        throw TrainError(loadFailure(file, std::string("its ") + n->kind().toUnqualString() +
                                               " runs in one mode whether the net trains or is evaluated (a traced net's: "
                                               "torch.jit.trace records the mode it was traced in)"));
}

}  // namespace

ScriptNet::ScriptNet(const QString& file) {
    if (!QFile::exists(file))
        throw TrainError("the TorchScript model " + file.toStdString() + " does not exist; check training.model.torchscript");
    try {
        m_module = torch::jit::load(file.toStdString(), torch::kCPU);
    } catch (const c10::Error& e) {
        throw TrainError(loadFailure(file, firstLine(e)));
    } catch (const std::exception& e) {
        throw TrainError(loadFailure(file, e.what()));
    }
    if (!m_module.find_method("forward")) throw TrainError(loadFailure(file, "the module has no forward method"));
    refuseFixedModes(m_module, file);
    // A tied weight (one tensor in two submodules: an embedding and its decoder) comes once for
    // each; it is one parameter, trained once a step and sent once, under its first name.
    std::set<const void*> seen;
    std::set<std::string> names;
    const auto first = [&seen](const torch::Tensor& t) { return seen.insert(t.unsafeGetTensorImpl()).second; };
    // Every parameter is trained (a file whose parameters all have requires_grad off, as one
    // built without autograd has, trains too); one frozen among trained ones was meant to stay.
    std::string trained;
    for (const auto& p : m_module.named_parameters(/*recurse=*/true))
        if (p.value.requires_grad() && trained.empty()) trained = p.name;
    for (const auto& p : m_module.named_parameters(/*recurse=*/true)) {
        if (!first(p.value)) continue;
        if (p.value.scalar_type() != torch::kFloat32)
            throw TrainError(loadFailure(file, "parameter " + p.name + " is " + std::string(c10::toString(p.value.scalar_type())) +
                                                   "; convert the net with net.float() before saving"));
        if (!trained.empty() && !p.value.requires_grad())
            throw TrainError(loadFailure(file, "parameter " + p.name + " is frozen (requires_grad False) while " + trained +
                                                   " trains; hips trains every parameter: unfreeze it, or register it as a buffer"));
        register_parameter(flatName(p.name, &names), p.value, /*requires_grad=*/true);
    }
    if (this->parameters().empty()) throw TrainError(loadFailure(file, "the module has no floating-point parameters to train"));
    for (const auto& b : m_module.named_buffers(/*recurse=*/true)) {
        if (!first(b.value)) continue;
        if (b.value.is_floating_point() && b.value.scalar_type() != torch::kFloat32)  // (only float32 ones are averaged and kept)
            throw TrainError(loadFailure(file, "buffer " + b.name + " is " + std::string(c10::toString(b.value.scalar_type())) +
                                                   "; convert the net with net.float() before saving"));
        register_buffer(flatName(b.name, &names), b.value);
    }
}

torch::Tensor ScriptNet::forward(torch::Tensor x) {
    const c10::IValue out = m_module.forward({x});
    if (!out.isTensor()) throw TrainError("the TorchScript model's forward returned " + out.tagKind() + ", not a tensor of logits");
    return out.toTensor();
}

void ScriptNet::train(bool on) {
    Net::train(on);
    m_module.train(on);
}

QString modelFileOnThisHost(const TrainingSettings& s) {
    if (s.modelSha256.isEmpty()) return s.modelFile;
    const QString copy = QCoreApplication::applicationDirPath() + QStringLiteral("/../models/") + s.modelSha256 + QStringLiteral(".pt");
    return QFileInfo::exists(copy) ? QFileInfo(copy).absoluteFilePath() : s.modelFile;
}

QString fileSha256(const QString& file) {
    // (a path to /dev/zero, or a FIFO, was hashed for ever)
    struct stat info {};
    if (::stat(QFile::encodeName(file).constData(), &info) == 0 && !S_ISREG(info.st_mode))
        throw TrainError(file.toStdString() + " is not a regular file; give the path of the saved TorchScript model");
    QFile f(file);
    QCryptographicHash hash(QCryptographicHash::Sha256);
    if (!f.open(QIODevice::ReadOnly) || !hash.addData(&f))
        throw TrainError("cannot read " + file.toStdString() + " (" + f.errorString().toStdString() + ")");
    return QString::fromLatin1(hash.result().toHex());
}

ScriptModelInfo inspectScriptModel(const QString& file) {
    ScriptModelInfo info;
    ScriptNet net(file);  // first: it says what is wrong with a file that is not a model
    info.sha256 = fileSha256(file);
    for (const torch::Tensor& p : net.parameters()) {
        info.tensors.push_back(size_t(p.numel()));
        info.parameters += p.numel();
    }
    for (const torch::Tensor& b : net.buffers())
        if (b.scalar_type() == torch::kFloat32) {
            info.tensors.push_back(size_t(b.numel()));
            ++info.bufferTensors;
        }
    return info;
}

}  // namespace hips
