#include "DeployCommand.h"

#include "CommandLine.h"
#include "AgentClient.h"
#include "DeploymentKeys.h"
#include "ControlProtocol.h"
#include "LocalAgentLauncher.h"
#include "SlurmStop.h"
#include "TopologyReader.h"

#include <QCoreApplication>
#include <algorithm>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QTimer>
#include <cstdio>
#include <limits>
#include <mutex>
#include <termios.h>
#include <unistd.h>

namespace hips {

// This command suspended (Ctrl-Z, a laptop asleep) goes on where it was once resumed: the agents'
// silence meanwhile was its own doing (AgentClient said "stalled" and nothing more: it hung).
static constexpr qint64 kAnyStall = std::numeric_limits<qint64>::max();

namespace {

// A line from the terminal when a person is at one; `secret` turns echo off.
QString askTerminal(const QString& question, bool secret) {
    if (!isatty(STDIN_FILENO)) return {};  // scripts and tests: no one to ask, so the answer is no
    // Hosts deploy in parallel: one question at a time, so an answer always goes to its question.
    static std::mutex oneAtATime;
    std::lock_guard lock(oneAtATime);
    FILE* tty = std::fopen("/dev/tty", "r+");
    if (!tty) return {};
    std::fprintf(tty, "%s", qPrintable(question));
    std::fflush(tty);
    termios saved{};
    const int fd = fileno(tty);
    const bool hide = secret && tcgetattr(fd, &saved) == 0;
    if (hide) {
        termios quiet = saved;
        quiet.c_lflag &= ~tcflag_t(ECHO);
        tcsetattr(fd, TCSANOW, &quiet);
    }
    char line[1024] = {};
    const bool got = std::fgets(line, sizeof line, tty) != nullptr;
    if (hide) {
        tcsetattr(fd, TCSANOW, &saved);
        std::fprintf(tty, "\n");
    }
    std::fclose(tty);
    QString answer = got ? QString::fromLocal8Bit(line).trimmed() : QString();
    std::fill(std::begin(line), std::end(line), '\0');
    return answer;
}

std::optional<Topology> loadRemoteTopology(const QString& path, const char* command) {
    const TopologyLoad load = TopologyReader::readFile(path);
    if (!load.ok()) {
        std::fprintf(stderr, "%s\n", qPrintable(load.errorText()));
        return std::nullopt;
    }
    if (remoteHosts(*load.topology).isEmpty()) {
        std::fprintf(stderr,
                     "hips %s: every host of %s is this machine (127.0.0.1); `hips run` starts and stops "
                     "its agent itself\n",
                     command, qPrintable(path));
        return std::nullopt;
    }
    return load.topology;
}

}  // namespace

void addSshOptions(QCommandLineParser& args) {
    args.addOption({"known-hosts", "known_hosts file for host keys (default ~/.ssh/known_hosts).", "PATH"});
    args.addOption({"accept-new-host-keys", "Trust and record host keys seen for the first time (never changed ones)."});
    args.addOption({"ssh-timeout", "Seconds to wait for each host to answer.", "S", "10"});
}

DeployOptions deployOptionsFrom(const QCommandLineParser& args) {
    DeployOptions o;
    o.binDir = QFileInfo(LocalAgentLauncher::agentPath()).absolutePath();
    o.knownHosts = args.value("known-hosts");
    o.acceptNewHostKeys = args.isSet("accept-new-host-keys");
    bool ok = false;
    o.timeoutSeconds = args.value("ssh-timeout").toInt(&ok);
    if (!ok || o.timeoutSeconds < 1) {  // (a typo taken as 1 s made every slow host look unreachable)
        std::fprintf(stderr, "hips: --ssh-timeout takes whole seconds, 1 or more; got '%s'\n", qPrintable(args.value("ssh-timeout")));
        std::exit(2);
    }
    o.hostKeyPrompt = [](const QString& host, const QString& fingerprint, const std::atomic<bool>&) {
        const QString answer = askTerminal(
            QStringLiteral("The key of host '%1' is not known: %2\nTrust it and record it? (yes/no) ").arg(host, fingerprint), false);
        return answer.compare(QLatin1String("yes"), Qt::CaseInsensitive) == 0;
    };
    o.secretPrompt = [](const QString& question, const std::atomic<bool>&) { return askTerminal(question, true); };
    return o;
}

// Deploys and completes the version handshake with every agent, which then waits in standby.
int deployCommand(const QStringList& arguments) {
    QCommandLineParser args;
    args.setApplicationDescription("Deploy hips-agent over SSH to every remote host of a topology.");
    args.addPositionalArgument("TOPOLOGY", "Topology file.");
    addSshOptions(args);
    args.addHelpOption();
    processCommand(args, arguments, QStringLiteral("hips deploy"));
    if (args.positionalArguments().size() != 1) {
        std::fprintf(stderr, "usage: hips deploy TOPOLOGY [--accept-new-host-keys] [--known-hosts PATH]\n");
        return 2;
    }
    const auto topology = loadRemoteTopology(args.positionalArguments().first(), "deploy");
    if (!topology) return 2;
    QElapsedTimer clock;
    clock.start();
    DeploymentKeys keys = DeploymentKeys::generate();
    DeployOptions options = deployOptionsFrom(args);
    options.controllerPublicKey = keys.controller.publicKey;
    Deployer deployer;
    std::vector<std::unique_ptr<AgentClient>> agents;
    int pending = 0, failures = 0, keysUnsaved = 0;
    QObject::connect(&deployer, &Deployer::progress, [](const QString& host, const QString& stage) {
        std::printf("%-12s %s\n", qPrintable(host), qPrintable(stage));
        std::fflush(stdout);
    });
    // Each host's key kept as soon as its agent runs, not when every host is done: Ctrl-C before
    // then left agents that hips stop could not reach (as deployment.md says it is).
    QObject::connect(&deployer, &Deployer::hostFinished, [&](const HostDeployment& r) {
        if (!r.ok) return;
        keys.agents.insert(r.host, r.agentPublicKey);
        if (const QString e = keys.save(DeploymentKeys::pathFor(*topology)); !e.isEmpty()) {
            ++keysUnsaved;
            std::fprintf(stderr, "hips deploy: %s; `hips stop` will not reach the agent on %s\n", qPrintable(e), qPrintable(r.host));
        }
    });
    QObject::connect(&deployer, &Deployer::finished, [&](const QList<HostDeployment>& results) {
        for (const HostDeployment& r : results) {
            if (!r.ok) {
                ++failures;
                std::fprintf(stderr, "%s\n", qPrintable(r.error));
                continue;
            }
            ++pending;
            auto agent = std::make_unique<AgentClient>(r.host, r.agentEndpoint, keys.clientFor(r.host));
            AgentClient* a = agent.get();
            a->setStallTolerance(kAnyStall);
            QObject::connect(a, &AgentClient::ready, [&, r, a](const QCborMap& hello) {
                QObject::disconnect(a, &AgentClient::lost, nullptr, nullptr);  // counted once, as ready
                std::printf("%-12s ready: agent %s (pid %lld) on %s, %s, %s, %.1f s\n", qPrintable(r.host),
                            qPrintable(hello.value(QStringLiteral("agent_version")).toString()),
                            static_cast<long long>(hello.value(QStringLiteral("pid")).toInteger()), qPrintable(r.system),
                            qPrintable(r.agentEndpoint), r.uploaded ? "uploaded" : "already up to date", r.seconds);
                if (--pending == 0) QCoreApplication::exit(failures || keysUnsaved ? 1 : 0);
            });
            QObject::connect(agent.get(), &AgentClient::lost, [&](const QString& reason) {
                ++failures;
                std::fprintf(stderr, "%s\n", qPrintable(reason));
                if (--pending == 0) QCoreApplication::exit(1);
            });
            agents.push_back(std::move(agent));
        }
        if (pending == 0) QCoreApplication::exit(failures || keysUnsaved ? 1 : 0);
    });
    deployer.start(*topology, options);
    const int status = QCoreApplication::exec();
    std::printf("deployed to %lld of %lld hosts in %.1f s\n", static_cast<long long>(remoteHosts(*topology).size() - failures),
                static_cast<long long>(remoteHosts(*topology).size()), double(clock.nsecsElapsed()) / 1e9);
    return status;
}

// Cancels the queued or running jobs of every Slurm party (SlurmStop.h); false if one could not be.
static bool stopSlurmParties(const Topology& topology, const DeployOptions& options) {
    bool ok = true;
    for (const Party& p : topology.parties) {
        if (!p.slurm) continue;
        const SlurmStop stop = stopSlurmParty(topology, p, options);
        if (!stop.error.isEmpty()) {
            ok = false;
            std::fprintf(stderr, "%s: %s\n", qPrintable(p.id), qPrintable(stop.error));
        } else if (stop.cancelled.isEmpty()) {
            std::printf("%-12s no Slurm job of it in the queue\n", qPrintable(p.id));
        } else {
            std::printf("%-12s cancelled Slurm job %s\n", qPrintable(p.id), qPrintable(stop.cancelled.join(QStringLiteral(", "))));
        }
    }
    return ok;
}

// Cancels the Slurm parties' jobs, then tells every agent to stop its roles and exit, and waits
// until each said goodbye.
int stopCommand(const QStringList& arguments) {
    QCommandLineParser args;
    args.setApplicationDescription("Stop the roles and agents of a deployed topology, and its Slurm parties' jobs.");
    args.addPositionalArgument("TOPOLOGY", "Topology file.");
    addSshOptions(args);
    args.addHelpOption();
    processCommand(args, arguments, QStringLiteral("hips stop"));
    if (args.positionalArguments().size() != 1) {
        std::fprintf(stderr, "usage: hips stop TOPOLOGY\n");
        return 2;
    }
    const TopologyLoad load = TopologyReader::readFile(args.positionalArguments().first());
    if (!load.ok()) {
        std::fprintf(stderr, "%s\n", qPrintable(load.errorText()));
        return 2;
    }
    const bool slurmParties =
        std::any_of(load.topology->parties.begin(), load.topology->parties.end(), [](const Party& p) { return p.slurm.has_value(); });
    const bool slurmStopped = !slurmParties || stopSlurmParties(*load.topology, deployOptionsFrom(args));
    if (slurmParties && remoteHosts(*load.topology).isEmpty()) return slurmStopped ? 0 : 1;
    const auto topology = loadRemoteTopology(args.positionalArguments().first(), "stop");
    if (!topology) return 2;
    QString error;
    const auto keys = DeploymentKeys::load(DeploymentKeys::pathFor(*topology), &error);
    if (!keys) {
        std::fprintf(stderr, "hips stop: %s\n", qPrintable(error));
        return 2;
    }
    std::vector<std::unique_ptr<AgentClient>> agents;
    int pending = 0, failures = 0;
    for (const Host& h : remoteHosts(*topology)) {
        if (keys->agents.value(h.id).size() != 40) {
            ++failures;
            std::fprintf(stderr,
                         "%s: was not deployed with the keys in %s (a failed or other deployment); deploy again, "
                         "then stop\n",
                         qPrintable(h.id), qPrintable(DeploymentKeys::pathFor(*topology)));
            continue;
        }
        ++pending;
        auto agent = std::make_unique<AgentClient>(h.id, tcpEndpoint(h.address, h.agentPort), keys->clientFor(h.id));
        AgentClient* a = agent.get();
        a->setStallTolerance(kAnyStall);
        QObject::connect(a, &AgentClient::ready, [a] { a->send(Message(QStringLiteral("shutdown"))); });
        QObject::connect(a, &AgentClient::bye, [&, id = h.id] {
            std::printf("%-12s stopped\n", qPrintable(id));
            if (--pending == 0) QCoreApplication::exit(failures ? 1 : 0);
        });
        QObject::connect(a, &AgentClient::lost, [&, id = h.id](const QString& reason) {
            ++failures;
            std::fprintf(stderr, "%s: %s (already stopped, or unreachable)\n", qPrintable(id), qPrintable(reason));
            if (--pending == 0) QCoreApplication::exit(1);
        });
        agents.push_back(std::move(agent));
    }
    if (pending == 0) return 1;
    const int status = QCoreApplication::exec();
    return slurmStopped ? status : 1;
}

}  // namespace hips
