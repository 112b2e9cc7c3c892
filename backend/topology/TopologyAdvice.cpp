#include "TopologyAdvice.h"

#include "AggregatorRegistry.h"
#include "FedOptimizer.h"
#include "GradientCodec.h"
#include "ModeRegistry.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace hips {

namespace {

QString tierField(const TrainingSettings& s, const QString& codec) {
    return s.compression == codec ? QStringLiteral("$.training.compression") : QStringLiteral("$.training.party_compression");
}

// The first Fashion-MNIST file the trainers will not find, when every role runs here (a remote
// host's folder is its own) and the folder is absolute; else empty.
QString missingDataFile(const Topology& t) {
    const QString& dir = t.training.dataDir;
    if (t.training.dataset != QLatin1String("fashion-mnist") || !t.allHostsLocal() || !QDir::isAbsolutePath(dir)) return {};
    for (const char* file :
         {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"})
        if (const QString path = QDir(dir).filePath(QLatin1String(file)); !QFileInfo::exists(path)) return path;
    return {};
}

// by_class gives worker w of a cut classes w·c … w·c+c−1 (mod K): a cut among fewer than K / c
// workers (the run's dataset among all of its workers, a party's own data among the party's)
// leaves some classes in no worker's shard, and nothing trains on them. (Draco's codes cut their
// own way; a host's own source is cut among its workers alone: neither is looked at here.)
QString uncoveredClasses(const Topology& t) {
    const TrainingSettings& s = t.training;
    const auto partyRule = AggregatorRegistry::create(s.partyAggregation);
    if (s.partition != QLatin1String("by_class") || s.regression() || (partyRule && partyRule->codesWorkers())) return {};
    const int perWorker = int(s.param(QStringLiteral("classes_per_worker"))), classes = s.classes;
    const auto described = [&](int workers, const QString& what) -> QString {
        if (workers <= 0 || qint64(workers) * perWorker >= classes) return {};
        return QCoreApplication::translate("TopologyCheck",
                                           "partition by_class gives worker w the classes w·c … w·c+c−1 (mod %1): the %2 workers "
                                           "that split %3 hold %4 of the %1 classes, and nothing trains on the other %5; set "
                                           "classes_per_worker to at least %6, or use dirichlet")
            .arg(classes)
            .arg(workers)
            .arg(what)
            .arg(workers * perWorker)
            .arg(classes - workers * perWorker)
            .arg((classes + workers - 1) / workers);
    };
    if (!t.partiesBringData()) return described(t.trainingWorkerCount(), QCoreApplication::translate("TopologyCheck", "the dataset"));
    for (const Party& p : t.parties)
        if (p.data && (!p.central || s.trainCentralWorkers))
            if (const QString text =
                    described(p.workerCount(), QCoreApplication::translate("TopologyCheck", "party '%1''s data").arg(p.id));
                !text.isEmpty())
                return text;
    return {};
}

}  // namespace

TopologyIssues topologyAdvice(const Topology& t) {
    const TrainingSettings& s = t.training;
    TopologyIssues notes;
    const auto note = [&](const QString& path, const char* text) {
        notes.append({path, QCoreApplication::translate("TopologyCheck", text)});
    };
    if (const QString missing = missingDataFile(t); !missing.isEmpty())
        notes.append({QStringLiteral("$.training.data_dir"),
                      QCoreApplication::translate("TopologyCheck",
                                                  "%1 is missing on this machine, so the run would fail at its start: install the "
                                                  "Debian package dataset-fashion-mnist (apt-get install dataset-fashion-mnist) or "
                                                  "point data_dir at a folder holding the IDX .gz files")
                          .arg(missing)});
    if (const QString text = uncoveredClasses(t); !text.isEmpty()) notes.append({QStringLiteral("$.training.partition"), text});
    const ModePolicy mode = ModeRegistry::policy(s.mode);
    if (mode.standalone) {
        if (s.compression != QLatin1String(codecs::kNone) || s.partyCompression != QLatin1String(codecs::kNone))
            note(
                tierField(s, s.compression != QLatin1String(codecs::kNone) ? s.compression : s.partyCompression),
                QT_TRANSLATE_NOOP("TopologyCheck", "mode local trains the master worker alone and sends nothing: the codec has no effect"));
        return presentableIssues(notes);
    }
    // A codec that sends steps (2bit's ±t) on either tier: the one named in the notes below.
    const QString stepped = CodecRegistry::quantizesToSteps(s.compression)        ? s.compression
                            : CodecRegistry::quantizesToSteps(s.partyCompression) ? s.partyCompression
                                                                                  : QString();
    // Each step's change of the model is too small for one 2-bit message, and the server's momentum
    // amplifies the lag (measured with the mlp on the default topology, 20 rounds).
    if (mode.gradientEveryStep && !stepped.isEmpty())
        note(tierField(s, stepped),
             QT_TRANSLATE_NOOP("TopologyCheck",
                               "2bit under mode ssgd loses much of the accuracy (0.66 against 0.87 without a codec on the "
                               "default topology with the mlp): a step's change is too small for a 2-bit message; fp16 keeps it "
                               "(0.87), topk nearly (0.82)"));
    const FedOptimizer::Kind optimizer = FedOptimizer::kindOf(s.serverOptimizer);
    if (optimizer == FedOptimizer::Kind::Momentum && (CodecRegistry::lossy(s.compression) || CodecRegistry::lossy(s.partyCompression)))
        note(tierField(s, CodecRegistry::lossy(s.compression) ? s.compression : s.partyCompression),
             QT_TRANSLATE_NOOP("TopologyCheck",
                               "server momentum (FedAvgM) with a lossy codec trails (0.73 with topk, 0.65 with 2bit, against 0.84 "
                               "without one, on the default topology with the mlp): use fp16, or server_optimizer sgd or adam "
                               "(FedAdam with topk: 0.84)"));
    if (FedOptimizer::adaptive(optimizer) && !stepped.isEmpty())
        note(tierField(s, stepped),
             QT_TRANSLATE_NOOP("TopologyCheck",
                               "an adaptive server optimizer with 2bit trails (adam: 0.82 against 0.86 without a codec, on the "
                               "default topology with the mlp): use topk (adam: 0.84) or fp16"));
    return presentableIssues(notes);
}

}  // namespace hips
