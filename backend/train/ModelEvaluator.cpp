#include "Dataset.h"
#include "FlatModel.h"
#include "LocalTrainer.h"
#include "SourceData.h"

#include "PrivateFiles.h"
#include "TrainError.h"

#include <chrono>
#include <cmath>
#include <sstream>

namespace hips {

struct ModelEvaluator::Impl {
    Impl(const TrainingSettings& s, const QString& device)
        : model(s, resolveDevice(device)),
          test(s.evaluationData ? loadSource(*s.evaluationData, s, QStringLiteral("evaluation_data")) : loadDataset(s, Split::Test)) {
        test.images = test.images.to(model.device());
        test.labels = test.labels.to(model.device());
        model.checkInput(test.images, s.classes, s.evaluationData ? QStringLiteral("evaluation_data") : QStringLiteral("the test set"));
        classes = s.classes;
    }
    FlatModel model;
    Dataset test;
    int64_t classes = 10;
};

ModelEvaluator::ModelEvaluator(const TrainingSettings& s, const QString& device) : d(std::make_unique<Impl>(s, device)) {}
ModelEvaluator::~ModelEvaluator() = default;

size_t ModelEvaluator::parameterCount() const {
    return size_t(d->model.parameterCount());
}
std::vector<float> ModelEvaluator::initialWeights() const {
    return d->model.weights();
}
QStringList ModelEvaluator::classNames() const {
    return d->test.classNames;
}
QStringList ModelEvaluator::featureNames() const {
    return d->test.featureNames;
}

EvalStats ModelEvaluator::evaluate(const float* weights) {
    d->model.load(weights);
    return evaluateOn(d->model, d->test, d->classes, m_progress);
}

namespace {

constexpr int64_t kEvalBatch = 1000;

// A regression's test: the loss is the mean squared error over every target, the RMSE its root.
EvalStats evaluateRegression(FlatModel& model, const Dataset& data, const std::function<void()>& progress) {
    double squaredSum = 0;
    const int64_t n = data.size();
    for (int64_t begin = 0; begin < n; begin += kEvalBatch) {
        const int64_t len = std::min(kEvalBatch, n - begin);
        const torch::Tensor outputs = model.net().forward(data.images.narrow(0, begin, len));
        squaredSum += torch::nn::functional::mse_loss(outputs, data.labels.narrow(0, begin, len),
                                                      torch::nn::functional::MSELossFuncOptions().reduction(torch::kSum))
                          .item<double>();
        if (progress) progress();
    }
    EvalStats stats;
    stats.samples = n;
    const double values = double(n) * double(n ? data.labels.numel() / n : 0);
    stats.loss = values > 0 ? squaredSum / values : 0.0;
    stats.rmse = std::sqrt(stats.loss);
    return stats;
}

}  // namespace

EvalStats evaluateOn(FlatModel& model, const Dataset& data, int64_t classes, const std::function<void()>& progress) {
    const auto start = std::chrono::steady_clock::now();
    model.net().eval();
    c10::InferenceMode inference;  // no autograd bookkeeping at all, not just no gradients
    if (data.labels.defined() && data.labels.is_floating_point()) {
        EvalStats stats = evaluateRegression(model, data, progress);
        stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        return stats;
    }
    constexpr int64_t kBatch = kEvalBatch;
    int64_t correct = 0, correctTop5 = 0;
    double lossSum = 0;
    torch::Tensor confusion = torch::zeros({classes * classes}, torch::kInt64);
    const int64_t n = data.size();
    for (int64_t begin = 0; begin < n; begin += kBatch) {
        const int64_t len = std::min(kBatch, n - begin);
        const torch::Tensor logits = model.net().forward(data.images.narrow(0, begin, len));
        const torch::Tensor labels = data.labels.narrow(0, begin, len);
        lossSum +=
            torch::nn::functional::cross_entropy(logits, labels, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum))
                .item<double>();
        const torch::Tensor predicted = logits.argmax(1);
        correct += predicted.eq(labels).sum().item<int64_t>();
        if (classes >= 5) correctTop5 += std::get<1>(logits.topk(5, 1)).eq(labels.unsqueeze(1)).any(1).sum().item<int64_t>();
        confusion += torch::bincount((labels * classes + predicted).to(torch::kCPU), {}, classes * classes);
        if (progress) progress();
    }
    EvalStats stats;
    stats.samples = n;
    stats.accuracy = n ? double(correct) / double(n) : 0.0;
    if (classes >= 5) stats.top5 = n ? double(correctTop5) / double(n) : 0.0;
    stats.confusion.assign(confusion.data_ptr<int64_t>(), confusion.data_ptr<int64_t>() + confusion.numel());
    stats.loss = n ? lossSum / double(n) : 0.0;
    stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return stats;
}

// Serialized in memory, then written whole and renamed into place, so a full disk
// leaves the last good checkpoint and a one-line reason, never a cut file or a backtrace.
void ModelEvaluator::saveParameters(const QString& path) const {
    std::ostringstream bytes;
    try {
        torch::save(d->model.shared(), bytes);
    } catch (const c10::Error& e) {
        throw TrainError("cannot serialize the model for " + path.toStdString() + ": " + e.what_without_backtrace());
    }
    const std::string data = bytes.str();
    if (const QString error = writeFileAtomically(path, QByteArray::fromStdString(data)); !error.isEmpty())
        throw TrainError(error.toStdString());
}

void exportTrainedModel(const TrainingSettings& s, const QString& paramsFile, const QString& out, bool stateDict) {
    FlatModel model(s, torch::kCPU);
    try {
        std::shared_ptr<Net> net = model.shared();
        torch::load(net, paramsFile.toStdString());  // copied into the flat model's own tensors
    } catch (const c10::Error& e) {
        throw TrainError("cannot read the trained model " + paramsFile.toStdString() + ": " + e.what_without_backtrace());
    }
    model.saveForPyTorch(out, stateDict);
}

void ModelEvaluator::exportModel(const QString& path, bool stateDict) const {
    d->model.saveForPyTorch(path, stateDict);
}
bool ModelEvaluator::isTorchScript() const {
    return d->model.isTorchScript();
}

}  // namespace hips
