// Deployment speed: hips-agent and hips-trainer deployed (connect, host key, key auth, probe,
// upload, library check, agent start) to one host and to three hosts in parallel, each time
// into fresh install directories so that every run uploads. Target: three hosts <= 1.5 x one.
// The hosts are network namespaces with an sshd each (tests/integration/netns_hosts.sh): root only.
#include "CurveSecurity.h"
#include "Deployer.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QUuid>
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <unistd.h>

namespace {

int harness(const QStringList& args) {
    return QProcess::execute(QStringLiteral(HIPS_SOURCE_DIR "/tests/integration/netns_hosts.sh"), args);
}

// Seconds to deploy to the first `count` hosts, and the agents stopped again afterwards.
double deployOnce(const QStringList& addresses, int count, const QString& dir, int round) {
    hips::Topology t;
    for (int i = 0; i < count; ++i) {
        hips::Host h;
        h.id = QStringLiteral("host%1").arg(i);
        h.address = addresses[i];
        h.user = QStringLiteral("root");
        h.identityFile = dir + QStringLiteral("/hosts/client_key");
        h.installDir = dir + QStringLiteral("/install_%1_%2_%3").arg(count).arg(round).arg(i);
        t.hosts << h;
    }
    hips::DeployOptions options;
    options.binDir = QStringLiteral(HIPS_BIN_DIR);
    options.knownHosts = dir + QStringLiteral("/known_hosts");
    options.acceptNewHostKeys = true;
    options.controllerPublicKey = hips::CurveKeyPair::generate().publicKey;
    hips::Deployer deployer;
    QEventLoop loop;
    QObject::connect(&deployer, &hips::Deployer::finished, &loop, &QEventLoop::quit);
    QElapsedTimer clock;
    clock.start();
    deployer.start(t, options);
    loop.exec();
    const double seconds = double(clock.nsecsElapsed()) / 1e9;
    for (const hips::HostDeployment& r : deployer.results())
        if (!r.ok) {  // a failed deployment is no measurement
            std::fprintf(stderr, "bench_deploy: %s\n", qPrintable(r.error));
            std::exit(1);
        }
    for (const hips::Host& h : t.hosts) {  // stop the agents it started
        QFile pid(h.installDir + QStringLiteral("/agent.pid"));
        if (pid.open(QIODevice::ReadOnly)) ::kill(pid.readAll().trimmed().toInt(), SIGTERM);
    }
    return seconds;
}

}  // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    if (geteuid() != 0) {
        std::printf("bench_deploy: needs root (network namespaces); skipped\n");
        return 0;
    }
    QTemporaryDir dir;
    const QString tag = QUuid::createUuid().toString(QUuid::Id128).left(4);
    if (harness({"up", dir.filePath("hosts"), tag, "3"}) != 0) {
        std::fprintf(stderr, "bench_deploy: cannot make the test hosts\n");
        return 1;
    }
    QFile hosts(dir.filePath("hosts/hosts"));
    hosts.open(QIODevice::ReadOnly);
    const QStringList addresses = QString::fromUtf8(hosts.readAll()).split('\n', Qt::SkipEmptyParts);
    deployOnce(addresses, 3, dir.path(), 0);  // records the host keys; warms the page cache
    std::vector<double> one, three;
    for (int round = 1; round <= 5; ++round) {  // interleaved, so that drift hits both alike
        one.push_back(deployOnce(addresses, 1, dir.path(), round));
        three.push_back(deployOnce(addresses, 3, dir.path(), round));
    }
    std::sort(one.begin(), one.end());
    std::sort(three.begin(), three.end());
    std::printf("deploy to 1 host: median %.2f s (min %.2f, max %.2f)\n", one[2], one[0], one[4]);
    std::printf("deploy to 3 hosts in parallel: median %.2f s (min %.2f, max %.2f); ratio %.2f (target <= 1.5)\n", three[2], three[0],
                three[4], three[2] / one[2]);
    harness({"down", dir.filePath("hosts"), tag, "3"});
    return 0;
}
