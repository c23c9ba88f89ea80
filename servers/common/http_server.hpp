#pragma once
// Both servers' HTTP server: cpp-httplib's routing and request handling, with our own loop over
// each connection. cpp-httplib's loop waits for a keep-alive connection's next request by
// polling every 10 ms and holds its thread until the connection closes; this one sleeps in
// poll() until the next request or shutdown, caps a request's head (cpp-httplib caps each
// header line, not their number), and lets a handler hand the connection over (platform-web:
// a chat viewer goes to the viewer hub's event loop, freeing the thread at once).
#include <httplib.h>

#include <functional>

namespace platform::servers {

class http_server : public httplib::Server {
 public:
  http_server();
  ~http_server() override;

  // Stops listening and wakes every connection waiting for its next request (signal-safe:
  // one write to an eventfd besides cpp-httplib's own stop()).
  void halt();

  // Called by a handler: once its response's headers are written and its content provider
  // gave up, `take` gets the connection's socket instead of it being closed. The taker ends the
  // connection, so `res` says "Connection: close": a client told keep-alive could send its next
  // request on it and see that fail. Only on this server's own connection threads; false
  // elsewhere (the caller then streams as usual, and `res` is left as it was).
  static bool hand_over(httplib::Response& res, std::function<void(int fd)> take);
  [[nodiscard]] static bool can_hand_over();

  // Called by a handler whose reply leaves the connection unusable (it refused a body without
  // reading it): `res` says "Connection: close", and the connection ends after it without
  // waiting for its keep-alive timeout (only the header, off this server's connection threads).
  static void close_after_reply(httplib::Response& res);

 private:
  bool process_and_close_socket(socket_t sock) override;
  void serve_connection(socket_t sock);
  int stop_fd_ = -1;
};

}  // namespace platform::servers
