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
#define FUZZ_CHECK(cond)                                                                          \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            std::fprintf(stderr, "FUZZ_CHECK failed: %s at %s:%d\n", #cond, __FILE__, __LINE__); \
            std::abort();                                                                         \
        }                                                                                         \
    } while (0)
