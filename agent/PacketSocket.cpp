#include "PacketSocket.h"

#include <cerrno>
#include <cstring>
#include <sys/socket.h>
#include <unistd.h>

namespace hips {

bool sendPacket(int socket, const QByteArray& bytes, const QList<int>& fds) {
    if (bytes.size() > kMaxPacketBytes || fds.size() > kMaxPassedFds) {
        errno = EMSGSIZE;
        return false;
    }
    iovec io{const_cast<char*>(bytes.constData()), size_t(bytes.size())};
    msghdr msg{};
    msg.msg_iov = &io;
    msg.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxPassedFds)] = {};
    if (!fds.isEmpty()) {
        msg.msg_control = control;
        msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
        cmsghdr* c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
        std::memcpy(CMSG_DATA(c), fds.constData(), sizeof(int) * fds.size());
    }
    ssize_t sent;
    do sent = ::sendmsg(socket, &msg, MSG_NOSIGNAL);
    while (sent < 0 && errno == EINTR);
    return sent == bytes.size();
}

bool receivePacket(int socket, QByteArray* bytes, QList<int>* fds, int flags) {
    bytes->resize(kMaxPacketBytes);
    fds->clear();
    iovec io{bytes->data(), size_t(bytes->size())};
    msghdr msg{};
    msg.msg_iov = &io;
    msg.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxPassedFds)] = {};
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    ssize_t got;
    do got = ::recvmsg(socket, &msg, MSG_CMSG_CLOEXEC | flags);
    while (got < 0 && errno == EINTR);
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            const size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            for (size_t i = 0; i < count; ++i) {
                int fd;
                std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
                fds->append(fd);
            }
        }
    if (got <= 0 || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
        for (int fd : *fds) ::close(fd);
        fds->clear();
        if (got > 0) errno = EMSGSIZE;
        if (got == 0) errno = EPIPE;  // (the end of the stream: never EAGAIN left from before)
        return false;
    }
    bytes->resize(got);
    return true;
}

}  // namespace hips
