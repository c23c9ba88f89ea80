#include "agent_runner.hpp"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "platform/api_error.hpp"
#include "platform/compact_json.hpp"
#include "platform/budget.hpp"
#include "platform/user_stop.hpp"
#include "platform/ui_stream.hpp"
#include "platform/usage.hpp"
#include "app_tools.hpp"
#include "granted_turn.hpp"
#include "runtime_turn.hpp"
#include "web_internal.hpp"
#include "worker_http.hpp"
#include "worker_stats.hpp"
#include "turn_settings.hpp"

namespace platform::worker {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::size_t max_source_bytes = 32u << 20;
constexpr std::size_t max_source_files = 5000;

struct run_spec {
  std::string key;  // {appId}__agent__{runId}
  std::string workspace_id, app_id, run_id;
  std::string prompt, system_prompt;
  std::string callback_url;
  std::string run_capability;
  std::vector<std::string> allowed_tools;
  std::map<std::string, std::string> source_files;
  std::vector<std::string> settings_args;
  std::string protocol_params_json = "{}";
  std::string runtime_id;
  std::string model;
  std::string agent_config_json = "{}";  // {id, tools, dataCollections}: the approved agent
};

// App agents get only their own kinds of tools, whatever the request asks for: the web search
// and fetch builtins and their broker servers. Never shell or file writes.
bool app_agent_tool(std::string_view name) {
  return name == "WebSearch" || name == "WebFetch" || name.rfind("mcp__app_tools__", 0) == 0 ||
         name.rfind("mcp__app_data__", 0) == 0;
}

// A relative path that stays inside the run's workspace.
bool safe_relative_path(const std::string& p) {
  if (p.empty() || p.size() > 1024 || p.front() == '/' || p.find('\0') != std::string::npos) return false;
  for (const auto& part : fs::path(p)) {
    if (part == ".." || part == ".") return false;
  }
  return true;
}

// The callback carries the internal token, so it goes only to the web server: PLATFORM_WEB_URL
// when set, else a loopback origin (local development).
bool allowed_callback(const config& cfg, const std::string& url) {
  constexpr std::string_view path = "/api/internal/agent-run-complete";
  if (!cfg.web_url.empty()) return url == cfg.web_url + std::string(path);
  for (std::string_view origin : {"http://127.0.0.1:", "http://localhost:", "http://[::1]:"}) {
    if (url.rfind(origin, 0) != 0) continue;
    std::string_view rest = std::string_view(url).substr(origin.size());
    auto slash = rest.find('/');
    if (slash == 0 || slash == std::string_view::npos) return false;
    for (char c : rest.substr(0, slash)) {
      if (c < '0' || c > '9') return false;
    }
    return rest.substr(slash) == path;
  }
  return false;
}

tl::expected<run_spec, error> parse_run(const config& cfg, const std::string& key, const json& body) {
  run_spec r;
  r.key = key;
  r.run_id = string_field(body, "runId");
  r.app_id = string_field(body, "appId");
  r.workspace_id = string_field(body, "workspaceId");
  r.prompt = string_field(body, "prompt");
  r.system_prompt = string_field(body, "systemPrompt");
  r.callback_url = string_field(body, "callbackUrl");
  r.run_capability = string_field(body, "runCapability");
  if (r.run_id.empty() || r.app_id.empty() || r.workspace_id.empty() || r.prompt.empty()) {
    return fail(api_error::invalid_body, "runId, appId, workspaceId and prompt are required strings");
  }
  if (!valid_run_capability_field(body)) {
    return fail(api_error::invalid_body, "runCapability is required: the web's capability of this run");
  }
  if (key != r.app_id + "__agent__" + r.run_id) {
    return fail(api_error::invalid_body, "the path must be /sessions/{appId}__agent__{runId}/agent-run for this body");
  }
  if (!r.callback_url.empty() && !allowed_callback(cfg, r.callback_url)) {
    return fail(api_error::invalid_body, "callbackUrl must be the web server's /api/internal/agent-run-complete");
  }
  if (auto it = body.find("allowedTools"); it != body.end()) {
    if (!it->is_array()) return fail(api_error::invalid_body, "allowedTools must be an array of tool names");
    for (const auto& t : *it) {
      if (!t.is_string()) return fail(api_error::invalid_body, "allowedTools must be an array of tool names");
      if (app_agent_tool(t.get<std::string>())) r.allowed_tools.push_back(t.get<std::string>());
    }
  }
  if (auto it = body.find("agentConfig"); it != body.end()) {
    if (!it->is_object()) return fail(api_error::invalid_body, "agentConfig must be an object {id, tools, dataCollections}");
    r.agent_config_json = compact_json(*it);
  }
  if (auto it = body.find("sourceFiles"); it != body.end()) {
    if (!it->is_object() || it->size() > max_source_files) {
      return fail(api_error::invalid_body, "sourceFiles must be an object of at most 5000 path → content entries");
    }
    std::size_t total = 0;
    for (auto f = it->begin(); f != it->end(); ++f) {
      if (!f->is_string() || !safe_relative_path(f.key())) {
        return fail(api_error::invalid_body, "sourceFiles: \"" + f.key().substr(0, 200) + "\" is not a relative path with text content");
      }
      total += f->get_ref<const std::string&>().size();
      if (total > max_source_bytes) return fail(api_error::invalid_body, "sourceFiles exceed 32 MiB");
      r.source_files[f.key()] = f->get<std::string>();
    }
  }
  return r;
}

// The run's own workspace, its source files written in.
tl::expected<std::string, error> make_workspace(const run_spec& r) {
  std::string dir = (fs::temp_directory_path() / "platform-agent-XXXXXX").string();
  if (!mkdtemp(dir.data())) return fail(api_error::workspace_unavailable, "cannot create the agent run's workspace");
  std::error_code ec;
  for (const auto& [path, content] : r.source_files) {
    fs::path p = fs::path(dir) / path;
    fs::create_directories(p.parent_path(), ec);
    std::ofstream out(p, std::ios::binary);
    out << content;
    if (!out) {
      fs::remove_all(dir, ec);
      return fail(api_error::workspace_unavailable, "cannot write the agent run's source files");
    }
  }
  return dir;
}

struct run_outcome {
  agent_run_state state = agent_run_state::failed;
  json result = nullptr;
  json error = nullptr;
  json usage = nullptr;
  json transcript = json::array();
  std::string stop_reason;  // "user" or "budget" when a stop ended it
};

// The callback must fit the web server's body limit (8 MiB by default) or the run would never
// complete there: oversized messages are replaced by a marker first, then the middle of the
// transcript goes, keeping how the run started and how it ended.
constexpr std::size_t max_callback_bytes = 4u << 20;
constexpr std::size_t max_message_bytes = 64u << 10;

std::string callback_text(json body) {
  std::string text = compact_json(body);
  if (text.size() <= max_callback_bytes) return text;
  json& t = body["transcript"];
  for (auto& m : t) {
    if (compact_json(m).size() > max_message_bytes) {
      m = {{"type", m.value("type", "unknown")}, {"truncated", true}};
    }
  }
  body["transcriptTruncated"] = true;
  while (t.size() > 2) {
    text = compact_json(body);
    if (text.size() <= max_callback_bytes) return text;
    t.erase(t.begin() + static_cast<std::ptrdiff_t>(t.size() / 2));
  }
  return compact_json(body);
}

// Bounded retries: the web server may be restarting. The body carries the transcript, never
// the prompt or the source files.
void post_callback(const config& cfg, const run_spec& r, const run_outcome& o) {
  if (r.callback_url.empty()) return;
  std::string url = r.callback_url;
  auto scheme_end = url.find("://");
  auto path_start = url.find('/', scheme_end + 3);
  httplib::Client client(url.substr(0, path_start));
  client.set_tcp_nodelay(true);
  client.set_connection_timeout(5, 0);
  client.set_read_timeout(30, 0);
  httplib::Headers headers;
  if (!cfg.internal_token.empty()) headers.emplace("Authorization", "Bearer " + cfg.internal_token);
  headers.emplace(std::string(run_capability_header), r.run_capability);
  json body = {{"workspaceId", r.workspace_id}, {"appId", r.app_id}, {"runId", r.run_id},
               {"status", o.state == agent_run_state::completed ? "completed" : "failed"},
               {"result", o.result}, {"error", o.error}, {"usage", o.usage}, {"transcript", o.transcript}};
  if (!o.stop_reason.empty()) body["stopReason"] = o.stop_reason;
  std::string text = callback_text(std::move(body));
  for (int attempt = 0; attempt < 4; ++attempt) {
    auto res = client.Post(url.substr(path_start), headers, text, "application/json");
    if (res && res->status < 500) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(250 << attempt));
  }
  if (cfg.trace) std::fprintf(stderr, "worker: callback failed run=%s\n", r.run_id.c_str());
}

// The outcome, from the result line and what the runtime did.
void take_result(const json& m, run_outcome& o) {
  bool is_error = m.value("is_error", false) || m.value("subtype", "success") != "success";
  o.state = is_error ? agent_run_state::failed : agent_run_state::completed;
  if (auto it = m.find("result"); it != m.end() && it->is_string()) {
    (is_error ? o.error : o.result) = *it;
  }
  if (auto it = m.find("platform_turn_usage"); it != m.end()) o.usage = *it;
}

// The origin of the callback URL (already checked to be the web server's): where the run's
// tools call the internal routes too.
std::string origin_of(const std::string& url) {
  auto scheme_end = url.find("://");
  if (scheme_end == std::string::npos) return {};
  return url.substr(0, url.find('/', scheme_end + 3));
}

// The run's broker grant: its custom tools, report_tool_call_failed and its data tools.
result<std::unique_ptr<broker_lease>> agent_grant(const config& cfg, broker& brk, const run_spec& r,
                                                  const std::string& workspace) {
  auto ctx = std::make_shared<turn_context>();
  ctx->k = turn_context::kind::agent;
  ctx->workspace_id = r.workspace_id;
  ctx->app_id = r.app_id;
  ctx->run_id = r.run_id;
  ctx->run_capability = r.run_capability;
  ctx->runtime_id = r.runtime_id;
  ctx->workspace_dir = workspace;
  ctx->web_origin = web_origin(cfg, origin_of(r.callback_url));
  ctx->agent_config_json = r.agent_config_json;
  return brk.open(std::move(ctx), app_agent_tools(cfg, r.agent_config_json));
}

// The run's spend so far, to the web server, which keeps it as the run's reservation and says
// whether a budget stops the run (docs/budgets.md). A web server that cannot be asked does
// not stop the run: its recorded usage still counts when it ends.
void report_spend(const config& cfg, const run_spec& r, const std::string& usage_json, agent_run& run) {
  std::string body = R"({"workspaceId":)" + json(r.workspace_id).dump() + R"(,"appId":)" + json(r.app_id).dump() +
                     R"(,"runId":)" + json(r.run_id).dump() + R"(,"usage":)" + usage_json + "}";
  auto reply = post_internal(cfg, web_origin(cfg, origin_of(r.callback_url)), "/api/internal/agent-run-spend",
                             r.run_capability, body, 10);
  if (!reply || reply->status != 200) {
    if (cfg.trace) std::fprintf(stderr, "worker: spend report run=%s not answered\n", r.run_id.c_str());
    return;
  }
  json said = servers::parse_json_within(reply->body);
  if (!said.is_object() || !said.value("stop", false)) return;
  run.request_stop(said.value("stopReason", std::string(budget_stop_code)), said.value("message", std::string("Stopped: a budget was reached.")));
}

void run_in_background(const config& cfg, broker& brk, std::shared_ptr<agent_run> run, run_spec r, std::string workspace,
                       agent_run_table& table) {
  run_outcome o;
  turn_request t;
  t.runtime_id = r.runtime_id;
  t.protocol_params_json = r.protocol_params_json;
  t.app_id = r.app_id;
  t.run_id = r.run_id;
  t.prompt = r.prompt;
  t.system_prompt = r.system_prompt;
  t.cwd = workspace;
  t.allowed_tools = r.allowed_tools;
  t.settings_args = r.settings_args;
  t.model = r.model;
  auto lease = agent_grant(cfg, brk, r, workspace);
  std::unique_ptr<granted_turn> turn;
  if (lease) {
    // The runtime may run the granted broker tools without asking; nothing else beyond its builtins.
    if (!(*lease)->access().servers.empty()) t.broker = (*lease)->access();
    for (const auto& name : (*lease)->access().tools) t.allowed_tools.push_back(name);
    auto started = start_runtime_turn(cfg, t);
    if (started) turn = std::make_unique<granted_turn>(std::move(*started), std::move(*lease));
    else o.error = "The runtime could not start: " + started.error().message;
  } else {
    o.error = "The run's tools could not be granted: " + lease.error().message;
  }
  if (turn) {
    granted_turn* live = turn.get();
    run->set_interrupt([live] { live->interrupt(); });
    std::string line;
    std::optional<std::string> worker_error;
    while (turn->next(line)) {
      if (line.rfind(R"({"type":"platform_step_usage")", 0) == 0) {
        auto at = line.find(R"("usage":)");
        if (at != std::string::npos) report_spend(cfg, r, line.substr(at + 8, line.size() - at - 9), *run);
        continue;  // for the budget only: not the run's stream nor its transcript
      }
      run->append(line);
      if (line.find("\"stream_event\"") != std::string::npos) continue;  // deltas: not transcript
      json m = servers::parse_json_within(line);
      if (!m.is_object()) continue;
      std::string type = m.value("type", "");
      if (type == "result") take_result(m, o);
      if (type == "error" && m.contains("error") && m["error"].is_string()) worker_error = m["error"].get<std::string>();
      o.transcript.push_back(std::move(m));
    }
    run->set_interrupt(nullptr);
    int code = turn->exit_code();
    if (worker_error) {
      o.state = agent_run_state::failed;
      o.error = *worker_error;
    }
    if (run->stop_requested() && !turn->result_seen()) {
      auto [code, message] = run->stop_reason();
      o.state = agent_run_state::failed;
      o.error = message;
      o.stop_reason = code;
      run->append(json({{"type", "error"}, {"error", o.error}}).dump());
    } else if (!turn->result_seen()) {
      o.state = agent_run_state::failed;
      o.error = "The runtime exited with code " + std::to_string(code) + " before finishing the run.";
      run->append(json({{"type", "error"}, {"error", o.error}}).dump());
    }
    turn.reset();
  }
  std::error_code ec;
  fs::remove_all(workspace, ec);
  run->finish(o.state);
  table.finished(run->key(), agent_run_table::clock::now());
  worker_stats.agent_runs_ended.add(r.runtime_id, o.state == agent_run_state::completed ? servers::run_outcome::completed
                                                  : o.stop_reason.empty()               ? servers::run_outcome::failed
                                                                                        : servers::run_outcome::stopped);
  post_callback(cfg, r, o);
}

}  // namespace

void start_agent_run(const config& cfg, worker_registry& registry, broker& brk, agent_run_table& table,
                     std::atomic<std::uint64_t>& started, const std::string& key, const json& body,
                     httplib::Response& res) {
  auto spec = parse_run(cfg, key, body);
  if (!spec) return send(res, spec.error());
  auto snapshot = registry.for_body(body);
  if (!snapshot) return send(res, snapshot.error());
  auto settings = settings_from_body(**snapshot, body);
  if (!settings) return send(res, settings.error());
  spec->runtime_id = settings->runtime_id;
  spec->protocol_params_json = settings->protocol_params_json;
  spec->settings_args = settings->args;
  spec->model = settings->runtime_model;
  auto run = table.admit(key, spec->run_id, agent_run_table::clock::now());
  if (!run) return send(res, run.error());
  auto workspace = make_workspace(*spec);
  if (!workspace) {
    (*run)->finish(agent_run_state::failed);
    table.finished(key, agent_run_table::clock::now());
    return send(res, workspace.error());
  }
  started.fetch_add(1);
  worker_stats.agent_runs_started.add(spec->runtime_id);
  if (cfg.trace) std::fprintf(stderr, "worker: agent run start app=%s run=%s\n", spec->app_id.c_str(), spec->run_id.c_str());
  std::thread(run_in_background, std::cref(cfg), std::ref(brk), *run, std::move(*spec), std::move(*workspace), std::ref(table)).detach();
  res.status = 202;
  res.set_content(json({{"status", "started"}, {"runId", (*run)->run_id()}}).dump(), "application/json");
}

void stop_agent_run(agent_run_table& table, const std::string& key, const std::string& run_id, httplib::Response& res) {
  auto run = table.find(key, agent_run_table::clock::now());
  if (!run || run->run_id() != run_id) return send(res, api_error::not_found, "no such agent run on this worker");
  if (!run->request_stop()) return send(res, api_error::not_running, "the run has ended already");
  // Answered once the runtime is gone: a stop's reply means the spending stopped.
  run->wait_released(std::chrono::steady_clock::now() + std::chrono::seconds(5));
  res.status = 202;
  res.set_content(json({{"runId", run_id}, {"status", "stopping"}}).dump(), "application/json");
}

void agent_run_status(agent_run_table& table, const std::string& key, const std::string& run_id, httplib::Response& res) {
  auto run = table.find(key, agent_run_table::clock::now());
  if (!run || run->run_id() != run_id) return send(res, api_error::not_found, "no such agent run on this worker");
  auto s = run->state();
  std::string_view status = s == agent_run_state::running ? "running" : s == agent_run_state::completed ? "completed" : "failed";
  res.set_content(json({{"runId", run_id}, {"status", status}}).dump(), "application/json");
}

void follow_agent_run(agent_run_table& table, const std::string& key, const std::string& run_id,
                      std::chrono::milliseconds heartbeat, httplib::Response& res) {
  auto run = table.find(key, agent_run_table::clock::now());
  if (!run || run->run_id() != run_id) return send(res, api_error::not_found, "no such agent run on this worker");
  auto cursor = std::make_shared<std::size_t>(0);
  res.set_header("Cache-Control", "no-cache");
  res.set_chunked_content_provider("text/event-stream", [run, cursor, heartbeat](std::size_t, httplib::DataSink& sink) {
    auto r = run->wait_from(*cursor, heartbeat);
    std::string out;
    for (const auto& m : r.messages) append_sse_data(out, m);
    *cursor = r.next;
    if (r.finished) out += sse_done_event;
    if (out.empty()) out = sse_heartbeat;
    if (!sink.write(out.data(), out.size())) return false;  // the viewer left; the run goes on
    if (r.finished) sink.done();
    return true;
  });
}

}  // namespace platform::worker
