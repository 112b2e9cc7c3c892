#pragma once
// One message per packet over a local SOCK_SEQPACKET socket, with file descriptors passed
// alongside (SCM_RIGHTS). Used between hips-agent and its trainer zygote only: a socket pair
// that no other process can reach.
#include <QByteArray>
#include <QList>

namespace hips {

constexpr qsizetype kMaxPacketBytes = 64 * 1024;
constexpr int kMaxPassedFds = 4;

// Returns false (errno set) when the packet could not be sent whole.
bool sendPacket(int socket, const QByteArray& bytes, const QList<int>& fds = {});

// Blocks for one packet (with MSG_DONTWAIT in `flags`, false and errno EAGAIN when none is
// there). Returns false at end of stream or on error; a packet that was cut (too long) or carried
// too many descriptors is refused, and the descriptors it brought are closed. Received
// descriptors are close-on-exec.
bool receivePacket(int socket, QByteArray* bytes, QList<int>* fds, int flags = 0);

}  // namespace hips
