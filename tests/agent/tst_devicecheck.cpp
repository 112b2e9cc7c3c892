// DeviceCheck: what the controller refuses before a run starts, from each host's probe. The GPU
// hosts' cases are tables here because CI has no GPU (scripts/gpu-check.sh runs them for real).
#include "DeviceCheck.h"
#include "TopologyReader.h"

#include <QCborArray>
#include <QtTest>

using namespace hips;

namespace {

Topology twoHosts() {
    const TopologyLoad load = TopologyReader::readJson(R"({
      "format": "hips-topology", "version": 1, "name": "gpus",
      "hosts": [ { "id": "a", "address": "127.0.0.3" }, { "id": "b", "address": "127.0.0.2" } ],
      "parties": [
        { "id": "central", "central": true, "host": "a",
          "roles": { "global_scheduler": { "port": 9100 }, "global_servers": [ { "port": 9101, "device": "cuda:0" } ],
                     "master_worker": {} } },
        { "id": "p", "host": "b",
          "roles": { "scheduler": { "port": 9200 }, "servers": [ { "port": 9201 } ],
                     "workers": [ { "count": 1, "device": "cuda:1" }, { "count": 1 } ] } } ],
      "training": { "dataset": "synthetic", "model": "mlp", "rounds": 1 } })");
    if (!load.ok()) qFatal("%s", qPrintable(load.errorText()));
    return *load.topology;
}

QCborMap probe(bool cuda, const QStringList& gpus) {
    QCborArray names;
    for (const QString& g : gpus) names.append(g);
    return {{QStringLiteral("torch"), QStringLiteral("LibTorch 2.11.0 (CUDA 13.0)")},
            {QStringLiteral("cuda"), cuda},
            {QStringLiteral("gpus"), names}};
}

}  // namespace

class TestDeviceCheck : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void onlyHostsWithGpuNodesAreProbed() {
        const Topology t = twoHosts();
        QVERIFY(asksForGpu(t, "a"));  // the global server
        QVERIFY(asksForGpu(t, "b"));  // one worker group
        QVERIFY(asksForGpu(t, {}));  // the local agent stands for every host
        Topology cpu = t;
        cpu.parties[0].servers[0].device = "cpu";
        QVERIFY(!asksForGpu(cpu, "a"));
    }

    void enoughGpusPass() {
        QCOMPARE(deviceProblems(twoHosts(), "b", "b", probe(true, {"H100", "H100"})), QString());
        QCOMPARE(deviceProblems(twoHosts(), "a", "a", probe(true, {"H100"})), QString());
    }

    void aMissingGpuIsNamedWithWhatTheHostHas() {
        const QString e = deviceProblems(twoHosts(), "b", "b", probe(true, {"NVIDIA H100 80GB HBM3"}));
        QVERIFY2(e.contains("host b has 1 GPU(s) (cuda:0 NVIDIA H100 80GB HBM3)"), qPrintable(e));
        QVERIFY2(e.contains("p/worker0 (cuda:1)"), qPrintable(e));
        QVERIFY2(!e.contains("p/worker1"), qPrintable(e));  // on the CPU: fine
        QVERIFY2(e.contains("use cuda:0 or cpu"), qPrintable(e));
    }

    void aCpuLibTorchIsNamed() {
        QCborMap p = probe(false, {"NVIDIA H100 80GB HBM3"});
        p.insert(QStringLiteral("torch"), QStringLiteral("LibTorch 1.13.0 (CPU)"));
        const QString e = deviceProblems(twoHosts(), "a", "host-a", p);
        QVERIFY2(e.contains("host host-a: central/global_server0 (cuda:0) ask for a GPU"), qPrintable(e));
        QVERIFY2(e.contains("LibTorch 1.13.0 (CPU) with no usable CUDA;"), qPrintable(e));  // the host has a GPU
        QVERIFY2(!deviceProblems(twoHosts(), "a", "a", probe(false, {})).isEmpty(), "no GPU and no CUDA passed");
    }

    void aFailedOrMissingProbeIsNamed() {
        const QString e = deviceProblems(twoHosts(), "b", "b", {{QStringLiteral("error"), QStringLiteral("cannot start hips-trainer")}});
        QVERIFY2(e.contains("cannot tell which GPUs") && e.contains("cannot start hips-trainer") && e.contains("p/worker0 (cuda:1)"),
                 qPrintable(e));
        QVERIFY2(deviceProblems(twoHosts(), "b", "b", {}).contains("its agent sent no probe"), "an empty probe passed");
    }
};

QTEST_GUILESS_MAIN(TestDeviceCheck)
#include "tst_devicecheck.moc"
