// The master's evaluation: minor page faults and seconds per evaluation of the whole test set,
// after warm-up, with the allocator as hips-trainer sets it (keepLargeAllocations) against
// glibc's defaults, in the same run (each in its own child process: the setting is per process).
// Goal (issue 10): under 1,000 page faults per evaluation.
#include "LocalTrainer.h"
#include "ProcessMemory.h"
#include "ProcessTuning.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QProcess>
#include <cstdio>
#include <sys/resource.h>

using namespace hips;

static long minorFaults() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_minflt;
}

// One configuration: prints "faults_per_eval seconds_per_eval".
static int measure(bool tuned) {
    if (tuned) keepLargeAllocations();
    setTorchThreads(1);
    TrainingSettings s;
    if (!QFileInfo::exists(s.dataDir + "/t10k-images-idx3-ubyte.gz")) s.dataset = "synthetic";
    ModelEvaluator evaluator(s, "cpu");
    const std::vector<float> weights = evaluator.initialWeights();
    for (int i = 0; i < 2; ++i) evaluator.evaluate(weights.data());  // warm-up
    constexpr int kEvaluations = 5;
    const long before = minorFaults();
    double seconds = 0;
    for (int i = 0; i < kEvaluations; ++i) seconds += evaluator.evaluate(weights.data()).seconds;
    std::printf("%ld %.3f %s\n", (minorFaults() - before) / kEvaluations, seconds / kEvaluations, qPrintable(s.dataset));
    return 0;
}

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    if (argc > 1) return measure(QByteArray(argv[1]) == "tuned");
    std::printf("%-8s %16s %14s\n", "malloc", "faults/eval", "seconds/eval");
    double secs[2] = {0, 0};
    for (const char* mode : {"default", "tuned"}) {
        QProcess child;
        child.start(QCoreApplication::applicationFilePath(), {mode});
        child.waitForFinished(600000);
        const QList<QByteArray> f = child.readAllStandardOutput().trimmed().split(' ');
        secs[mode[0] == 't'] = f.value(1).toDouble();
        std::printf("%-8s %16s %14s   (%s)\n", mode, f.value(0).constData(), f.value(1).constData(), f.value(2).constData());
    }
    std::printf("tuned/default time %.2f (goal: under 1,000 faults per evaluation)\n", secs[0] > 0 ? secs[1] / secs[0] : 0.0);
    return 0;
}
