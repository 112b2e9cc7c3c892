#include "Models.h"

#include "TrainError.h"

#include "ModelRegistry.h"

namespace hips {

namespace {

thread_local at::Generator* t_dropoutGenerator = nullptr;

// torch::dropout as LibTorch computes it on the CPU (a Bernoulli mask scaled by 1/(1-p)), drawn
// from the thread's generator when one is set: the same masks from the same generator state.
torch::Tensor dropoutFromThread(const torch::Tensor& x, double p, bool training) {
    if (!training || !t_dropoutGenerator || x.is_cuda() || p <= 0 || p >= 1 || x.numel() == 0) return torch::dropout(x, p, training);
    torch::Tensor noise = torch::empty_like(x, at::MemoryFormat::Contiguous);
    noise.bernoulli_(1 - p, *t_dropoutGenerator);
    noise.div_(1 - p);
    return x * noise;
}

// A change to a net's layers must change ModelRegistry's tensor sizes (backend/algo) too: servers
// bound what they accept by them, and tst_train checks that the two agree.
struct MlpNet : Net {
    explicit MlpNet(InputShape in, int64_t classes)
        : fc1(register_module("fc1", torch::nn::Linear(in.channels * in.size * in.size, 256))),
          fc2(register_module("fc2", torch::nn::Linear(256, classes))) {}
    torch::Tensor forward(torch::Tensor x) override { return fc2->forward(torch::relu(fc1->forward(x.flatten(1)))); }
    torch::nn::Linear fc1, fc2;
};

struct CnnNet : Net {
    // 28x28 images are padded to LeNet-5's 32x32.
    explicit CnnNet(InputShape in, int64_t classes)
        : conv1(register_module("conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(in.channels, 6, 5).padding(in.size == 28 ? 2 : 0)))),
          conv2(register_module("conv2", torch::nn::Conv2d(6, 16, 5))),
          fc1(register_module("fc1", torch::nn::Linear(16 * 5 * 5, 120))),
          fc2(register_module("fc2", torch::nn::Linear(120, 84))),
          fc3(register_module("fc3", torch::nn::Linear(84, classes))) {}
    torch::Tensor forward(torch::Tensor x) override {
        x = torch::max_pool2d(torch::relu(conv1->forward(x)), 2);  // 6 x 14 x 14
        x = torch::max_pool2d(torch::relu(conv2->forward(x)), 2);  // 16 x 5 x 5
        x = torch::relu(fc1->forward(x.flatten(1)));
        return fc3->forward(torch::relu(fc2->forward(x)));
    }
    torch::nn::Conv2d conv1, conv2;
    torch::nn::Linear fc1, fc2, fc3;
};

torch::nn::Conv2d conv3x3(int64_t in, int64_t out, int64_t stride = 1, bool bias = true) {
    return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, 3).stride(stride).padding(1).bias(bias));
}

struct AlexNet : Net {
    explicit AlexNet(InputShape in, int64_t classes) : side(in.size / 8) {
        const int64_t widths[] = {in.channels, 64, 192, 384, 256, 256};
        for (int i = 0; i < 5; ++i) convs.push_back(register_module("conv" + std::to_string(i + 1), conv3x3(widths[i], widths[i + 1])));
        fc1 = register_module("fc1", torch::nn::Linear(256 * side * side, 1024));
        fc2 = register_module("fc2", torch::nn::Linear(1024, 1024));
        fc3 = register_module("fc3", torch::nn::Linear(1024, classes));
    }
    torch::Tensor forward(torch::Tensor x) override {
        for (size_t i = 0; i < convs.size(); ++i) {
            x = torch::relu(convs[i]->forward(x));
            if (i == 0 || i == 1 || i == 4) x = torch::max_pool2d(x, 2);
        }
        x = dropoutFromThread(x.flatten(1), 0.5, is_training());
        x = dropoutFromThread(torch::relu(fc1->forward(x)), 0.5, is_training());
        return fc3->forward(torch::relu(fc2->forward(x)));
    }
    int64_t side;
    std::vector<torch::nn::Conv2d> convs;
    torch::nn::Linear fc1{nullptr}, fc2{nullptr}, fc3{nullptr};
};

struct BasicBlock : torch::nn::Module {
    BasicBlock(int64_t in, int64_t out, int64_t stride)
        : conv1(register_module("conv1", conv3x3(in, out, stride, false))),
          bn1(register_module("bn1", torch::nn::BatchNorm2d(out))),
          conv2(register_module("conv2", conv3x3(out, out, 1, false))),
          bn2(register_module("bn2", torch::nn::BatchNorm2d(out))) {
        if (stride != 1 || in != out) {
            projection = register_module("projection", torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, 1).stride(stride).bias(false)));
            projectionBn = register_module("projection_bn", torch::nn::BatchNorm2d(out));
        }
    }
    torch::Tensor forward(const torch::Tensor& x) {
        torch::Tensor y = bn2->forward(conv2->forward(torch::relu(bn1->forward(conv1->forward(x)))));
        return torch::relu(y + (projection ? projectionBn->forward(projection->forward(x)) : x));
    }
    torch::nn::Conv2d conv1;
    torch::nn::BatchNorm2d bn1;
    torch::nn::Conv2d conv2;
    torch::nn::BatchNorm2d bn2;
    torch::nn::Conv2d projection{nullptr};
    torch::nn::BatchNorm2d projectionBn{nullptr};
};

struct ResNet18 : Net {
    explicit ResNet18(InputShape in, int64_t classes)
        : stem(register_module("stem", conv3x3(in.channels, 64, 1, false))),
          stemBn(register_module("stem_bn", torch::nn::BatchNorm2d(64))) {
        int64_t channels = 64;
        for (int64_t width : {64, 128, 256, 512})
            for (int block = 0; block < 2; ++block) {
                const int64_t stride = block == 0 && width != 64 ? 2 : 1;
                blocks.push_back(
                    register_module("block" + std::to_string(blocks.size()), std::make_shared<BasicBlock>(channels, width, stride)));
                channels = width;
            }
        fc = register_module("fc", torch::nn::Linear(512, classes));
    }
    torch::Tensor forward(torch::Tensor x) override {
        x = torch::relu(stemBn->forward(stem->forward(x)));
        for (const auto& b : blocks) x = b->forward(x);
        return fc->forward(torch::adaptive_avg_pool2d(x, {1, 1}).flatten(1));
    }
    torch::nn::Conv2d stem;
    torch::nn::BatchNorm2d stemBn;
    std::vector<std::shared_ptr<BasicBlock>> blocks;
    torch::nn::Linear fc{nullptr};
};

template <class N>
std::shared_ptr<Net> make(InputShape in, int classes) {
    return std::make_shared<N>(in, classes);
}

// The network behind each name of ModelRegistry (which describes them without LibTorch;
// tst_train checks that every name there builds here with the tensors it describes).
constexpr std::pair<const char*, std::shared_ptr<Net> (*)(InputShape, int)> kNets[]{
    {"mlp", make<MlpNet>},
    {"cnn", make<CnnNet>},
    {"alexnet", make<AlexNet>},
    {"resnet18", make<ResNet18>},
};

}  // namespace

ThreadDropoutGenerator::ThreadDropoutGenerator(at::Generator& generator) : m_previous(t_dropoutGenerator) {
    t_dropoutGenerator = &generator;
}

ThreadDropoutGenerator::~ThreadDropoutGenerator() {
    t_dropoutGenerator = m_previous;
}

std::recursive_mutex& processGeneratorLock() {
    static std::recursive_mutex lock;
    return lock;
}

std::shared_ptr<Net> createNet(const QString& name, InputShape in, int classes) {
    for (const auto& [netName, makeNet] : kNets)
        if (name == QLatin1String(netName)) return makeNet(in, classes);
    throw TrainError("unknown model '" + name.toStdString() +
                     "'; use one of: " + strategyNames(ModelRegistry::all()).join(", ").toStdString());
}

torch::Device resolveDevice(const QString& device) {
    if (device == QLatin1String("cpu")) return torch::kCPU;
    if (!device.startsWith(QLatin1String("cuda"))) throw TrainError("'" + device.toStdString() + "' is not a device; use cpu or cuda:N");
    if (!torch::cuda::is_available())
        throw TrainError("device " + device.toStdString() +
                         " was requested, but this LibTorch build has no "
                         "CUDA support or sees no GPU; set the role's device to cpu");
    const int index = device.contains(':') ? device.section(':', 1).toInt() : 0;
    if (index >= int(torch::cuda::device_count()))
        throw TrainError("device " + device.toStdString() + " does not exist; this host has " +
                         std::to_string(torch::cuda::device_count()) + " GPU(s)");
    return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(index));
}

}  // namespace hips
