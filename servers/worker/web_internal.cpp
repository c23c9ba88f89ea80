#include "web_internal.hpp"

#include <httplib.h>

#include <chrono>
#include <thread>

#include <nlohmann/json.hpp>

#include "platform/api_error.hpp"
#include "platform/run_capability.hpp"

namespace platform::worker {

result<internal_reply> post_internal(const config& cfg, const std::string& origin, const std::string& path,
                                     const std::string& capability, const std::string& json_body, int read_timeout_s) {
  httplib::Client client(origin);
  client.set_tcp_nodelay(true);
  client.set_connection_timeout(5, 0);
  client.set_read_timeout(read_timeout_s, 0);
  httplib::Headers headers;
  if (!cfg.internal_token.empty()) headers.emplace("Authorization", "Bearer " + cfg.internal_token);
  headers.emplace(std::string(run_capability_header), capability);
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto res = client.Post(path, headers, json_body, "application/json");
    if (res) return internal_reply{res->status, res->body};
    if (res.error() != httplib::Error::Connection) break;  // sent already: do not send twice
    std::this_thread::sleep_for(std::chrono::milliseconds(200 << attempt));
  }
  return fail(api_error::web_unreachable, "the web server did not answer " + path);
}

bool valid_run_capability_field(const nlohmann::json& body) {
  auto it = body.find("runCapability");
  return it != body.end() && it->is_string() && !it->get_ref<const std::string&>().empty() &&
         it->get_ref<const std::string&>().size() <= run_capability_max_size;
}

std::string web_origin(const config& cfg, const std::string& fallback) {
  if (!cfg.web_url.empty()) return cfg.web_url;
  if (!fallback.empty()) return fallback;
  return "http://127.0.0.1:8787";
}

}  // namespace platform::worker
