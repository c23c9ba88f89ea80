#include "runtime_a.hpp"

#include <stdlib.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "../common/json_fields.hpp"
#include "file_text.hpp"
#include "agent_sandbox.hpp"
#include "app_workspace.hpp"
#include "claude_credential.hpp"
#include "platform/api_error.hpp"
#include "platform/runtime_registry.hpp"
#include "platform/worker_message.hpp"
#include <utility>

namespace platform::worker {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// ~/.claude/projects/<key>: the realpath of cwd with every non-alphanumeric character as '-'.
std::string project_key(const std::string& cwd) {
  std::string key = fs::weakly_canonical(cwd).string();
  for (auto& c : key) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '-';
  }
  return key;
}

bool safe_claude_session_id(const std::string& id) {
  if (id.empty() || id.size() > 128) return false;
  for (char c : id) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') return false;
  }
  return true;
}

// The broker servers in Claude Code's --mcp-config form, in the turn's temp HOME (0600): the
// token stays off argv, where any local user could read it.
result<std::string> write_mcp_config(const std::string& home, const broker_access& broker, const std::string& base_url) {
  json servers = json::object();
  for (const auto& name : broker.servers) {
    servers[name] = {{"type", "http"},
                     {"url", base_url + "/mcp/" + name},
                     {"headers", {{"Authorization", "Bearer " + broker.token}}}};
  }
  std::string path = home + "/platform-mcp.json";
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << json({{"mcpServers", servers}}).dump();
  out.close();
  std::error_code ec;
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write, ec);
  if (!out || ec) return fail(api_error::spawn_failed, "cannot write the runtime's MCP configuration");
  return path;
}

constexpr const char* approval_hook_id = "platform_approval_stop";

}  // namespace

result<std::unique_ptr<runtime_turn>> runtime_a_turn::start(const config& cfg, const turn_request& req) {
  std::unique_ptr<runtime_a_turn> t(new runtime_a_turn());
  std::error_code ec;
  t->cwd_ = req.cwd.empty() ? app_workspace_dir(cfg, req.app_id) : req.cwd;
  fs::create_directories(t->cwd_, ec);
  if (ec) return fail(api_error::workspace_unavailable, "cannot create the app workspace: " + ec.message());
  // Its own provider's credential only: other providers' keys never reach this process. In a
  // jail it holds a placeholder, which the provider door swaps for the real one on the way out.
  auto credential = claude_credential_for_turn(cfg);
  jail_plan plan;
  plan.app_id = req.app_id;
  plan.workspace = t->cwd_;
  plan.node_modules = req.app_agent() ? std::string() : jail_node_modules(cfg, t->cwd_);
  plan.broker = req.broker.has_value();
  plan.internet = true;  // WebFetch and what the shell fetches, through the guard
  std::string upstream = "https://api.anthropic.com";
  std::erase_if(credential.env, [&](const std::string& e) {
    if (!e.starts_with("ANTHROPIC_BASE_URL=")) return false;
    upstream = e.substr(std::string_view("ANTHROPIC_BASE_URL=").size());
    return true;
  });
  plan.provider = provider_door_plan{upstream, credential.fd3.value_or("")};
  auto jail = cfg.sandbox->open(plan);
  if (!jail) return tl::unexpected(jail.error());
  t->jail_ = std::move(*jail);
  t->home_ = t->jail_->home();

  std::vector<std::string> args = req.settings_args;
  args.push_back("--strict-mcp-config");
  if (req.broker) {
    auto file = write_mcp_config(t->home_, *req.broker, t->jail_->broker_url());
    if (!file) return tl::unexpected(file.error());
    args.push_back("--mcp-config=" + *file);
  }
  if (!req.app_agent()) {
    std::string allowed = "Bash,Edit,Write,Read,Glob,Grep,WebFetch,WebSearch";
    if (req.broker) allowed += ",mcp__platform";
    args.insert(args.end(), {"--setting-sources=", "--permission-mode=acceptEdits", "--allowedTools=" + allowed});
  } else {
    // --tools is what exists (built-ins only; none when empty), --allowedTools what runs
    // without asking (MCP tools included). Nothing can ask here, so the rest is denied.
    std::string builtins, allowed;
    for (const auto& name : req.allowed_tools) {
      allowed += (allowed.empty() ? "" : ",") + name;
      if (name.rfind("mcp__", 0) != 0) builtins += (builtins.empty() ? "" : ",") + name;
    }
    args.insert(args.end(), {"--setting-sources=", "--permission-mode=default", "--tools=" + builtins,
                             "--allowedTools=" + allowed});
  }
  if (req.restore && req.restore->runtime_id == "runtime-a" && safe_claude_session_id(req.restore->session_id) &&
      !req.restore->data.empty()) {
    fs::path dir = fs::path(t->home_) / ".claude/projects" / project_key(t->cwd_);
    fs::create_directories(dir, ec);
    std::ofstream(dir / (req.restore->session_id + ".jsonl"), std::ios::binary) << req.restore->data;
    args.push_back("--resume=" + req.restore->session_id);
  }
  process_spec spec{cfg.claude_path, args, {}, t->cwd_};
  spec.env = {"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8",
              "CLAUDE_CONFIG_DIR=" + t->home_ + "/.claude", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
              "DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_ENTRYPOINT=sdk-ts",
              // MCP tools go to the model directly instead of behind ToolSearch.
              "ENABLE_TOOL_SEARCH=false"};
  // The credential on fd 3, not in the environment its tools inherit.
  spec.env.insert(spec.env.end(), credential.env.begin(), credential.env.end());
  spec.env.push_back("ANTHROPIC_BASE_URL=" + t->jail_->provider_url());
  if (credential.fd3) spec.fd3_input = t->jail_->provider_credential();
  auto jailed = t->jail_->wrap(std::move(spec));
  if (!jailed) return tl::unexpected(jailed.error());
  t->mark_spawn();
  auto proc = child_process::spawn(*jailed);
  if (!proc) return tl::unexpected(proc.error());
  t->proc_ = std::move(*proc);
  t->set_interrupt_group(t->proc_->pid());

  usage_context uc;
  uc.model = req.model;
  uc.pricing = builtin_runtime_registry().pricing();
  auto acc = make_usage_accumulator("runtime-a", std::move(uc));
  if (acc) t->usage_ = std::move(*acc);

  json init = {{"request_id", "init-1"}, {"type", "control_request"},
               {"request", {{"subtype", "initialize"}, {"systemPrompt", req.system_prompt}}}};
  if (!req.app_agent()) {
    // The CLI asks before it goes on after an approval card (next()): answered "stop", the turn
    // ends there, with no further model request and the session file complete.
    init["request"]["hooks"] = {
        {"PostToolUse",
         json::array({{{"matcher", "mcp__platform__present_plan|mcp__platform__present_agents"},
                       {"hookCallbackIds", json::array({approval_hook_id})}}})}};
  }
  json user = {{"type", "user"}, {"session_id", ""}, {"parent_tool_use_id", nullptr},
               {"message", {{"role", "user"}, {"content", json::array({{{"type", "text"}, {"text", req.prompt}}})}}}};
  auto w = t->proc_->write_stdin(init.dump() + "\n" + user.dump() + "\n");
  if (!w) return tl::unexpected(w.error());
  return t;
}

runtime_a_turn::~runtime_a_turn() {
  proc_.reset();
  jail_.reset();  // its HOME with it
}

// The CLI does not keep key order (a result line may start with "duration_api_ms"), so lines
// that may matter are parsed; the cheap substring test only skips the parse for the rest.
bool runtime_a_turn::next(std::string& line) {
  if (!step_usage_.empty() && !stopped_) {
    line = std::exchange(step_usage_, std::string());
    return true;
  }
  while (!stopped_ && proc_->read_line(line)) {
    if (line.empty() || line.front() != '{') continue;
    std::optional<run_usage> turn_usage;
    if (usage_) turn_usage = usage_->feed_line(line);
    if (auto so_far = usage_ ? usage_->progress() : std::nullopt) {
      step_usage_.clear();
      worker_message::step_usage(step_usage_, *so_far);
      step_usage_.pop_back();  // lines are returned without their newline
    }
    if (auto at = line.find("\"tool_use_id\":\""); at != std::string::npos && line.find("\"tool_result\"") != std::string::npos) {
      auto from = at + 15;
      auto to = line.find('"', from);
      if (to != std::string::npos && to - from <= 256) last_tool_result_id_ = line.substr(from, to - from);
    }
    bool maybe_result = line.find("\"result\"") != std::string::npos;
    bool maybe_control = line.find("\"control_") != std::string::npos;
    bool maybe_init = session_id_.empty() && line.find("\"init\"") != std::string::npos;
    if (!maybe_result && !maybe_control && !maybe_init) return true;
    json m = servers::parse_json_within(line);
    std::string type = m.is_object() ? m.value("type", "") : "";
    if (type == "control_request") {
      answer_control_request(m);
      continue;
    }
    if (type.rfind("control_", 0) == 0) continue;  // answers to our own requests
    if (type == "system" && m.value("subtype", "") == "init") session_id_ = m.value("session_id", "");
    if (type == "result") {
      result_seen_ = true;
      session_id_ = m.value("session_id", session_id_);
      // One turn per process: the CLI exits when stdin closes after its result.
      proc_->close_stdin();
      if (turn_usage) worker_message::add_turn_usage(line, *turn_usage);
    }
    return true;
  }
  return false;
}

// The CLI's requests to its host. The approval hook stops the turn after a card that awaits
// approval (present_agents that needs changes goes on); anything else is answered with an
// error so the CLI never waits for us.
void runtime_a_turn::answer_control_request(const json& m) {
  const json& request = m.contains("request") ? m["request"] : json::object();
  json response;
  if (request.value("subtype", "") == "hook_callback" && request.value("callback_id", "") == approval_hook_id) {
    const json& input = request.contains("input") ? request["input"] : json::object();
    bool card = input.contains("tool_response") && input["tool_response"].dump().find("awaiting_approval") != std::string::npos;
    json answer = card ? json{{"continue", false}, {"stopReason", "approval_stop"}} : json::object();
    hook_stopped_ = hook_stopped_ || card;
    response = {{"subtype", "success"}, {"request_id", m.value("request_id", "")}, {"response", answer}};
  } else {
    response = {{"subtype", "error"}, {"request_id", m.value("request_id", "")}, {"error", "not supported by this host"}};
  }
  (void)proc_->write_stdin(json{{"type", "control_response"}, {"response", response}}.dump() + "\n");
}

std::optional<provider_session_state> runtime_a_turn::session() const {
  if (!safe_claude_session_id(session_id_)) return std::nullopt;
  fs::path file = fs::path(home_) / ".claude/projects" / project_key(cwd_) / (session_id_ + ".jsonl");
  std::error_code ec;
  if (!fs::exists(file, ec)) return std::nullopt;
  return provider_session_state{"runtime-a", session_id_, read_whole_file(file)};
}

int runtime_a_turn::exit_code() { return stopped_ ? 0 : proc_->wait(); }

void runtime_a_turn::stop() {
  stopped_ = true;
  if (hook_stopped_) {
    // The hook told the CLI to end the turn: it writes the card's tool result to its session
    // file, prints its result and exits once stdin closes. Letting it finish is what keeps the
    // session resumable (a kill, however late, can lose that line on a loaded machine); the
    // watchdog only bounds a CLI that never ends.
    std::mutex m;
    std::condition_variable cv;
    bool ended = false;
    std::thread watchdog([&] {
      std::unique_lock lock(m);
      if (!cv.wait_for(lock, std::chrono::seconds(60), [&] { return ended; })) proc_->kill_group();
    });
    // Its result line carries what the turn used (the plan's or agents' reply too): the run's
    // usage would miss it otherwise.
    std::string line;
    while (proc_->read_line(line)) {
      if (line.find("\"control_request\"") != std::string::npos) {
        json r = servers::parse_json_within(line);
        if (r.is_object() && r.value("type", "") == "control_request") answer_control_request(r);
        continue;
      }
      if (usage_ && !line.empty() && line.front() == '{') {
        if (auto u = usage_->feed_line(line)) stopped_usage_ = std::move(u);
      }
      if (line.find("\"result\"") != std::string::npos) proc_->close_stdin();
    }
    proc_->wait();
    {
      std::lock_guard lock(m);
      ended = true;
    }
    cv.notify_one();
    watchdog.join();
    return;
  }
  // No hook answer (a card this host did not stop on): the CLI appends a message to its
  // session file just after printing it, so a kill right after the card's tool result could
  // lose that line (or a first turn's whole file). Wait for the line, bounded.
  if (!last_tool_result_id_.empty() && safe_claude_session_id(session_id_)) {
    fs::path file = fs::path(home_) / ".claude/projects" / project_key(cwd_) / (session_id_ + ".jsonl");
    for (int i = 0; i < 150 && read_whole_file(file).find(last_tool_result_id_) == std::string::npos; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  proc_->kill_group();
  proc_->wait();
}

}  // namespace platform::worker
