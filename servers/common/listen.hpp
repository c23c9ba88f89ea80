#pragma once
// Binding both servers the same way: cpp-httplib listens with a backlog of 5, so a burst of
// clients connecting at once (reconnecting viewers, a flood of slow ones) would be refused by
// the kernel before any thread could take them.
#include <httplib.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <string>

namespace platform::servers {

// Binds `server` to host:port (0: any free port) with a deep accept backlog, SO_REUSEADDR and
// TCP_NODELAY.
// Returns the bound port, or -1. Serve with server.listen_after_bind().
inline int bind_deep(httplib::Server& server, const std::string& host, int port) {
  int listen_fd = -1;
  server.set_socket_options([&listen_fd](int fd) {
    int yes = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    // As cpp-httplib's own default: a restarted server binds its port again at once, even
    // while a process of the old one still holds a socket on it.
    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &yes, sizeof yes);
    // Inherited by every accepted connection. cpp-httplib writes a response's headers and its
    // body (and each SSE event) separately: with Nagle's algorithm the second write waited for
    // the client's delayed ACK, 40 ms on every keep-alive request (measured: 44 ms per
    // /api/health on one connection, 1.6 ms on fresh ones).
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
    listen_fd = fd;
  });
  int bound = port == 0 ? server.bind_to_any_port(host) : (server.bind_to_port(host, port) ? port : -1);
  if (bound < 0 || listen_fd < 0) return -1;
  ::listen(listen_fd, 4096);
  return bound;
}

}  // namespace platform::servers
