// Writes the seed corpora of the wire fuzz targets from real protocol messages, in each
// target's input format (see the comment at the top of each fuzz_*.cpp):
//   make_wire_seeds <dir>   →  <dir>/fuzz_wire/, <dir>/fuzz_cbor_header/, <dir>/fuzz_model_slice/,
//                              <dir>/fuzz_agent_command/
// The seeds in tests/fuzz/corpus/ were made with it; run it again when the protocol changes.
#include "StartCommand.h"
#include "WireCodec.h"

#include <QCborArray>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>

using namespace hips;

namespace {

QString g_root;

void write(const QString& target, const QByteArray& bytes) {
    const QString dir = g_root + QLatin1Char('/') + target;
    QDir().mkpath(dir);
    const QString name = QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha1).toHex());
    QFile f(dir + QLatin1Char('/') + name);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size()) qFatal("cannot write %s", qPrintable(f.fileName()));
}

Message floats(Message m, std::vector<float> values) {
    m.frames.emplace_back(values.data(), values.size() * sizeof(float));
    return m;
}

// fuzz_wire's format: mode byte (routing frames before the message), frame count, then
// 16-bit-length-prefixed frames. fuzz_cbor_header's: the header frame alone.
void seed(Message m, uint8_t routingFrames = 0) {
    std::vector<zmq::message_t> parts;
    WireCodec::encode(std::move(m), parts);
    QByteArray wire;
    wire.append(char(routingFrames));
    wire.append(char(parts.size()));
    for (const zmq::message_t& p : parts) {
        const size_t n = std::min<size_t>(p.size(), 0xffff);
        wire.append(char(n & 0xff));
        wire.append(char(n >> 8));
        wire.append(static_cast<const char*>(p.data()), qsizetype(n));
    }
    write(QStringLiteral("fuzz_wire"), wire);
    write(QStringLiteral("fuzz_cbor_header"), QByteArray(static_cast<const char*>(parts[0].data()), qsizetype(parts[0].size())));
}

QByteArray bytes(std::initializer_list<int> values) {
    QByteArray b;
    for (int v : values) b.append(char(v));
    return b;
}

}  // namespace

// fuzz_agent_command's format: the header frame of a control message.
void agentSeed(const Message& m) {
    std::vector<zmq::message_t> parts;
    WireCodec::encode(Message(m.type, m.fields), parts);
    write(QStringLiteral("fuzz_agent_command"), QByteArray(static_cast<const char*>(parts[0].data()), qsizetype(parts[0].size())));
}

void agentSeeds() {
    const CurveKeyPair worker = CurveKeyPair::generate(), server = CurveKeyPair::generate();
    PeerKeys peers;
    peers.insert(QStringLiteral("party1/worker0"), worker.publicKey);
    peers.insert(QStringLiteral("party1/server0"), server.publicKey);
    QFile topology(QStringLiteral(HIPS_SOURCE_DIR "/tests/data/topologies/small.json"));
    if (!topology.open(QIODevice::ReadOnly)) qFatal("cannot read small.json");
    StartCommand start{
        QStringLiteral("party1/worker0"), QStringLiteral("/srv/hips/runs/r1"), QString::fromUtf8(topology.readAll()), worker, peers, 1};
    agentSeed(start.toMessage());
    start.outDir = QStringLiteral("~/runs/../runs/r2");  // "~" and ".." to resolve
    agentSeed(start.toMessage());
    start.outDir = QStringLiteral("/srv/hips/runs/../../etc");  // out of the runs directory
    agentSeed(start.toMessage());
    start.nodeKey = server;  // another node's key
    agentSeed(start.toMessage());
    agentSeed(Message(QStringLiteral("hello"), {{QStringLiteral("version"), 1}}));
    agentSeed(Message(QStringLiteral("ack"), {{QStringLiteral("seq"), 42}}));
}

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s <corpus dir>\n", argv[0]);
        return 2;
    }
    g_root = QString::fromLocal8Bit(argv[1]);
    const auto s = [](const char* t) { return QString::fromLatin1(t); };

    // Data plane and rendezvous.
    seed(Message(s("register"), {{s("role"), s("server")}, {s("endpoint"), s("tcp://127.0.0.1:19201")}}));
    QCborArray nodes;
    nodes.append(QCborMap{{s("id"), s("party1/server0")}, {s("endpoint"), s("tcp://127.0.0.1:19201")}});
    nodes.append(QCborMap{{s("id"), s("party1/worker0")}, {s("endpoint"), s("")}});
    seed(Message(s("table"), {{s("nodes"), nodes}}), 1);
    seed(Message(s("barrier"), {{s("name"), s("init")}}));
    seed(Message(s("barrier_ok"), {{s("name"), s("init")}}), 1);
    seed(Message(s("heartbeat")));
    seed(floats(Message(s("push"), {{s("round"), 3}}), {0.5f, -1.25f, 3.0f, 1e-7f}), 1);
    seed(Message(s("pull"), {{s("round"), 3}}), 1);
    seed(floats(Message(s("model"), {{s("version"), 4}, {s("offset"), 0}, {s("total"), 3}}), {1.0f, 2.0f, 3.0f}), 1);
    seed(Message(s("bye")));
    seed(Message(s("abort"), {{s("reason"), s("party1/worker0 stopped sending heartbeats")}}));
    // Control plane.
    seed(Message(s("hello"), {{s("version"), 1}, {s("controller_version"), s("0.1.0")}}));
    seed(Message(s("hello_ok"),
                 {{s("version"), 1}, {s("agent_version"), s("0.1.0")}, {s("compatible"), true}, {s("host"), s("local")}, {s("pid"), 4242}}),
         1);
    seed(Message(s("start"), {{s("node"), s("party1/worker0")},
                              {s("topology"), s("{\"format\":\"hips-topology\"}")},
                              {s("out_dir"), s("/tmp/run")},
                              {s("threads"), 1}}));
    seed(Message(s("stop"), {{s("node"), s("party1/worker0")}}));
    seed(Message(s("ack"), {{s("seq"), 17}}));
    seed(Message(s("event"), {{s("seq"), 18},
                              {s("kind"), s("metric")},
                              {s("node"), s("central/global_server0")},
                              {s("fields"), QCborMap{{s("round"), 2}, {s("test_accuracy"), 0.8125}, {s("loss"), 0.5}}}}),
         2);
    seed(Message(s("event"), {{s("seq"), 19}, {s("kind"), s("exited")}, {s("status"), 9}, {s("crashed"), true}}));
    // A message with several frames, one of them empty.
    Message multi(s("push"), {{s("round"), 1}});
    multi.frames.emplace_back(0);
    multi.frames.emplace_back("abcd", 4);
    seed(std::move(multi));

    // fuzz_model_slice's format: model-size selector, then records (mode, version, slot,
    // offset picker, total picker, ...). Canonical single slices and multi-slice models.
    const QString slice = QStringLiteral("fuzz_model_slice");
    write(slice, bytes({2, 0x04, 5, 0, 0, 0}));  // 1000 floats, one slice
    write(slice, bytes({6, 0x04, 5, 0, 0, 0, 0x04, 5, 1, 0, 0, 0x04, 5, 2, 0, 0}));  // 2K+5 floats, three slices
    write(slice, bytes({6, 0x04, 5, 1, 0, 0, 0x04, 5, 1, 0, 0, 0x04, 5, 0, 0, 0}));  // a duplicate slice
    write(slice, bytes({5, 0x04, 7, 0, 0, 0, 0x04, 3, 1, 0, 0, 0x04, 7, 1, 0, 0}));  // a stale version between
    write(slice, bytes({0, 0x14, 1, 0, 0, 0, 7, 0}));  // a payload of the wrong size
    write(slice,
          bytes({2,    0x07, 3,   0,   0,   0,   0x1b, 0x00, 0xa3, 0x67, 'v', 'e', 'r', 's', 'i',  'o',  'n', 0x01,
                 0x66, 'o',  'f', 'f', 's', 'e', 't',  0x00, 0x65, 't',  'o', 't', 'a', 'l', 0x19, 0x03, 0xe8}));  // a raw CBOR header
    agentSeeds();
    return 0;
}
