#include "Models.h"

#include "TrainError.h"

namespace hips {

namespace {

// A change to a net's layers must change modelParameterCount (backend/ps/ModelFrame.cpp) too:
// servers bound what they accept by it, and tst_train checks that the two agree.
struct MlpNet : Net {
    MlpNet() : fc1(register_module("fc1", torch::nn::Linear(784, 256))),
               fc2(register_module("fc2", torch::nn::Linear(256, 10))) {}
    torch::Tensor forward(torch::Tensor x) override {
        return fc2->forward(torch::relu(fc1->forward(x.flatten(1))));
    }
    torch::nn::Linear fc1, fc2;
};

struct CnnNet : Net {
    CnnNet() : conv1(register_module("conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(1, 6, 5).padding(2)))),
               conv2(register_module("conv2", torch::nn::Conv2d(6, 16, 5))),
               fc1(register_module("fc1", torch::nn::Linear(16 * 5 * 5, 120))),
               fc2(register_module("fc2", torch::nn::Linear(120, 84))),
               fc3(register_module("fc3", torch::nn::Linear(84, 10))) {}
    torch::Tensor forward(torch::Tensor x) override {
        x = torch::max_pool2d(torch::relu(conv1->forward(x)), 2);  // 6 x 14 x 14
        x = torch::max_pool2d(torch::relu(conv2->forward(x)), 2);  // 16 x 5 x 5
        x = torch::relu(fc1->forward(x.flatten(1)));
        return fc3->forward(torch::relu(fc2->forward(x)));
    }
    torch::nn::Conv2d conv1, conv2;
    torch::nn::Linear fc1, fc2, fc3;
};

}  // namespace

std::shared_ptr<Net> createNet(const QString& name) {
    if (name == QLatin1String("mlp")) return std::make_shared<MlpNet>();
    if (name == QLatin1String("cnn")) return std::make_shared<CnnNet>();
    throw TrainError("unknown model '" + name.toStdString() + "'; use mlp or cnn");
}

torch::Device resolveDevice(const QString& device) {
    if (device == QLatin1String("cpu")) return torch::kCPU;
    if (!device.startsWith(QLatin1String("cuda")))
        throw TrainError("'" + device.toStdString() + "' is not a device; use cpu or cuda:N");
    if (!torch::cuda::is_available())
        throw TrainError("device " + device.toStdString() + " was requested, but this LibTorch build has no "
                         "CUDA support or sees no GPU; set the role's device to cpu");
    const int index = device.contains(':') ? device.section(':', 1).toInt() : 0;
    if (index >= int(torch::cuda::device_count()))
        throw TrainError("device " + device.toStdString() + " does not exist; this host has " +
                         std::to_string(torch::cuda::device_count()) + " GPU(s)");
    return torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(index));
}

}  // namespace hips
