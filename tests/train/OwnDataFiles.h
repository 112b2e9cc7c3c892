#pragma once
// Test data and models made in the test itself (nothing downloaded): NumPy .npy arrays written
// byte by byte, a learnable data set, and a TorchScript module defined from source with a
// convolution, BatchNorm (with its running statistics) and a linear layer.
#include <QDir>
#include <QFile>
#include <torch/script.h>
#include <torch/torch.h>

namespace hips::test {

// One .npy file (format 1.0): `descr` '<f4', '|u1' or '<i8'; C order.
inline bool writeNpy(const QString& path, const char* descr, const std::vector<int64_t>& shape, const void* data, size_t bytes) {
    QByteArrayList dims;
    for (int64_t d : shape) dims << QByteArray::number(qint64(d));
    const QByteArray tuple = dims.join(", ") + (shape.size() == 1 ? "," : "");  // (3, 4) but (3,)
    QByteArray header = "{'descr': '" + QByteArray(descr) + "', 'fortran_order': False, 'shape': (" + tuple + "), }";
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    QByteArray out("\x93NUMPY\x01\x00", 8);
    out += char(header.size() & 0xff);
    out += char(header.size() >> 8);
    out += header;
    out += QByteArray(static_cast<const char*>(data), qsizetype(bytes));
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(out) == out.size();
}

// `n` samples of 1 x side x side in `classes` classes: class c lights a band of rows of its own,
// plus noise, so that a small net learns it in a few dozen steps.
struct Samples {
    std::vector<float> x;
    std::vector<int64_t> y;
};

inline Samples bandedSamples(int n, int side, int classes, int seed) {
    torch::manual_seed(seed);
    const torch::Tensor labels = torch::randint(0, classes, {n}, torch::kInt64);
    torch::Tensor images = torch::rand({n, 1, side, side}) * 0.3;
    for (int i = 0; i < n; ++i) {
        const int64_t c = labels[i].item<int64_t>();
        const int64_t band = side / classes;
        images[i].narrow(1, c * band, band).add_(0.7);
    }
    Samples s;
    s.x.assign(images.data_ptr<float>(), images.data_ptr<float>() + images.numel());
    s.y.assign(labels.data_ptr<int64_t>(), labels.data_ptr<int64_t>() + labels.numel());
    return s;
}

// A folder with x.npy (n x 1 x side x side float32) and y.npy (int64).
inline bool writeNpyFolder(const QString& dir, const Samples& s, int side) {
    const int64_t n = int64_t(s.y.size());
    return QDir().mkpath(dir) && writeNpy(dir + "/x.npy", "<f4", {n, 1, side, side}, s.x.data(), s.x.size() * sizeof(float)) &&
           writeNpy(dir + "/y.npy", "<i8", {n}, s.y.data(), s.y.size() * sizeof(int64_t));
}

// A scripted net as torch.jit.script would save it: conv 3x3 (4 channels) -> BatchNorm -> ReLU
// -> linear to `classes`, for 1 x side x side inputs.
inline void saveScriptedNet(const QString& path, int side, int classes) {
    torch::manual_seed(7);
    torch::jit::Module m("TinyNet");
    m.register_attribute("training", c10::BoolType::get(), true);
    m.register_parameter("conv_w", torch::randn({4, 1, 3, 3}) * 0.3, false);
    m.register_parameter("conv_b", torch::zeros({4}), false);
    m.register_parameter("bn_w", torch::ones({4}), false);
    m.register_parameter("bn_b", torch::zeros({4}), false);
    m.register_buffer("bn_mean", torch::zeros({4}));
    m.register_buffer("bn_var", torch::ones({4}));
    m.register_parameter("fc_w", torch::randn({classes, 4 * side * side}) * 0.01, false);
    m.register_parameter("fc_b", torch::zeros({classes}), false);
    m.define(R"(
def forward(self, x):
    y = torch.conv2d(x, self.conv_w, self.conv_b, [1, 1], [1, 1])
    y = torch.batch_norm(y, self.bn_w, self.bn_b, self.bn_mean, self.bn_var, self.training, 0.1, 1e-5, False)
    return torch.linear(torch.flatten(torch.relu(y), 1), self.fc_w, self.fc_b)
)");
    m.save(path.toStdString());
}

// A net whose two linear maps share one weight (tied, as an embedding and its decoder are), in
// two submodules, and a bias of its own: logits = 2 W x + b, for 1 x side x side inputs.
inline void saveTiedNet(const QString& path, int side, int classes) {
    torch::manual_seed(9);
    const torch::Tensor shared = torch::randn({classes, side * side}) * 0.01;
    torch::jit::Module encoder("Encoder"), decoder("Decoder"), m("TiedNet");
    for (torch::jit::Module* half : {&encoder, &decoder}) {
        half->register_parameter("weight", shared, false);
        half->define("def forward(self, x):\n    return torch.linear(x, self.weight)\n");
    }
    m.register_module("encoder", encoder);
    m.register_module("decoder", decoder);
    m.register_parameter("bias", torch::zeros({classes}), false);
    m.define(R"(
def forward(self, x):
    y = torch.flatten(x, 1)
    return self.encoder.forward(y) + self.decoder.forward(y) + self.bias
)");
    m.save(path.toStdString());
}

}  // namespace hips::test
