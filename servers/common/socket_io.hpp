#pragma once
// Blocking writes to a socket, shared by both servers' hand-made streams (the web's viewer
// fan-out, the worker's sandbox doors).
#include <sys/socket.h>

#include <cerrno>
#include <string_view>

namespace platform::servers {

// The whole of `data`, retried on EINTR and short writes; false once the peer is gone (no
// SIGPIPE). A write timeout set on the socket bounds a peer that stopped reading.
inline bool send_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace platform::servers
