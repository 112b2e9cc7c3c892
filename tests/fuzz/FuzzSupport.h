#pragma once
// Shared by the libFuzzer targets: reading structured values off the fuzzer's bytes, and a
// check that aborts (so libFuzzer records the input as a crash) when an invariant fails.
#include <QString>
#include <QtGlobal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <zmq.hpp>

namespace hips::fuzz {

// Takes values off the front of the input; past the end it yields zeros and empty chunks,
// so every input, however short, is a valid program for the target.
class Input {
public:
    Input(const uint8_t* data, size_t size) : m_data(data), m_size(size) {}

    size_t left() const { return m_size - m_pos; }
    uint8_t byte() { return m_pos < m_size ? m_data[m_pos++] : 0; }
    uint16_t u16() { return uint16_t(byte() | (byte() << 8)); }
    uint32_t u32() { return uint32_t(u16()) | (uint32_t(u16()) << 16); }
    uint64_t u64() { return uint64_t(u32()) | (uint64_t(u32()) << 32); }
    // Up to `n` bytes (fewer at the end of the input).
    zmq::message_t chunk(size_t n) {
        n = std::min(n, left());
        zmq::message_t m(m_data + m_pos, n);
        m_pos += n;
        return m;
    }
    // A chunk whose length is the next 16-bit value.
    zmq::message_t chunk16() { return chunk(u16()); }
    zmq::message_t rest() { return chunk(left()); }

private:
    const uint8_t* m_data;
    size_t m_size;
    size_t m_pos = 0;
};

// An offset or a length: the canonical value, one near it, a multiple of `step` near it, or any
// 64-bit value at all (how often each: the next byte decides).
inline qint64 nearOrAny(Input& in, qint64 canonical, qint64 step) {
    switch (in.byte() % 4) {
        case 0: return canonical;
        case 1: return canonical + qint64(int8_t(in.byte()));
        case 2: return qint64(in.byte()) * step + qint64(int8_t(in.byte()));
        default: return qint64(in.u64());
    }
}

// Quiet Qt's warnings: a fuzzer feeds garbage on purpose, and printing costs executions.
inline void quietQt() {
    qInstallMessageHandler([](QtMsgType type, const QMessageLogContext&, const QString& text) {
        if (type == QtFatalMsg) {
            std::fprintf(stderr, "qFatal: %s\n", qPrintable(text));
            std::abort();
        }
    });
}

}  // namespace hips::fuzz

// Like assert(), but kept in release builds and reported by libFuzzer as a crash.
#define FUZZ_CHECK(cond)                                                                         \
    do {                                                                                         \
        if (!(cond)) {                                                                           \
            std::fprintf(stderr, "FUZZ_CHECK failed: %s at %s:%d\n", #cond, __FILE__, __LINE__); \
            std::abort();                                                                        \
        }                                                                                        \
    } while (0)
