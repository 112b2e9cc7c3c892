#include "DeviceCheck.h"

#include "ProcessTable.h"

#include <QCborArray>

namespace hips {

namespace {

// The roles a device applies to: those that train, and servers (their robust rules).
bool usesDevice(const Node& n) {
    return n.kind == RoleKind::Worker || n.kind == RoleKind::MasterWorker || n.kind == RoleKind::GlobalServer || n.kind == RoleKind::Server;
}
bool onHost(const Topology& t, const Node& n, const QString& host) {
    return agentHolds(t, host, n);  // ("": the local agent, which a Slurm party's roles are not on)
}
int cudaIndex(const QString& device) {
    return device.contains(':') ? device.section(':', 1).toInt() : 0;
}

}  // namespace

bool asksForGpu(const Topology& t, const QString& host) {
    for (const Node& n : t.nodes())
        if (usesDevice(n) && onHost(t, n, host) && n.device.startsWith(QLatin1String("cuda"))) return true;
    return false;
}

QString deviceProblems(const Topology& t, const QString& host, const QString& hostLabel, const QCborMap& devices) {
    QStringList asking;
    QList<int> indices;
    for (const Node& n : t.nodes())
        if (usesDevice(n) && onHost(t, n, host) && n.device.startsWith(QLatin1String("cuda"))) {
            asking << QStringLiteral("%1 (%2)").arg(n.id, n.device);
            indices << cudaIndex(n.device);
        }
    if (asking.isEmpty()) return {};
    const QString error = devices.value(QStringLiteral("error")).toString();
    if (!error.isEmpty() || devices.isEmpty())
        return QStringLiteral(
                   "host %1: cannot tell which GPUs its trainers can use (%2), and %3 ask for one; check that "
                   "hips-trainer runs there, or set their device to cpu")
            .arg(hostLabel, error.isEmpty() ? QStringLiteral("its agent sent no probe") : error, asking.join(QStringLiteral(", ")));
    const QString torch = devices.value(QStringLiteral("torch")).toString();
    if (!devices.value(QStringLiteral("cuda")).toBool())
        return QStringLiteral(
                   "host %1: %2 ask for a GPU, but hips-trainer there has %3 with no usable CUDA%4; build it "
                   "against a CUDA LibTorch (docs/deployment.md, \"GPUs\") or set their device to cpu")
            .arg(hostLabel, asking.join(QStringLiteral(", ")), torch,
                 devices.value(QStringLiteral("gpus")).toArray().isEmpty() ? QStringLiteral(" and the host shows no GPU") : QString());
    const QCborArray gpus = devices.value(QStringLiteral("gpus")).toArray();
    QStringList missing, present;
    for (qsizetype i = 0; i < asking.size(); ++i)
        if (indices[i] >= gpus.size()) missing << asking[i];
    if (missing.isEmpty()) return {};
    for (qsizetype i = 0; i < gpus.size(); ++i) present << QStringLiteral("cuda:%1 %2").arg(i).arg(gpus[i].toString());
    return QStringLiteral("host %1 has %2 GPU(s)%3, but %4 ask for one it does not have; use %5or cpu")
        .arg(hostLabel)
        .arg(gpus.size())
        .arg(present.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(present.join(QStringLiteral(", "))),
             missing.join(QStringLiteral(", ")),
             gpus.size() == 1 ? QStringLiteral("cuda:0 ")
             : gpus.isEmpty() ? QString()
                              : QStringLiteral("cuda:0…cuda:%1 ").arg(gpus.size() - 1));
}

}  // namespace hips
