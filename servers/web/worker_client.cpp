#include "worker_client.hpp"

#include <httplib.h>

#include <nlohmann/json.hpp>

#include "platform/ui_stream.hpp"

namespace platform::web {

namespace {

httplib::Headers auth_headers(const std::string& token) {
  httplib::Headers h;
  if (!token.empty()) h.emplace("Authorization", "Bearer " + token);
  return h;
}

std::string path_segment(std::string_view s) { return httplib::detail::encode_query_param(std::string(s)); }

}  // namespace

worker_client::worker_client(std::string base_url, std::string internal_token)
    : base_url_(std::move(base_url)), token_(std::move(internal_token)) {}

result<void> worker_client::stream_messages(std::string_view app_id, const std::string& body_json,
                                            const std::function<bool(std::string_view)>& on_event) const {
  httplib::Client cli(base_url_);
  cli.set_connection_timeout(5, 0);
  cli.set_read_timeout(600, 0);  // a model may think for minutes between events
  httplib::Request req;
  req.method = "POST";
  req.path = "/sessions/" + path_segment(app_id) + "/messages";
  req.headers = auth_headers(token_);
  req.set_header("Content-Type", "application/json");
  req.set_header("Accept", "text/event-stream");
  req.body = body_json;
  int status = 0;
  bool saw_done = false, aborted = false;
  sse_parser parser;
  std::vector<std::string> events;
  req.response_handler = [&](const httplib::Response& r) {
    status = r.status;
    return r.status == 200;
  };
  req.content_receiver = [&](const char* data, std::size_t len, std::uint64_t, std::uint64_t) {
    events.clear();
    if (!parser.feed(std::string_view(data, len), events)) return false;
    for (const auto& e : events) {
      if (e == "[DONE]") saw_done = true;
      if (!on_event(e)) {
        aborted = true;
        return false;
      }
    }
    return true;
  };
  httplib::Response res;
  httplib::Error err = httplib::Error::Success;
  bool ok = cli.send(req, res, err);
  if (aborted) return {};
  if (status != 0 && status != 200) {
    return fail("worker_http_" + std::to_string(status), "the worker answered HTTP " + std::to_string(status));
  }
  if (!ok && status == 0) return fail("worker_unreachable", "the worker is unreachable: " + httplib::to_string(err));
  if (!saw_done) return fail("worker_stream_broken", "the worker's stream ended before [DONE]");
  return {};
}

result<std::optional<std::string>> worker_client::session_state(std::string_view app_id, std::string_view run_id) const {
  httplib::Client cli(base_url_);
  cli.set_connection_timeout(5, 0);
  cli.set_read_timeout(30, 0);
  std::string path = "/sessions/" + path_segment(app_id) + "/session-state?runId=" + path_segment(run_id);
  auto res = cli.Get(path, auth_headers(token_));
  if (!res) return fail("worker_unreachable", "the worker is unreachable: " + httplib::to_string(res.error()));
  if (res->status == 404) return std::optional<std::string>();
  if (res->status != 200) return fail("worker_http_" + std::to_string(res->status), "session state request failed");
  auto j = nlohmann::json::parse(res->body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return fail("worker_bad_reply", "the worker's session state is not JSON");
  auto it = j.find("sessionState");
  if (it == j.end() || it->is_null()) return std::optional<std::string>();
  return std::optional<std::string>(it->dump());
}

result<std::string> worker_client::detect_provider() const {
  httplib::Client cli(base_url_);
  cli.set_connection_timeout(5, 0);
  cli.set_read_timeout(30, 0);
  auto res = cli.Get("/detect-provider", auth_headers(token_));
  if (!res) return fail("worker_unreachable", "the worker is unreachable: " + httplib::to_string(res.error()));
  if (res->status != 200) return fail("worker_http_" + std::to_string(res->status), "provider detection failed");
  return res->body;
}

}  // namespace platform::web
