#include "worker_client.hpp"

#include <httplib.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "../common/json_fields.hpp"
#include "platform/api_error.hpp"
#include "platform/run_capability.hpp"
#include "platform/base64.hpp"

#include "platform/ui_stream.hpp"

// Every client sets TCP_NODELAY: cpp-httplib writes a request's headers and body separately,
// and with Nagle's algorithm the body waited for the worker's delayed ACK.
namespace platform::web {

namespace {

// What a worker's error body says (design notes' error body): its code, else
// worker_http_<status>, and its message, else empty.
struct worker_words {
  std::string code, message;
};
worker_words worker_said(int status, std::string_view body) {
  auto j = servers::parse_json_within(body);
  worker_words said{"worker_http_" + std::to_string(status), ""};
  if (j.is_object() && j.contains("error") && j["error"].is_object()) {
    if (j["error"].value("code", "") != "") said.code = j["error"]["code"].get<std::string>();
    said.message = j["error"].value("message", "");
  }
  return said;
}

httplib::Headers auth_headers(const std::string& token) {
  httplib::Headers h;
  if (!token.empty()) h.emplace("Authorization", "Bearer " + token);
  return h;
}

std::string path_segment(std::string_view s) { return httplib::detail::encode_query_param(std::string(s)); }

// One SSE request to the worker: `on_event` per event's data; false from it (or a cancel)
// ends the request without an error.
result<void> stream_sse(const std::string& base_url, httplib::Request req,
                        const std::function<bool(std::string_view)>& on_event, request_cancel* cancel) {
  httplib::Client cli(base_url);
  cli.set_tcp_nodelay(true);
  cli.set_connection_timeout(5, 0);
  cli.set_read_timeout(600, 0);  // a model may think for minutes between events
  req.set_header("Accept", "text/event-stream");
  int status = 0;
  bool saw_done = false, aborted = false;
  sse_parser parser;
  std::vector<std::string> events;
  std::string refusal;  // the body of a non-200 answer: the worker's error code
  req.response_handler = [&](const httplib::Response& r) {
    status = r.status;
    return true;
  };
  req.content_receiver = [&](const char* data, std::size_t len, std::uint64_t, std::uint64_t) {
    if (status != 200) {
      refusal.append(data, std::min(len, std::size_t{4096} - std::min(refusal.size(), std::size_t{4096})));
      return refusal.size() < 4096;
    }
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
  if (cancel && !cancel->attach(&cli)) return {};
  httplib::Response res;
  httplib::Error err = httplib::Error::Success;
  bool ok = cli.send(req, res, err);
  if (cancel) {
    cancel->detach();
    if (cancel->cancelled()) return {};
  }
  if (aborted) return {};
  if (status != 0 && status != 200) {
    auto said = worker_said(status, refusal);
    // A runtime refused for what it lacks says so in a sentence written for the person.
    if (said.code == code_of(api_error::runtime_not_ready) && !said.message.empty()) {
      return fail_relayed(said.code, said.message.substr(0, 1000));
    }
    return fail_relayed(said.code, "the worker answered HTTP " + std::to_string(status) + " (" + said.code + ")");
  }
  if (!ok && status == 0) return fail(api_error::worker_unreachable, "the worker is unreachable: " + httplib::to_string(err));
  if (!saw_done) return fail(api_error::worker_stream_broken, "the worker's stream ended before [DONE]");
  return {};
}

}  // namespace

void request_cancel::cancel() {
  std::lock_guard lock(mu_);
  cancelled_ = true;
  if (client_) client_->stop();
}

bool request_cancel::cancelled() const {
  std::lock_guard lock(mu_);
  return cancelled_;
}

bool request_cancel::attach(httplib::Client* client) {
  std::lock_guard lock(mu_);
  if (cancelled_) return false;
  client_ = client;
  return true;
}

void request_cancel::detach() {
  std::lock_guard lock(mu_);
  client_ = nullptr;
}

worker_client::worker_client(std::string base_url, std::string internal_token)
    : base_url_(std::move(base_url)), token_(std::move(internal_token)) {}

result<void> worker_client::stream_messages(std::string_view app_id, const std::string& body_json,
                                            const std::function<bool(std::string_view)>& on_event,
                                            request_cancel* cancel) const {
  httplib::Request req;
  req.method = "POST";
  req.path = "/sessions/" + path_segment(app_id) + "/messages";
  req.headers = auth_headers(token_);
  req.set_header("Content-Type", "application/json");
  req.body = body_json;
  return stream_sse(base_url_, std::move(req), on_event, cancel);
}

result<worker_client::reply> worker_client::start_agent_run(std::string_view app_id, std::string_view run_id,
                                                            const std::string& body_json) const {
  httplib::Client cli(base_url_);
  cli.set_tcp_nodelay(true);
  cli.set_connection_timeout(5, 0);
  cli.set_read_timeout(60, 0);  // the worker answers at once, after writing the source files
  std::string path = "/sessions/" + path_segment(std::string(app_id) + "__agent__" + std::string(run_id)) + "/agent-run";
  auto res = cli.Post(path, auth_headers(token_), body_json, "application/json");
  if (!res) return fail(api_error::worker_unreachable, "the worker is unreachable: " + httplib::to_string(res.error()));
  return reply{res->status, res->body};
}

result<void> worker_client::agent_run_events(std::string_view app_id, std::string_view run_id,
                                             const std::function<bool(std::string_view)>& on_event,
                                             request_cancel* cancel) const {
  httplib::Request req;
  req.method = "GET";
  req.path = "/sessions/" + path_segment(std::string(app_id) + "__agent__" + std::string(run_id)) + "/agent-run/" +
             path_segment(run_id) + "/events";
  req.headers = auth_headers(token_);
  return stream_sse(base_url_, std::move(req), on_event, cancel);
}

result<std::optional<std::string>> worker_client::provider_session_state(std::string_view app_id,
                                                                       std::string_view run_id) const {
  httplib::Client cli(base_url_);
  cli.set_tcp_nodelay(true);
  cli.set_connection_timeout(5, 0);
  cli.set_read_timeout(30, 0);
  std::string path = "/sessions/" + path_segment(app_id) + "/session-state?runId=" + path_segment(run_id);
  auto res = cli.Get(path, auth_headers(token_));
  if (!res) return fail(api_error::worker_unreachable, "the worker is unreachable: " + httplib::to_string(res.error()));
  if (res->status == 404) return std::optional<std::string>();
  if (res->status != 200) return fail_worker_http(res->status, "session state request failed");
  auto j = servers::parse_json_within(res->body);
  if (j.is_discarded() || !j.is_object()) return fail(api_error::worker_bad_reply, "the worker's session state is not JSON");
  auto it = j.find("sessionState");
  if (it == j.end() || it->is_null()) return std::optional<std::string>();
  return std::optional<std::string>(it->dump());
}

namespace {

// The worker's own error code when its body carries one (design notes' error body).
error worker_error(const httplib::Result& res, std::string_view what) {
  auto said = worker_said(res->status, res->body);
  return relayed_error(said.code, std::string(what) + " failed: the worker answered HTTP " + std::to_string(res->status));
}

}  // namespace

error worker_client::reply::refusal(std::string_view what) const {
  auto said = worker_said(status, body);
  return relayed_error(said.code, std::string(what) + ": " +
                                      (said.message.empty() ? "HTTP " + std::to_string(status) : said.message.substr(0, 300)) +
                                      " (" + said.code + ")");
}

result<std::optional<std::map<std::string, std::string>>> worker_client::source_snapshot(std::string_view app_id,
                                                                                         std::string_view capability) const {
  using files = std::map<std::string, std::string>;
  httplib::Client cli(base_url_);
  cli.set_tcp_nodelay(true);
  cli.set_connection_timeout(5, 0);
  cli.set_read_timeout(60, 0);
  auto headers = auth_headers(token_);
  headers.emplace(std::string(run_capability_header), std::string(capability));
  auto res = cli.Get("/sessions/" + path_segment(app_id) + "/source-snapshot", headers);
  if (!res) return fail(api_error::worker_unreachable, "the worker is unreachable: " + httplib::to_string(res.error()));
  if (res->status == 404) return std::optional<files>();
  if (res->status != 200) return tl::unexpected(worker_error(res, "the source snapshot"));
  auto j = servers::parse_json_within(res->body);
  if (j.is_discarded() || !j.is_object() || !j.contains("files") || !j["files"].is_object()) {
    return fail(api_error::worker_bad_reply, "the worker's source snapshot is not JSON");
  }
  files out;
  for (auto& [path, content] : j["files"].items()) {
    if (!content.is_string()) return fail(api_error::worker_bad_reply, "the worker's source snapshot holds a non-text file");
    out.emplace(path, content.get<std::string>());
  }
  return std::optional<files>(std::move(out));
}

result<void> worker_client::put_file(std::string_view app_id, std::string_view path, std::string_view content) const {
  httplib::Client cli(base_url_);
  cli.set_tcp_nodelay(true);
  cli.set_connection_timeout(5, 0);
  cli.set_read_timeout(30, 0);
  std::string body = nlohmann::json({{"path", path}, {"content", content}}).dump();
  auto res = cli.Put("/sessions/" + path_segment(app_id) + "/files", auth_headers(token_), body, "application/json");
  if (!res) return fail(api_error::worker_unreachable, "the worker is unreachable: " + httplib::to_string(res.error()));
  if (res->status != 200) return tl::unexpected(worker_error(res, "writing the file"));
  return {};
}

result<void> worker_client::put_source(std::string_view app_id, const std::map<std::string, std::string>& files) const {
  httplib::Client cli(base_url_);
  cli.set_tcp_nodelay(true);
  cli.set_connection_timeout(5, 0);
  cli.set_read_timeout(60, 0);
  nlohmann::json body = {{"files", files}};
  auto res = cli.Put("/sessions/" + path_segment(app_id) + "/source", auth_headers(token_),
                     compact_json(body), "application/json");
  if (!res) return fail(api_error::worker_unreachable, "the worker is unreachable: " + httplib::to_string(res.error()));
  if (res->status != 200) return tl::unexpected(worker_error(res, "writing the app's source"));
  return {};
}

worker_availability worker_client::health() const {
  httplib::Client cli(base_url_);
  cli.set_tcp_nodelay(true);
  cli.set_connection_timeout(1, 0);
  cli.set_read_timeout(2, 0);
  auto res = cli.Get("/health");
  if (!res || res->status != 200) return worker_availability::down;
  return availability_from_health(res->body);
}

result<std::string> worker_client::detect_provider(bool fresh) const {
  httplib::Client cli(base_url_);
  cli.set_tcp_nodelay(true);
  cli.set_connection_timeout(5, 0);
  cli.set_read_timeout(30, 0);
  auto res = cli.Get(fresh ? "/detect-provider?fresh=1" : "/detect-provider", auth_headers(token_));
  if (!res) return fail(api_error::worker_unreachable, "the worker is unreachable: " + httplib::to_string(res.error()));
  if (res->status != 200) return fail_worker_http(res->status, "provider detection failed");
  return res->body;
}

result<std::optional<worker_client::preview_build>> worker_client::preview_artifact(std::string_view app_id, std::string_view capability) const {
  httplib::Client cli(base_url_);
  cli.set_tcp_nodelay(true);
  cli.set_connection_timeout(5, 0);
  cli.set_read_timeout(60, 0);
  auto headers = auth_headers(token_);
  headers.emplace(std::string(run_capability_header), std::string(capability));
  auto res = cli.Get("/sessions/" + path_segment(app_id) + "/preview-artifact", headers);
  if (!res) return fail(api_error::worker_unreachable, "the worker is unreachable: " + httplib::to_string(res.error()));
  if (res->status == 404) return std::optional<preview_build>();
  if (res->status != 200) return tl::unexpected(worker_error(res, "the preview build"));
  auto j = servers::parse_json_within(res->body);
  if (!j.is_object() || !j.contains("files") || !j["files"].is_array() || j.value("digest", "").rfind("sha256:", 0) != 0) {
    return fail(api_error::worker_bad_reply, "the worker's preview build is not the expected JSON");
  }
  preview_build out{j["digest"].get<std::string>(), {}};
  for (const auto& f : j["files"]) {
    auto bytes = f.is_object() && f.contains("base64") && f["base64"].is_string() ? base64_decode(f["base64"].get<std::string>())
                                                                                  : std::nullopt;
    if (!bytes || !f.contains("path") || !f["path"].is_string()) return fail(api_error::worker_bad_reply, "a preview file is malformed");
    out.files.push_back({f["path"].get<std::string>(), std::move(*bytes)});
  }
  return std::optional<preview_build>(std::move(out));
}

result<void> worker_client::put_provider_key(std::string_view name, std::string_view value) const {
  httplib::Client cli(base_url_);
  cli.set_tcp_nodelay(true);
  cli.set_connection_timeout(5, 0);
  cli.set_read_timeout(10, 0);
  std::string body = nlohmann::json({{"value", value}}).dump();
  auto res = cli.Put("/provider-keys/" + path_segment(name), auth_headers(token_), body, "application/json");
  if (!res) return fail(api_error::worker_unreachable, "the worker is unreachable: " + httplib::to_string(res.error()));
  if (res->status == 200) return {};
  // The worker's refusal of the input says what to fix (it never quotes the key).
  auto j = servers::parse_json_within(res->body);
  if (res->status == 400 && j.is_object() && j.contains("error") && j["error"].is_object()) {
    return fail_relayed(j["error"].value("code", "invalid_key"), j["error"].value("message", "the worker refused the key"));
  }
  return tl::unexpected(worker_error(res, "saving the key"));
}

result<std::optional<std::string>> worker_client::agent_run_status(std::string_view app_id, std::string_view run_id) const {
  httplib::Client cli(base_url_);
  cli.set_tcp_nodelay(true);
  cli.set_connection_timeout(5, 0);
  cli.set_read_timeout(10, 0);
  std::string path = "/sessions/" + path_segment(std::string(app_id) + "__agent__" + std::string(run_id)) + "/agent-run/" +
                     path_segment(run_id);
  auto res = cli.Get(path, auth_headers(token_));
  if (!res) return fail(api_error::worker_unreachable, "the worker is unreachable: " + httplib::to_string(res.error()));
  if (res->status == 404) return std::optional<std::string>();
  if (res->status != 200) return fail_worker_http(res->status, "the agent run status request failed");
  auto j = servers::parse_json_within(res->body);
  if (!j.is_object() || !j.contains("status") || !j["status"].is_string()) {
    return fail(api_error::worker_bad_reply, "the worker's agent run status is not JSON");
  }
  return std::optional<std::string>(j["status"].get<std::string>());
}

result<worker_client::stop_answer> worker_client::stop_agent_run(std::string_view app_id, std::string_view run_id) const {
  httplib::Client cli(base_url_);
  cli.set_tcp_nodelay(true);
  cli.set_connection_timeout(5, 0);
  cli.set_read_timeout(10, 0);
  std::string path = "/sessions/" + path_segment(std::string(app_id) + "__agent__" + std::string(run_id)) + "/agent-run/" +
                     path_segment(run_id) + "/stop";
  auto res = cli.Post(path, auth_headers(token_), "", "application/json");
  if (!res) return fail(api_error::worker_unreachable, "the worker is unreachable: " + httplib::to_string(res.error()));
  switch (res->status) {
    case 202: return stop_answer::stopping;
    case 409: return stop_answer::ended;
    case 404: return stop_answer::not_held;
    default: return fail_worker_http(res->status, "the worker refused to stop the run");
  }
}

result<worker_client::stop_answer> worker_client::stop_turn(std::string_view app_id, std::string_view run_id) const {
  httplib::Client cli(base_url_);
  cli.set_tcp_nodelay(true);
  cli.set_connection_timeout(5, 0);
  cli.set_read_timeout(10, 0);
  std::string path = "/sessions/" + path_segment(app_id) + "/turns/" + path_segment(run_id) + "/stop";
  auto res = cli.Post(path, auth_headers(token_), "", "application/json");
  if (!res) return fail(api_error::worker_unreachable, "the worker is unreachable: " + httplib::to_string(res.error()));
  if (res->status == 404) return stop_answer::not_held;
  if (res->status != 200) return fail_worker_http(res->status, "the worker refused to stop the turn");
  auto j = servers::parse_json_within(res->body);
  return j.is_object() && j.value("stopped", false) ? stop_answer::stopping : stop_answer::ended;
}

result<void> worker_client::forget_app(std::string_view app_id) const {
  httplib::Client cli(base_url_);
  cli.set_tcp_nodelay(true);
  cli.set_connection_timeout(2, 0);  // a worker that is down must not hold the delete long
  cli.set_read_timeout(20, 0);       // it waits up to 5 s for the app's turns and runs to end
  auto res = cli.Delete("/sessions/" + path_segment(app_id), auth_headers(token_));
  if (!res) return fail(api_error::worker_unreachable, "the worker is unreachable: " + httplib::to_string(res.error()));
  if (res->status != 200) return tl::unexpected(worker_error(res, "removing the app's workspace"));
  return {};
}

result<std::string> worker_client::opencode_models() const {
  httplib::Client cli(base_url_);
  cli.set_tcp_nodelay(true);
  cli.set_connection_timeout(5, 0);
  cli.set_read_timeout(90, 0);  // a first discovery runs `opencode models --verbose`
  auto res = cli.Get("/opencode/models", auth_headers(token_));
  if (!res) return fail(api_error::worker_unreachable, "the worker is unreachable: " + httplib::to_string(res.error()));
  if (res->status != 200) return fail_worker_http(res->status, "runtime-c's models are not available");
  return res->body;
}

result<std::string> worker_client::runtime_readiness() const {
  httplib::Client cli(base_url_);
  cli.set_tcp_nodelay(true);
  cli.set_connection_timeout(1, 0);
  cli.set_read_timeout(2, 0);
  auto res = cli.Get("/runtime-readiness", auth_headers(token_));
  if (!res) return fail(api_error::worker_unreachable, "the worker is unreachable: " + httplib::to_string(res.error()));
  if (res->status != 200) return fail_worker_http(res->status, "the worker's runtime readiness is not available");
  return res->body;
}

}  // namespace platform::web
