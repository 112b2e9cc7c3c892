// Data-plane goodput: N workers push a payload and pull a model of the same size each round,
// through HiPS's real path (Channel + WireCodec on ROUTER/DEALER, pushes in slices that
// RoundCollector folds with FedAvg as they arrive into w + ΣΔ, each slice of the new model
// streamed back zero-copy as soon as it is final), against raw ZeroMQ PUSH/PULL moving the same
// bytes both ways over the same loopback, in the same run. The server and every worker have a
// ZeroMQ context of their own with one I/O thread and send from memory of their own, as the
// roles' processes do. (Raw's workers once all sent the server's one buffer: with four workers
// the kernel's copy from user memory cost raw half what it cost HiPS, whose workers each send
// their own: perf counted 0.62 s in _copy_from_iter for raw, 1.42 s for HiPS without the fold.)
// The paths take turns in short blocks (see main). Goodput = payload bytes pushed + pulled / wall
// time. Prints one line per configuration. The `curve` columns run the same path with CURVE on, as every run
// has it (a key pair per node, the ZAP handler naming each peer): its cost is curve_GB/s against
// hips_GB/s. The `sealed` columns run it with `transport_security: sealed` (CURVE for headers and
// identities, the payloads' frames sealed with the link's AES-256-GCM on plain sockets beside it,
// SealedPlane.h): sealed/raw is its goodput against raw plaintext ZeroMQ's.
#include "AggregatorRegistry.h"
#include "Channel.h"
#include "ProcessMemory.h"
#include "RoundCollector.h"
#include "SealedLink.h"

#include <algorithm>
#include <sodium.h>
#ifdef HIPS_BENCH_OPENSSL
#include <openssl/evp.h>
#endif
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <string>
#include <thread>

using namespace hips;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

std::string lastEndpoint(zmq::socket_t& s) {
    return s.get(zmq::sockopt::last_endpoint);
}

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// Each path below is set up once: its workers run `rounds` rounds in all (push, then wait for the
// model), and serve(n) runs the next n of them at the server and returns their seconds. While
// another path is being served, a worker's next push waits in its socket; a block therefore
// begins with an untimed lead-in round (see timedBlock). Whatever was not served is served by the
// destructor, so the workers always finish.

// Raw ZeroMQ: PUSH/PULL moving the same bytes both ways, nothing done with them.
class RawPath {
public:
    RawPath(int workers, size_t bytes, int rounds) : m_payload(bytes, 1), m_workers(workers), m_left(rounds) {
        m_in.bind("tcp://127.0.0.1:*");
        for (int w = 0; w < workers; ++w) {
            m_serverOut.emplace_back(m_ctx, zmq::socket_type::push);
            m_serverOut.back().bind("tcp://127.0.0.1:*");
        }
        for (int w = 0; w < workers; ++w)
            m_threads.emplace_back(
                [this, rounds, in = lastEndpoint(m_in), out = lastEndpoint(m_serverOut[size_t(w)])] { work(rounds, in, out); });
    }
    ~RawPath() {
        serve(m_left);
        for (auto& t : m_threads) t.join();
    }
    double serve(int rounds) {
        const auto start = Clock::now();
        for (int r = 0; r < rounds; ++r) {
            for (int w = 0; w < m_workers; ++w) {
                zmq::message_t m;
                (void)m_in.recv(m);
            }
            for (auto& s : m_serverOut) s.send(zmq::message_t(m_payload.data(), m_payload.size(), nullptr, nullptr), zmq::send_flags::none);
        }
        m_left -= rounds;
        return secondsSince(start);
    }

private:
    void work(int rounds, const std::string& serverIn, const std::string& serverOut) {
        zmq::context_t ctx(1);  // a process of its own, as a worker is
        zmq::socket_t out(ctx, zmq::socket_type::push), in(ctx, zmq::socket_type::pull);
        out.connect(serverIn);
        in.connect(serverOut);
        std::vector<char> push(m_payload.size(), 1);  // its own memory, as HiPS's workers have
        for (int r = 0; r < rounds; ++r) {
            out.send(zmq::message_t(push.data(), push.size(), nullptr, nullptr), zmq::send_flags::none);
            zmq::message_t model;
            (void)in.recv(model);
        }
    }

    zmq::context_t m_ctx{1};  // one I/O thread, as each role's process has (RoleContext)
    std::vector<char> m_payload;
    int m_workers, m_left;
    zmq::socket_t m_in{m_ctx, zmq::socket_type::pull};
    std::vector<zmq::socket_t> m_serverOut;
    std::vector<std::thread> m_threads;
};

// HiPS's real path: Channel + WireCodec on ROUTER/DEALER, pushes in slices that RoundCollector
// folds with FedAvg as they arrive into w + ΣΔ, each slice of the new model streamed back
// zero-copy as soon as it is final. `Transport`: the same messages, codec and sockets, but the
// server only counts pushes and answers with the unchanged model — the transport's share of the
// cost. `Curve`: the folding path with CURVE sealing every byte, as `transport_security: curve` has it (a key pair per node, the
// ZAP handler naming each peer). `Sealed`: the same with `transport_security: sealed`.
class HipsPath {
public:
    enum Kind { Fold, Transport, Curve, Sealed };

    HipsPath(int workers, size_t bytes, int rounds, Kind kind)
        : m_kind(kind),
          m_workers(workers),
          m_left(rounds),
          m_floats(bytes / sizeof(float)),
          m_serverKeys(secured(kind) ? CurveKeyPair::generate() : CurveKeyPair()),
          m_model(ModelVersion::fromBuffer(0, std::make_shared<std::vector<float>>(m_floats, 0.0f))) {
        QHash<QByteArray, QString> members;
        QSet<QString> ids;
        for (int w = 0; w < workers; ++w) {
            ids.insert(workerId(w));
            m_workerKeys.push_back(secured(kind) ? CurveKeyPair::generate() : CurveKeyPair());
            members.insert(m_workerKeys.back().publicKey, workerId(w));
        }
        if (secured(kind)) m_guard = std::make_unique<CurveGuard>(m_ctx, members, QStringLiteral("bench"));
        m_server =
            std::make_unique<Channel>(Channel::router(m_ctx, kServer, "tcp://127.0.0.1:*", CurveConfig{m_serverKeys, {}, sealing()}));
        m_collector = std::make_unique<RoundCollector>(kServer, ids, AggregatorRegistry::create("fedavg"));
        m_collector->foldOnArrival([this] { return RoundCollector::FoldTarget{m_pool.acquire(m_floats), m_model.data}; });
        const QString endpoint = QString::fromStdString(lastEndpoint(m_server->socket()));
        for (int w = 0; w < workers; ++w) m_threads.emplace_back([this, w, rounds, endpoint] { work(w, rounds, endpoint); });
    }
    ~HipsPath() {
        serve(m_left);
        for (auto& t : m_threads) t.join();
    }
    double serve(int rounds) {
        const auto start = Clock::now();
        const int slicesPerPush = int(sliceCount(m_floats));
        for (int served = 0; served < rounds;) {
            auto e = m_server->receive(1000ms);
            if (!e) continue;
            if (e->message.fields.value(QStringLiteral("pull")).toBool() && !m_pulls.contains(e->peer)) m_pulls.append(e->peer);
            if (m_kind == Transport) {
                if (++m_pushes < m_workers * slicesPerPush) continue;
                m_pushes = 0;
                m_model.version += 1;
                for (const QString& p : m_pulls) sendModel(*m_server, p, m_model, QStringLiteral("model"));
            } else {
                const bool complete = m_collector->add(*e, m_model.version + 1, m_floats);
                if (const auto slice = m_collector->takeFinalSlice())
                    m_streamer.sliceFinal(*m_server, m_pulls, m_model.version + 1, m_collector->foldBuffer(), *slice);
                if (!complete) continue;
                m_model = applyAndSend(*m_server, m_model, *m_collector, m_pulls, m_pool, &m_streamer);
            }
            ++served;
            m_pulls.clear();
        }
        m_left -= rounds;
        return secondsSince(start);
    }

private:
    static QString workerId(int w) { return QStringLiteral("p%1/server0").arg(w); }
    static bool secured(Kind k) { return k == Curve || k == Sealed; }
    QByteArray sealing() const { return m_kind == Sealed ? QByteArray("bench-run") : QByteArray(); }
    static constexpr const char* kServer = "central/global_server0";

    void work(int w, int rounds, const QString& endpoint) {
        zmq::context_t ctx(1);  // a process of its own, as a worker is
        Channel c =
            Channel::dealer(ctx, workerId(w), endpoint, kServer, CurveConfig{m_workerKeys[size_t(w)], m_serverKeys.publicKey, sealing()});
        auto delta = std::make_shared<std::vector<float>>(m_floats, 1e-3f);
        ModelAssembler assembler(m_floats);
        for (qint64 r = 1; r <= rounds; ++r) {  // the model starts at version 0
            sendPush(c, r, r - 1, delta, true);
            while (true) {
                auto e = c.receive(1000ms);
                if (!e || e->message.type != QLatin1String("model")) continue;
                const auto slice = ModelSlice::fromMessage(std::move(e->message), e->peer);
                if (slice && slice->version >= r && assembler.add(*slice)) break;
            }
        }
    }

    zmq::context_t m_ctx{1};  // one I/O thread, as each role's process has (RoleContext)
    Kind m_kind;
    int m_workers, m_left, m_pushes = 0;
    size_t m_floats;
    CurveKeyPair m_serverKeys;
    std::vector<CurveKeyPair> m_workerKeys;
    std::unique_ptr<CurveGuard> m_guard;
    std::unique_ptr<Channel> m_server;
    ModelBufferPool m_pool;
    ModelVersion m_model;
    std::unique_ptr<RoundCollector> m_collector;
    ModelStreamer m_streamer;
    QList<QString> m_pulls;
    std::vector<std::thread> m_threads;
};

// `rounds` timed rounds after one untimed lead-in, whose push was sent while another path was
// served: from the lead-in's model sent to the last one sent is exactly `rounds` whole rounds.
template <class Path>
double timedBlock(Path& path, int rounds) {
    path.serve(1);
    return path.serve(rounds);
}

double goodput(int workers, size_t bytes, int rounds, double seconds) {
    return 2.0 * double(bytes) * workers * rounds / seconds;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// Bytes per second one core seals with `seal` (1 MiB messages, for about 0.2 s): the limit any
// sealed data plane has per core. CURVE seals with XSalsa20-Poly1305 on each socket's I/O thread.
template <typename Seal>
double sealRate(Seal seal) {
    std::vector<unsigned char> plain(size_t(1) << 20, 7), sealed(plain.size() + 64);
    int messages = 0;
    const auto start = Clock::now();
    while (secondsSince(start) < 0.2 || messages < 4) {
        seal(sealed.data(), plain.data(), plain.size());
        ++messages;
    }
    return double(messages) * double(plain.size()) / secondsSince(start);
}

void printCipherSpeeds() {
    if (sodium_init() < 0) return;
    unsigned char key[32], nonce[24] = {};
    randombytes_buf(key, sizeof key);
    const double xsalsa =
        sealRate([&](unsigned char* out, const unsigned char* in, size_t n) { crypto_secretbox_easy(out, in, n, nonce, key); });
    const double chacha = sealRate([&](unsigned char* out, const unsigned char* in, size_t n) {
        crypto_aead_chacha20poly1305_ietf_encrypt(out, nullptr, in, n, nullptr, 0, nullptr, nonce, key);
    });
    const bool aesni = crypto_aead_aes256gcm_is_available();
    const double aes = aesni ? sealRate([&](unsigned char* out, const unsigned char* in, size_t n) {
        crypto_aead_aes256gcm_encrypt(out, nullptr, in, n, nullptr, 0, nullptr, nonce, key);
    })
                             : 0;
    std::printf("sealing on one core, 1 MiB messages: XSalsa20-Poly1305 (CURVE's) %.2f GB/s, ChaCha20-Poly1305 %.2f GB/s, ", xsalsa / 1e9,
                chacha / 1e9);
    if (aesni) std::printf("AES-256-GCM %.2f GB/s (libsodium)\n", aes / 1e9);
    else std::printf("AES-256-GCM not available here (no AES-NI and PCLMUL)\n");
#ifdef HIPS_BENCH_OPENSSL
    // OpenSSL's EVP (with VAES and AVX-512 where the CPU has them): what a sealed plane could use.
    const auto evpRate = [&](const EVP_CIPHER* cipher, int nonceBytes) {
        EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
        const double rate = sealRate([&](unsigned char* out, const unsigned char* in, size_t n) {
            int length = 0;
            EVP_EncryptInit_ex(ctx, cipher, nullptr, nullptr, nullptr);
            EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, nonceBytes, nullptr);
            EVP_EncryptInit_ex(ctx, nullptr, nullptr, key, nonce);
            EVP_EncryptUpdate(ctx, out, &length, in, int(n));
            EVP_EncryptFinal_ex(ctx, out + length, &length);
        });
        EVP_CIPHER_CTX_free(ctx);
        return rate;
    };
    std::printf("sealing on one core, 1 MiB messages, OpenSSL: AES-256-GCM %.2f GB/s, ChaCha20-Poly1305 %.2f GB/s\n",
                evpRate(EVP_aes_256_gcm(), 12) / 1e9, evpRate(EVP_chacha20_poly1305(), 12) / 1e9);
#endif
    // SealedLink's chunked sealing of one 64 MiB push, in 1 MiB chunks, on one thread and on two.
    std::vector<unsigned char> push(size_t(64) << 20, 3), sealed(Sealer::sealedSize(push.size(), size_t(1) << 20));
    SessionKey sessionKey{};
    for (int threads : {1, 2}) {
        Sealer sealer(sessionKey, fastestAead());
        sealer.sealChunks("warm", push.data(), push.size(), size_t(1) << 20, sealed.data(), threads);
        const auto start = Clock::now();
        int pushes = 0;
        while (secondsSince(start) < 0.3 || pushes < 2) {
            sealer.sealChunks("push", push.data(), push.size(), size_t(1) << 20, sealed.data(), threads);
            ++pushes;
        }
        std::printf("%sSealedLink %s, a 64 MiB push in 1 MiB chunks on %d thread%s: %.2f GB/s", threads == 1 ? "" : "; ",
                    aeadName(fastestAead()), threads, threads == 1 ? "" : "s",
                    double(pushes) * double(push.size()) / secondsSince(start) / 1e9);
    }
    std::printf("\n");
}

std::string payloadName(int kib) {
    return kib % 1024 == 0 ? std::to_string(kib / 1024) + " MB" : std::to_string(kib) + " KiB";
}

}  // namespace

// bench_dataplane [WORKERS MB [raw|hips|transport|curve|sealed]] (MB may be a fraction: 0.25 is
// 256 KiB): one configuration only, or one path of it alone for a profiler (it prints that path's
// goodput); every configuration by default.
int main(int argc, char** argv) {
    std::vector<int> workerCounts{1, 4}, payloads{256, 1024, 4096, 16384, 65536};  // KiB
    keepLargeAllocations();  // as hips-agent sets it for its servers (and here for raw ZeroMQ too)
    const auto roundsPerRepetition = [](int workers, int kib) { return std::max(4, 512 * 1024 / (kib * workers)); };
    // A payload: "1" is 1 MB, "0.25" 256 KiB.
    const auto kibOf = [](const char* mb) { return std::max(1, int(std::lround(std::atof(mb) * 1024))); };
    if (argc == 4) {
        const int workers = std::max(1, std::atoi(argv[1])), kib = kibOf(argv[2]);
        const size_t bytes = size_t(kib) << 10;
        const int rounds = 20 * roundsPerRepetition(workers, kib);
        const std::string path = argv[3];
        double seconds = 0;
        if (path == "raw") {
            RawPath raw(workers, bytes, rounds + 1);
            seconds = timedBlock(raw, rounds);
        } else {
            const HipsPath::Kind kind = path == "transport" ? HipsPath::Transport
                                        : path == "curve"   ? HipsPath::Curve
                                        : path == "sealed"  ? HipsPath::Sealed
                                                            : HipsPath::Fold;
            HipsPath hips(workers, bytes, rounds + 2, kind);
            hips.serve(1);  // (a sealed link is made in the first round)
            seconds = timedBlock(hips, rounds);
        }
        std::printf("%s %d x %s, %d rounds: %.2f GB/s\n", path.c_str(), workers, payloadName(kib).c_str(), rounds,
                    goodput(workers, bytes, rounds, seconds) / 1e9);
        return 0;
    }
    if (argc == 3) {
        workerCounts = {std::max(1, std::atoi(argv[1]))};
        payloads = {kibOf(argv[2])};
    }
    printCipherSpeeds();
    std::printf("%-8s %-8s %-7s %10s %12s %7s %14s %7s %10s %12s %11s %10s %12s\n", "workers", "payload", "rounds", "raw_GB/s", "hips_GB/s",
                "ratio", "transport_GB/s", "ratio", "curve_GB/s", "curve/hips", "sealed_GB/s", "sealed/raw", "sealed/curve");
    double worst = 1e9, worstTransport = 1e9, worstCurve = 1e9, worstSealed = 1e9;
    constexpr int kRepetitions = 9;
    for (int workers : workerCounts)
        for (int kib : payloads) {
            const size_t bytes = size_t(kib) << 10;
            const int rounds = roundsPerRepetition(workers, kib);
            // Nine repetitions, each HiPS figure divided by raw's in the same one; the medians are
            // reported. Within a repetition the paths take turns in blocks of an eighth of its
            // rounds (~20 ms at 1 MB): this VM has spells of a fraction of a second in which a
            // process gets about one core of its two and every path slows alike (getrusage: ~0.95
            // CPU-s per s instead of ~1.4), and when each path ran its whole 0.17 s repetition in
            // turn, a spell decided whole repetitions: one full run's median 1 x 1 MB ratio came
            // out anywhere in 0.74-1.09. Taking turns, a spell slows every path it meets.
            const int blocks = std::min(8, rounds), perBlock = rounds / blocks;
            const int total = 2 + kRepetitions * blocks * (perBlock + 1);  // + two warm-up rounds
            RawPath raw(workers, bytes, total);
            HipsPath hips(workers, bytes, total, HipsPath::Fold), transport(workers, bytes, total, HipsPath::Transport);
            raw.serve(2), hips.serve(2), transport.serve(2);  // connections, page faults
            std::vector<double> rawRate, hipsRate, transportRate, secured, sealed, hipsRatio, transportRatio, curveRatio, sealedRatio,
                sealedOverCurve;
            for (int rep = 0; rep < kRepetitions; ++rep) {
                double rawSeconds = 0, hipsSeconds = 0, transportSeconds = 0;
                for (int b = 0; b < blocks; ++b) {
                    rawSeconds += timedBlock(raw, perBlock);
                    hipsSeconds += timedBlock(hips, perBlock);
                    transportSeconds += timedBlock(transport, perBlock);
                }
                const int timed = blocks * perBlock;
                rawRate.push_back(goodput(workers, bytes, timed, rawSeconds));
                hipsRate.push_back(goodput(workers, bytes, timed, hipsSeconds));
                transportRate.push_back(goodput(workers, bytes, timed, transportSeconds));
                {  // CURVE costs ~8x: its own repetition, against HiPS's just before it
                    HipsPath curve(workers, bytes, timed + 2, HipsPath::Curve);
                    curve.serve(1);
                    secured.push_back(goodput(workers, bytes, timed, timedBlock(curve, timed)));
                }
                {  // sealed: its links are made in the first round, untimed
                    HipsPath seal(workers, bytes, timed + 3, HipsPath::Sealed);
                    seal.serve(2);
                    sealed.push_back(goodput(workers, bytes, timed, timedBlock(seal, timed)));
                }
                hipsRatio.push_back(hipsRate.back() / rawRate.back());
                transportRatio.push_back(transportRate.back() / rawRate.back());
                curveRatio.push_back(secured.back() / hipsRate.back());
                sealedRatio.push_back(sealed.back() / rawRate.back());
                sealedOverCurve.push_back(sealed.back() / secured.back());
            }
            worst = std::min(worst, median(hipsRatio));
            worstTransport = std::min(worstTransport, median(transportRatio));
            worstCurve = std::min(worstCurve, median(curveRatio));
            worstSealed = std::min(worstSealed, median(sealedRatio));
            std::printf("%-8d %-8s %-7d %10.2f %12.2f %7.2f %14.2f %7.2f %10.2f %12.2f %11.2f %10.2f %12.2f\n", workers,
                        payloadName(kib).c_str(), rounds, median(rawRate) / 1e9, median(hipsRate) / 1e9, median(hipsRatio),
                        median(transportRate) / 1e9, median(transportRatio), median(secured) / 1e9, median(curveRatio),
                        median(sealed) / 1e9, median(sealedRatio), median(sealedOverCurve));
            std::fflush(stdout);
        }
    std::printf(
        "worst ratio with FedAvg at the server %.2f, transport only %.2f (target >= 0.80); "
        "with CURVE %.2f of without; sealed %.2f of raw\n",
        worst, worstTransport, worstCurve, worstSealed);
    return 0;
}
