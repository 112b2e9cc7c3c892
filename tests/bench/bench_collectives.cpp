// A party's collectives (issue 49) against PyTorch's torch.distributed.all_reduce over Gloo, side by
// side in one run on the same loopback: N processes (2, 4, 8), each with a ZeroMQ context and its
// own memory, allreduce 1, 4, 16 and 64 MB of floats. Prints, per collective, the bus bandwidth
// (S·2(N−1)/N per second, as NCCL's and Gloo's benchmarks count it) in plain TCP, with CURVE
// (transport_security curve) and sealed (the default: AES-GCM on plain sockets), its ratio to Gloo's, and the bytes a rank sent
// against the algorithm's formula. Gloo's figures come from bench_collectives_gloo.py (Debian's python3-torch), run here.
// A collective named with ":fp16" (ring:fp16) sends half floats (party_compression fp16): the same
// S summed in half the bytes, its bus bandwidth counted on S as for the others.
//
//     bench_collectives [--ranks 2,4,8] [--mb 1,4,16,64] [--reps 5] [--chunk-kb 512]
//                       [--collectives ring,butterfly,binary_blocks] [--no-gloo]
#include "Collective.h"
#include "MeshPeers.h"
#include "ProcessMemory.h"

#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>
#include <algorithm>
#include <arpa/inet.h>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace hips;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
    QList<int> ranks{2, 4, 8};
    QList<double> megabytes{1, 4, 16, 64};
    int reps = 5;
    int chunkKb = 512;
    QStringList collectives{QStringLiteral("ring"), QStringLiteral("butterfly"), QStringLiteral("binary_blocks")};
    bool gloo = true;
};

struct Figure {
    double seconds = 0;  // one allreduce, the mean of reps
    double sentMost = 0;  // bytes the busiest rank sent, for one allreduce
};

// Free loopback ports for n ranks: asked of the kernel, then let go just before the ranks bind.
QList<int> freePorts(int n) {
    QList<int> ports;
    std::vector<int> held;
    for (int i = 0; i < n; ++i) {
        const int s = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t size = sizeof a;
        if (::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &size) != 0) {
            std::perror("bench_collectives: a free port");
            std::exit(1);
        }
        ports << ntohs(a.sin_port);
        held.push_back(s);
    }
    for (int s : held) ::close(s);
    return ports;
}

// One rank, in a child process: every size, `reps` times after a warm-up; rank 0 writes
// "seconds sent" a line per size to `out`, the others their "sent" only.
// How a rank's chunks are protected: none, ZeroMQ's CURVE, or sealed on plain sockets (SealedBulk.h).
enum class Security { Plain, Curve, Sealed };

// "ring", or "ring:fp16" (half floats on the wire).
std::unique_ptr<Collective> makeCollective(const QString& name, int chunkKb) {
    auto collective = CollectiveRegistry::create(name.section(QLatin1Char(':'), 0, 0), [&](const QString& key) {
        return key == QLatin1String("transport_chunk_kb") ? double(chunkKb) : 2.0;
    });
    if (collective && name.endsWith(QLatin1String(":fp16"))) collective->setHalfPrecision(true);
    if (!collective) throw CollectiveError("no collective " + name.toStdString());
    return collective;
}

int rankMain(const Options& o, const QString& name, int n, int rank, const QList<int>& ports, Security security,
             const std::vector<CurveKeyPair>& keys, int out, int go) {
    const bool curve = security != Security::Plain;
    zmq::context_t ctx(1);
    QList<MeshPeers::Member> members;
    QHash<QByteArray, QString> admitted;
    for (int r = 0; r < n; ++r) {
        members.append({QStringLiteral("bench/rank%1").arg(r), QStringLiteral("tcp://127.0.0.1:%1").arg(ports[r]),
                        curve ? keys[size_t(r)].publicKey : QByteArray()});
        if (curve) admitted.insert(keys[size_t(r)].publicKey, members.back().node);
    }
    std::unique_ptr<CurveGuard> guard;
    if (curve) guard = std::make_unique<CurveGuard>(ctx, admitted, members[rank].node);
    int code = 0;
    try {
        MeshPeers peers(ctx, members, rank, curve ? keys[size_t(rank)] : CurveKeyPair{}, std::chrono::seconds(10));
        // Bound: say so, and wait until every rank is (as a party's workers connect once all have
        // registered): a connection refused before a peer listens would only add ZeroMQ's retry.
        char byte = 'r';
        if (::write(out, &byte, 1) != 1 || ::read(go, &byte, 1) != 1) throw CollectiveError("the bench went away");
        if (security == Security::Sealed) peers.sealLinks("bench_collectives");
        const auto collective = makeCollective(name, o.chunkKb);
        quint32 sequence = 0;
        float one = 1;
        collective->allreduce(&one, 1, peers, sequence++);  // everyone connected
        for (double mb : o.megabytes) {
            std::vector<float> data(size_t(mb * (1 << 20)) / sizeof(float), 1.0f);
            collective->allreduce(data.data(), data.size(), peers, sequence++);  // warm-up: pages, queues
            quint64 before = 0, after = 0;
            for (int r = 0; r < n; ++r) before += peers.bytesSentTo(r);
            const auto start = Clock::now();
            for (int i = 0; i < o.reps; ++i) collective->allreduce(data.data(), data.size(), peers, sequence++);
            const double seconds = std::chrono::duration<double>(Clock::now() - start).count() / o.reps;
            for (int r = 0; r < n; ++r) after += peers.bytesSentTo(r);
            const QByteArray line =
                QByteArray::number(seconds, 'g', 9) + ' ' + QByteArray::number(double(after - before) / o.reps, 'f', 0) + '\n';
            if (::write(out, line.constData(), size_t(line.size())) != line.size()) code = 1;
        }
        collective->allreduce(&one, 1, peers, sequence++);  // nobody leaves while another still sends
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_collectives: rank %d of %s: %s\n", rank, qPrintable(name), e.what());
        code = 1;
    }
    return code;
}  // (the context ends here: ZeroMQ sends what the last call queued before the process exits)

// Runs one collective among n processes; its figure per size.
std::map<double, Figure> measure(const Options& o, const QString& name, int n, Security security) {
    std::vector<CurveKeyPair> keys;
    for (int r = 0; r < n; ++r) keys.push_back(security != Security::Plain ? CurveKeyPair::generate() : CurveKeyPair{});
    const QList<int> ports = freePorts(n);
    std::vector<int> reads, gos;
    std::vector<pid_t> children;
    for (int r = 0; r < n; ++r) {
        int pipe[2], go[2];
        if (::pipe(pipe) != 0 || ::pipe(go) != 0) std::exit(1);
        std::fflush(nullptr);
        const pid_t pid = ::fork();
        if (pid == 0) {
            ::close(pipe[0]);
            ::close(go[1]);
            const int code = rankMain(o, name, n, r, ports, security, keys, pipe[1], go[0]);
            std::fflush(nullptr);
            _exit(code);
        }
        ::close(pipe[1]);
        ::close(go[0]);
        reads.push_back(pipe[0]);
        gos.push_back(go[1]);
        children.push_back(pid);
    }
    for (int r = 0; r < n; ++r) {  // every rank bound, then all go
        char byte = 0;
        if (::read(reads[size_t(r)], &byte, 1) != 1) break;
    }
    for (int fd : gos) {
        if (::write(fd, "g", 1) != 1) std::perror("bench_collectives: a rank's go");
        ::close(fd);
    }
    std::vector<QByteArray> outputs{size_t(n)};
    for (int r = 0; r < n; ++r) {
        char buffer[4096];
        ssize_t got;
        while ((got = ::read(reads[size_t(r)], buffer, sizeof buffer)) > 0) outputs[size_t(r)].append(buffer, got);
        ::close(reads[size_t(r)]);
    }
    bool failed = false;
    for (pid_t pid : children) {
        int status = 0;
        ::waitpid(pid, &status, 0);
        failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    }
    std::map<double, Figure> figures;
    if (failed) return figures;
    for (int r = 0; r < n; ++r) {
        const QList<QByteArray> lines = outputs[size_t(r)].trimmed().split('\n');
        for (int i = 0; i < lines.size() && i < o.megabytes.size(); ++i) {
            const QList<QByteArray> f = lines[i].split(' ');
            Figure& figure = figures[o.megabytes[i]];
            figure.seconds = std::max(figure.seconds, f.value(0).toDouble());  // the call ends when its last rank does
            figure.sentMost = std::max(figure.sentMost, f.value(1).toDouble());
        }
    }
    return figures;
}

// Gloo's seconds per allreduce by (ranks, MB), from the Python bench beside this one.
std::map<std::pair<int, double>, double> glooFigures(const Options& o) {
    std::map<std::pair<int, double>, double> figures;
    QStringList ranks, mbs;
    for (int n : o.ranks) ranks << QString::number(n);
    for (double mb : o.megabytes) mbs << QString::number(mb);
    const QByteArray script = QByteArray(HIPS_SOURCE_DIR) + "/tests/bench/bench_collectives_gloo.py";
    const QByteArray command = "/usr/bin/python3 '" + script + "' --ranks " + ranks.join(',').toUtf8() + " --mb " + mbs.join(',').toUtf8() +
                               " --reps " + QByteArray::number(o.reps);
    FILE* p = ::popen(command.constData(), "r");
    if (!p) return figures;
    char line[512];
    while (std::fgets(line, sizeof line, p)) {
        const QJsonObject j = QJsonDocument::fromJson(QByteArray(line)).object();
        if (j.contains(QLatin1String("seconds")))
            figures[{j.value(QLatin1String("ranks")).toInt(), j.value(QLatin1String("mb")).toDouble()}] =
                j.value(QLatin1String("seconds")).toDouble();
    }
    if (::pclose(p) != 0)
        std::fprintf(stderr, "bench_collectives: Gloo's bench failed (is python3-torch installed?); its columns stay empty\n");
    return figures;
}

QList<int> intList(const char* text) {
    QList<int> out;
    for (const QByteArray& part : QByteArray(text).split(',')) out << part.toInt();
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    keepLargeAllocations();  // as every role process has it (ProcessMemory.h)
    Options o;
    for (int i = 1; i < argc; ++i) {
        const QByteArray a = argv[i];
        const char* next = i + 1 < argc ? argv[i + 1] : "";
        if (a == "--ranks") o.ranks = intList(next), ++i;
        else if (a == "--mb") {
            o.megabytes.clear();
            for (const QByteArray& part : QByteArray(next).split(',')) o.megabytes << part.toDouble();
            ++i;
        } else if (a == "--reps") o.reps = std::max(1, QByteArray(next).toInt()), ++i;
        else if (a == "--chunk-kb") o.chunkKb = std::max(4, QByteArray(next).toInt()), ++i;
        else if (a == "--collectives") o.collectives = QString::fromLatin1(next).split(','), ++i;
        else if (a == "--no-gloo") o.gloo = false;
        else {
            std::fprintf(stderr,
                         "usage: bench_collectives [--ranks 2,4,8] [--mb 1,4,16,64] [--reps 5] [--chunk-kb 512] "
                         "[--collectives ring,butterfly,binary_blocks] [--no-gloo]\n");
            return 2;
        }
    }
    const auto gloo = o.gloo ? glooFigures(o) : std::map<std::pair<int, double>, double>{};
    std::printf("bus bandwidth GB/s = S·2(N−1)/N / seconds; ratio = HiPS / Gloo; sent = bytes the busiest rank sent / the formula's\n");
    std::printf("%5s %6s %-13s %9s %9s %6s %9s %6s %9s %6s %7s\n", "ranks", "MB", "collective", "gloo", "plain", "ratio", "curve", "ratio",
                "sealed", "ratio", "sent");
    for (int n : o.ranks)
        for (const QString& name : o.collectives) {
            const auto plain = measure(o, name, n, Security::Plain);
            const auto curve = measure(o, name, n, Security::Curve);
            const auto sealed = measure(o, name, n, Security::Sealed);
            const auto collective = makeCollective(name, 512);
            for (double mb : o.megabytes) {
                const double bytes = mb * (1 << 20);
                const auto busGBs = [&](double seconds) { return seconds > 0 ? bytes * 2 * (n - 1) / n / seconds / 1e9 : 0.0; };
                const double g = gloo.count({n, mb}) ? busGBs(gloo.at({n, mb})) : 0;
                const double p = plain.count(mb) ? busGBs(plain.at(mb).seconds) : 0;
                const double c = curve.count(mb) ? busGBs(curve.at(mb).seconds) : 0;
                const double x = sealed.count(mb) ? busGBs(sealed.at(mb).seconds) : 0;
                const double formula = collective->bytesSentPerRank(size_t(bytes / sizeof(float)), n);
                const double sent = plain.count(mb) && formula > 0 ? plain.at(mb).sentMost / formula : 0;
                std::printf("%5d %6g %-13s %9.3f %9.3f %6.2f %9.3f %6.2f %9.3f %6.2f %7.3f\n", n, mb, qPrintable(name), g, p,
                            g > 0 ? p / g : 0, c, g > 0 ? c / g : 0, x, g > 0 ? x / g : 0, sent);
                std::fflush(stdout);
            }
        }
    return 0;
}
