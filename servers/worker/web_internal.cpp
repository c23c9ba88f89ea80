#include "web_internal.hpp"

#include <httplib.h>

#include <chrono>
#include <thread>

#include "platform/api_error.hpp"

namespace platform::worker {

result<internal_reply> post_internal(const config& cfg, const std::string& origin, const std::string& path,
                                     const std::string& json_body, int read_timeout_s) {
  httplib::Client client(origin);
  client.set_tcp_nodelay(true);
  client.set_connection_timeout(5, 0);
  client.set_read_timeout(read_timeout_s, 0);
  httplib::Headers headers;
  if (!cfg.internal_token.empty()) headers.emplace("Authorization", "Bearer " + cfg.internal_token);
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto res = client.Post(path, headers, json_body, "application/json");
    if (res) return internal_reply{res->status, res->body};
    if (res.error() != httplib::Error::Connection) break;  // sent already: do not send twice
    std::this_thread::sleep_for(std::chrono::milliseconds(200 << attempt));
  }
  return fail(api_error::web_unreachable, "the web server did not answer " + path);
}

std::string web_origin(const config& cfg, const std::string& fallback) {
  if (!cfg.web_url.empty()) return cfg.web_url;
  if (!fallback.empty()) return fallback;
  return "http://127.0.0.1:8787";
}

}  // namespace platform::worker
