#include "LocalTrainer.h"

#include "Dataset.h"
#include "SourceData.h"
#include "FlatModel.h"
#include "Models.h"
#include "ProcessTuning.h"
#include "TrainError.h"

#include <QCryptographicHash>
#include <chrono>
#include <cstring>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

namespace hips {

namespace {

constexpr qsizetype kShaBytes = 32;  // the state's SHA-256, after it

// For one step, dropout draws from a trainer's own generator. A built-in model is told so for this
// thread (Models.h); a TorchScript model draws from LibTorch's process-wide one, which holds the
// trainer's state meanwhile, one step of the process at a time (GeneratorTurn): a shared trainer's
// TorchScript workers take turns step by step, and one waiting vouches for its heartbeats.
class OwnDropout {
public:
    OwnDropout(bool torchScript, at::Generator& own, const std::function<void()>& whileWaiting) : m_own(own) {
        if (!torchScript) {
            m_builtIn.emplace(own);
            return;
        }
        m_turn.emplace(whileWaiting);
        m_lock = std::unique_lock<std::recursive_mutex>(processGeneratorLock());  // (beside seeding, brief)
        at::Generator global = at::detail::getDefaultCPUGenerator();  // (a handle on it)
        global.set_state(own.get_state());
    }
    ~OwnDropout() {
        if (m_turn) m_own.set_state(at::detail::getDefaultCPUGenerator().get_state());
    }
    OwnDropout(const OwnDropout&) = delete;
    OwnDropout& operator=(const OwnDropout&) = delete;

private:
    at::Generator& m_own;
    std::optional<ThreadDropoutGenerator> m_builtIn;
    std::optional<GeneratorTurn> m_turn;
    std::unique_lock<std::recursive_mutex> m_lock;  // (released before the turn is handed on)
};

}  // namespace

struct LocalTrainer::Impl {
    Impl(const TrainingSettings& s, const TrainingData& data, const QString& device)
        : settings(s),
          model(s, resolveDevice(device)),
          configured(torch::optim::SGDOptions(s.learningRate).momentum(s.momentum)),
          optimizer(model.net().parameters(), configured) {
        const int index = data.part, count = data.parts;
        // The first of a source's workers evaluates the rows it holds out (its party's own test).
        shard = data.source
                    ? loadSource(*data.source, s, data.owner, index, count, index == 0 ? &heldOut : nullptr, data.stream, &sourceDigest)
                    : loadDataset(s, Split::Train, index, count);
        heldOut.images = heldOut.images.defined() ? heldOut.images.to(model.device()) : heldOut.images;
        heldOut.labels = heldOut.labels.defined() ? heldOut.labels.to(model.device()) : heldOut.labels;
        if (shard.size() == 0)
            throw TrainError("worker " + std::to_string(index) + " got an empty shard: " + std::to_string(count) +
                             " workers share too few samples; lower the worker count or use more data (with partition "
                             "dirichlet, a larger alpha)");
        shard.images = shard.images.to(model.device());
        shard.labels = shard.labels.to(model.device());
        owner = data.source ? data.owner : QStringLiteral("the dataset");
        model.checkInput(shard.images, s.classes, owner, true);
        const uint64_t stream = uint64_t(data.stream) * 0x9E3779B97F4A7C15ull;  // (0: the run's dataset, as before)
        generator = torch::make_generator<at::CPUGeneratorImpl>(uint64_t(s.seed) * 1000003 + uint64_t(index) + stream);
        reshuffle();
        // Dropout draws from this trainer's own generator, seeded by its shard, so that two trainers
        // of one shard (Draco's codes) draw the same masks whatever else their process trained,
        // and trainers on threads of one process (a shared trainer) never draw each other's.
        dropout = torch::make_generator<at::CPUGeneratorImpl>(uint64_t(s.seed) * 7777 + uint64_t(index) + stream);
    }

    void reshuffle() {
        order = torch::randperm(shard.size(), generator, torch::kInt64).to(model.device());
        cursor = 0;
    }

    int64_t stepsThisRound() const {
        if (settings.localIters > 0) return settings.localIters;
        const int64_t size = shard.size(), tail = size % settings.batchSize;
        return (size / settings.batchSize + (tail > 0 && !leftForNextEpoch(tail) ? 1 : 0)) * settings.localEpochs;
    }

    // A last batch of one sample is left to the next epoch's order (a different sample each time):
    // BatchNorm cannot train on one value per channel, and the worker ended at every such epoch's
    // end ("Expected more than 1 value per channel when training").
    bool leftForNextEpoch(int64_t remaining) const { return remaining == 1 && shard.size() > 1 && settings.batchSize > 1; }

    // One SGD step on the next batch of the shuffled shard (or, without `apply`, only its
    // gradient); returns the batch loss.
    // A compute slot for `slot` (ProcessTuning.h), waiting with `progress`; what the wait took is
    // added to slotWaitS, which is no step's time.
    // Takes `turn` (a compute slot, the dropout generator), its wait counted in slotWaitS.
    template <typename Turn, typename... Args>
    void take(std::optional<Turn>& turn, Args&&... args) {
        const auto before = std::chrono::steady_clock::now();
        turn.emplace(std::forward<Args>(args)...);
        slotWaitS += std::chrono::duration<double>(std::chrono::steady_clock::now() - before).count();
    }

    torch::Tensor lossOf(const torch::Tensor& idx) {
        torch::Tensor labels = shard.labels.index_select(0, idx);
        const torch::Tensor outputs = model.net().forward(shard.images.index_select(0, idx));
        if (settings.regression()) {
            if (flipLabels) labels = -labels;  // a flipping adversary of a regression: each target's sign
            return torch::nn::functional::mse_loss(outputs, labels);
        }
        if (flipLabels) labels = (settings.classes - 1) - labels;  // a label-flipping adversary: c read as C − 1 − c
        return torch::nn::functional::cross_entropy(outputs, labels);
    }

    double step(int64_t* samples, const std::function<void()>& progress, bool apply = true) {
        std::optional<ComputeSlot> slot;
        take(slot, progress);
        std::optional<OwnDropout> drawing;
        take(drawing, model.isTorchScript(), dropout, progress);
        const auto start = std::chrono::steady_clock::now();
        if (cursor >= shard.size() || leftForNextEpoch(shard.size() - cursor)) reshuffle();
        const int64_t n = std::min<int64_t>(settings.batchSize, shard.size() - cursor);
        const torch::Tensor idx = order.narrow(0, cursor, n);
        cursor += n;
        optimizer.zero_grad();
        torch::Tensor loss;
        try {
            loss = lossOf(idx);
            loss.backward();
        } catch (const std::exception& e) {  // (a user's model that checked fine fails here: its error, named)
            throw TrainError(QStringLiteral("the model failed a training step on %1's samples: %2")
                                 .arg(owner, QString::fromStdString(torchErrorLine(e)))
                                 .toStdString());
        }
        if (settings.proximalMu > 0) addProximalGradient();
        if (apply) optimizer.step();
        *samples += n;
        const double value = loss.item<double>();  // waits for the step to be done
        drawing.reset();
        slot.reset();
        if (slowdown > 1) sleepVouching((std::chrono::steady_clock::now() - start) * (slowdown - 1), progress);
        return value;
    }

    // A slower device, emulated: the step takes `slowdown` times as long. Asleep in slices that
    // call `progress`, so that a long step vouches for its worker's heartbeats (it is no hang) and
    // a stop (which `progress` throws) ends it.
    static void sleepVouching(std::chrono::duration<double> length, const std::function<void()>& progress) {
        const auto until = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(length);
        for (auto now = std::chrono::steady_clock::now(); now < until; now = std::chrono::steady_clock::now()) {
            std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(until - now, std::chrono::milliseconds(200)));
            if (progress) progress();
        }
    }

    // FedProx: the gradient of (μ/2)·‖w − w_global‖², μ·(w − w_global), on every parameter.
    void addProximalGradient() {
        torch::NoGradGuard noGrad;
        const auto parameters = model.net().parameters();
        for (size_t k = 0; k < parameters.size() && k < globalParameters.size(); ++k)
            if (parameters[k].grad().defined())
                parameters[k].mutable_grad().add_(parameters[k].detach() - globalParameters[k], settings.proximalMu);
    }

    RoundStats timedStep(bool apply, const std::function<void()>& progress) {
        const auto start = std::chrono::steady_clock::now();
        const double waited = slotWaitS;
        model.net().train();
        RoundStats stats;
        stats.loss = step(&stats.samples, progress, apply);
        stats.steps = 1;
        stats.computeSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() - (slotWaitS - waited);
        return stats;
    }

    TrainingSettings settings;
    double slowdown = 1;
    double slotWaitS = 0;  // waits for a compute slot, all told
    bool flipLabels = false;
    FlatModel model;
    torch::optim::SGDOptions configured;  // (before the optimizer: it is made from them)
    torch::optim::SGD optimizer;
    Dataset shard;
    Dataset heldOut;  // the source's held-out rows (its first worker only)
    QString sourceDigest;  // what its source holds on this host (loadSource); empty: the run's dataset
    QString owner;  // whose samples it trains on, for its errors
    at::Generator generator;  // the shard's order
    at::Generator dropout;  // dropout's masks (OwnDropout)
    std::vector<torch::Tensor> globalParameters;  // FedProx: the round's starting point
    torch::Tensor order;
    int64_t cursor = 0;
};

LocalTrainer::LocalTrainer(const TrainingSettings& s, const TrainingData& data, const QString& device)
    : d(std::make_unique<Impl>(s, data, device)) {}
LocalTrainer::~LocalTrainer() = default;

size_t LocalTrainer::parameterCount() const {
    return size_t(d->model.parameterCount());
}
int64_t LocalTrainer::shardSize() const {
    return d->shard.size();
}
void LocalTrainer::setWeights(const float* weights) {
    d->model.load(weights);
    if (d->settings.proximalMu <= 0) return;
    torch::NoGradGuard noGrad;
    d->globalParameters.clear();
    for (const torch::Tensor& p : d->model.net().parameters()) d->globalParameters.push_back(p.detach().clone());
}

void LocalTrainer::park() {
    d->model.net().zero_grad(/*set_to_none=*/true);
    d->globalParameters.clear();
}

void LocalTrainer::releaseWeights() {
    d->model.releaseWeights();
}

RoundStats LocalTrainer::trainRound() {
    return trainSteps(d->stepsThisRound());
}

RoundStats LocalTrainer::trainSteps(int64_t steps) {
    // One slot for the round, handed on once rather than at each step; a slowed worker takes one
    // per step, so that its emulated slowness is not spent holding a core.
    std::optional<ComputeSlot> slot;
    if (d->slowdown <= 1) d->take(slot, m_progress);
    const auto start = std::chrono::steady_clock::now();
    const double waited = d->slotWaitS;
    d->model.net().train();
    RoundStats stats;
    double lossSum = 0;
    for (int64_t i = 0; i < steps; ++i) {
        lossSum += d->step(&stats.samples, m_progress);
        if (m_progress) m_progress();
    }
    stats.loss = steps ? lossSum / double(steps) : 0.0;
    stats.steps = steps;
    stats.computeSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() - (d->slotWaitS - waited);
    return stats;
}

std::vector<int64_t> LocalTrainer::classCounts() const {
    if (d->settings.regression()) return {};  // targets, no classes
    const torch::Tensor counts = torch::bincount(d->shard.labels.to(torch::kCPU), {}, d->settings.classes).to(torch::kInt64).contiguous();
    return std::vector<int64_t>(counts.data_ptr<int64_t>(), counts.data_ptr<int64_t>() + counts.numel());
}

QStringList LocalTrainer::classNames() const {
    return d->shard.classNames;
}

QStringList LocalTrainer::featureNames() const {
    return d->shard.featureNames;
}

QString LocalTrainer::sourceDigest() const {
    return d->sourceDigest;
}

int64_t LocalTrainer::heldOutSize() const {
    return d->heldOut.size();
}

// The held-out rows under `weights`, then this trainer's own weights and train mode back: the
// local model, its optimizer and its data order are as they were.
EvalStats LocalTrainer::evaluateHeldOut(const float* weights) {
    const std::vector<float> own = d->model.weights();
    d->model.load(weights);
    const EvalStats stats = evaluateOn(d->model, d->heldOut, d->settings.classes, m_progress);
    d->model.load(own.data());
    d->model.net().train();
    return stats;
}

int64_t LocalTrainer::stepsPerRound() const {
    return d->stepsThisRound();
}

void LocalTrainer::setSlowdown(double factor) {
    d->slowdown = factor;
}
void LocalTrainer::setLabelFlip(bool on) {
    d->flipLabels = on;
}

RoundStats LocalTrainer::step() {
    return d->timedStep(true, m_progress);
}
RoundStats LocalTrainer::gradient() {
    return d->timedStep(false, m_progress);
}
void LocalTrainer::writeGradient(float scale, float* out) const {
    d->model.writeGradient(scale, out);
}

void LocalTrainer::writeDelta(const float* global, float scale, float* out) const {
    torch::NoGradGuard noGrad;
    const int64_t n = d->model.parameterCount();
    const torch::Tensor& local = d->model.hostFlat();
    const torch::Tensor g = torch::from_blob(const_cast<float*>(global), {n}, torch::kFloat32);
    torch::Tensor o = torch::from_blob(out, {n}, torch::kFloat32);
    torch::sub_out(o, local, g).mul_(scale);
}

void LocalTrainer::writeWeights(float* out) const {
    torch::NoGradGuard noGrad;
    const torch::Tensor& local = d->model.hostFlat();
    std::memcpy(out, local.data_ptr<float>(), size_t(local.numel()) * sizeof(float));
}

QByteArray LocalTrainer::saveState() const {
    torch::serialize::OutputArchive archive;
    torch::serialize::OutputArchive optimizer;
    d->optimizer.save(optimizer);
    archive.write("optimizer", optimizer);
    archive.write("order", d->order.to(torch::kCPU));
    archive.write("cursor", torch::tensor(d->cursor, torch::kInt64));
    archive.write("shuffle", d->generator.get_state());
    archive.write("torch_rng", d->dropout.get_state());
    // The buffers that are not float32 (BatchNorm's int64 batch count) are this worker's own, not
    // the model's: they go on with it too (a BatchNorm with momentum None averages by that count,
    // and a resumed one replaced its running statistics by its first batch's).
    int64_t kept = 0;
    for (const torch::Tensor& b : d->model.net().buffers())
        if (b.scalar_type() != torch::kFloat32) archive.write("buffer" + std::to_string(kept++), b.to(torch::kCPU));
    std::ostringstream out;
    archive.save_to(out);
    const std::string bytes = out.str();
    // LibTorch's archive checks no checksum of its members: a flipped byte in the momentum would
    // load. The state's own SHA-256 follows it, and a state that differs from it is refused.
    QByteArray state(bytes.data(), qsizetype(bytes.size()));
    return state + QCryptographicHash::hash(state, QCryptographicHash::Sha256);
}

int64_t LocalTrainer::stateBytesBound() const {
    // The optimizer's momentum (a float a parameter), the data order (an int64 a sample), and room
    // for the archive's own structure and the generators' states.
    return (int64_t(1) << 20) + 8 * int64_t(parameterCount()) + 16 * shardSize() + kShaBytes;
}

void LocalTrainer::loadState(const QByteArray& stateAndSha) {
    const QByteArray bytes = stateAndSha.left(stateAndSha.size() - kShaBytes);
    if (stateAndSha.size() < kShaBytes || QCryptographicHash::hash(bytes, QCryptographicHash::Sha256) != stateAndSha.right(kShaBytes))
        throw TrainError("the saved worker state is damaged: it is not what its checksum says (or was written by an older version)");
    try {
        std::istringstream in(bytes.toStdString());
        torch::serialize::InputArchive archive;
        archive.load_from(in);
        torch::serialize::InputArchive optimizer;
        archive.read("optimizer", optimizer);
        torch::Tensor order, cursor, shuffle, rng;
        archive.read("order", order);
        archive.read("cursor", cursor);
        archive.read("shuffle", shuffle);
        archive.read("torch_rng", rng);
        if (order.dim() != 1 || order.size(0) != d->shard.size() || cursor.numel() != 1 || cursor.item<int64_t>() < 0 ||
            cursor.item<int64_t>() > d->shard.size())
            throw TrainError("the saved state is of another shard (" + std::to_string(order.numel()) + " samples, this worker has " +
                             std::to_string(d->shard.size()) + ")");
        // Its values, not only its shape: a damaged state would train with loss NaN every round.
        const torch::Tensor sorted = std::get<0>(order.to(torch::kInt64).sort());
        if (order.numel() > 0 && !sorted.equal(torch::arange(order.numel(), torch::kInt64)))
            throw TrainError("the saved state's data order is not an order of this worker's " + std::to_string(d->shard.size()) +
                             " samples; the state is damaged");
        d->optimizer.load(optimizer);  // (a state refused below ends the worker: nothing trains with it)
        // The archive carries the optimizer's options too (LibTorch 1.13 reads none of them back,
        // later ones may): the run's own stay, so a state file never sets the learning rate.
        for (torch::optim::OptimizerParamGroup& group : d->optimizer.param_groups())
            group.set_options(std::make_unique<torch::optim::SGDOptions>(d->configured));
        for (const torch::optim::OptimizerParamGroup& group : d->optimizer.param_groups())
            for (const torch::Tensor& parameter : group.params()) {
                const auto state = d->optimizer.state().find(c10::guts::to_string(parameter.unsafeGetTensorImpl()));
                if (state == d->optimizer.state().end()) continue;
                const auto& buffer = static_cast<const torch::optim::SGDParamState&>(*state->second).momentum_buffer();
                if (buffer.defined() && buffer.sizes() != parameter.sizes())
                    throw TrainError("the saved state's momentum is of another model (a buffer of " + c10::str(buffer.sizes()) +
                                     " for a parameter of " + c10::str(parameter.sizes()) + "); the state is damaged");
                if (buffer.defined() && !torch::isfinite(buffer).all().item<bool>())
                    throw TrainError("the saved state's momentum holds NaN or infinite values; the state is damaged");
            }
        int64_t kept = 0;
        for (torch::Tensor& b : d->model.net().buffers()) {
            if (b.scalar_type() == torch::kFloat32) continue;
            torch::Tensor saved;
            if (!archive.try_read("buffer" + std::to_string(kept++), saved)) continue;  // (a state from before they were kept)
            if (saved.sizes() != b.sizes() || saved.scalar_type() != b.scalar_type())
                throw TrainError("the saved state's buffers are of another model; the state is damaged");
            torch::NoGradGuard noGrad;
            b.copy_(saved);
        }
        d->order = order.to(torch::kInt64).to(d->model.device());
        d->cursor = cursor.item<int64_t>();
        d->generator.set_state(shuffle);
        d->dropout.set_state(rng);
    } catch (const c10::Error& e) {
        throw TrainError(std::string("the saved worker state cannot be read: ") + e.what_without_backtrace());
    }
}

void setTorchThreads(int threads) {
    // One at a time: the settings are the process's, and a shared trainer's worker threads each
    // set them as they start. Concurrent first calls in a forked process race in LibTorch's
    // pthreadpool() (it replaces the pool the fork left, and the other call finds none: "Invalid
    // thread pool!", an abort of the worker; seen in 2 of 25 starts of a run's shared trainer).
    static std::mutex settings;
    const std::lock_guard<std::mutex> lock(settings);
    pinBlasThreads(threads);
    setComputeThreadsPerStep(threads);
    torch::set_num_threads(threads);
    // LibTorch refuses a second setting of the inter-op pool (it may have started): set it once.
    static const bool interopSet = [] {
        torch::set_num_interop_threads(1);
        return true;
    }();
    (void)interopSet;
}

QString torchVersion() {
    return QStringLiteral(TORCH_VERSION);
}
bool torchHasCuda() {
    return torch::cuda::is_available();
}

}  // namespace hips
