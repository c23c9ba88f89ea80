#include "runtime_b.hpp"
#include "runtime_ready.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdarg>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "../common/json_fields.hpp"
#include "adapters/child_process.hpp"
#include "platform/api_error.hpp"
#include "platform/runtime_normalizer.hpp"
#include "platform/runtime_registry.hpp"
#include "platform/usage.hpp"
#include "platform/worker_message.hpp"
#include "agent_sandbox.hpp"
#include "codex_home.hpp"
#include "codex_requests.hpp"

namespace platform::worker {

namespace fs = std::filesystem;
using nlohmann::json;
using steady = std::chrono::steady_clock;

namespace {

constexpr auto warm_idle = std::chrono::minutes(10);
// codex answers the handshake in well under a second; a process that does not is stuck.
constexpr auto handshake_limit = std::chrono::seconds(60);
// After its stdin closes codex exits at once; a command it started may hold it up a little.
constexpr auto exit_limit = std::chrono::seconds(10);

std::atomic<std::uint64_t> processes_started{0};

// PLATFORM_CODEX_TRACE=1: ids, statuses, paths, counts, sizes and timings; never prompts,
// outputs or file contents.
[[gnu::format(printf, 2, 3)]] void trace(const config& cfg, const char* fmt, ...) {
  if (!cfg.trace) return;
  std::va_list args;
  va_start(args, fmt);
  std::string text = "codex: ";
  char buf[1024];
  std::vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  text += buf;
  text += '\n';
  std::fputs(text.c_str(), stderr);
}

long long ms_since(steady::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(steady::now() - t).count();
}

// Lenient reading: codex's messages carry many fields this worker does not need.
using servers::member;
using servers::string_field;

// One app-server process and its CODEX_HOME, which lives exactly as long as the process.
// One app-server and its jail: a warm process keeps its jail (and the jail's HOME, its
// CODEX_HOME) between one app's turns, as the spec's Limits allow.
struct codex_process {
  std::unique_ptr<turn_jail> jail;
  std::unique_ptr<child_process> proc;
  std::string home;
  // The worker's settings as this process sees them: in a jail its provider is the provider
  // door with a placeholder key, and its broker the broker door.
  std::optional<config> seen;
  std::int64_t next_id = 0;
  ~codex_process() {
    proc.reset();  // kills the process group
    jail.reset();  // and its HOME
  }
};

// Kills a process that does not get through a bounded step in time, so a stuck codex cannot
// hold a worker thread forever.
class kill_timer {
 public:
  kill_timer(child_process& p, std::chrono::seconds after)
      : thread_([this, &p, after] {
          std::unique_lock lock(mu_);
          if (!cv_.wait_for(lock, after, [this] { return done_; })) p.kill_group();
        }) {}
  ~kill_timer() {
    {
      std::lock_guard lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  kill_timer(const kill_timer&) = delete;
  kill_timer& operator=(const kill_timer&) = delete;

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;  // last: starts once the rest exists
};

// Local development: one idle app-server per app, ended after 10 idle minutes.
class warm_pool {
 public:
  static warm_pool& instance() {
    static warm_pool pool;
    return pool;
  }

  std::unique_ptr<codex_process> take(const std::string& app_id) {
    std::lock_guard lock(mu_);
    auto it = idle_.find(app_id);
    if (it == idle_.end()) return nullptr;
    auto p = std::move(it->second.proc);
    idle_.erase(it);
    return p;
  }

  void park(const std::string& app_id, std::unique_ptr<codex_process> p) {
    std::unique_ptr<codex_process> replaced;  // ended outside the lock
    {
      std::lock_guard lock(mu_);
      auto& slot = idle_[app_id];
      replaced = std::move(slot.proc);
      slot = {std::move(p), steady::now()};
      if (!reaper_.joinable()) reaper_ = std::thread([this] { reap(); });
    }
    cv_.notify_all();
  }

  ~warm_pool() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    if (reaper_.joinable()) reaper_.join();
  }

 private:
  struct entry {
    std::unique_ptr<codex_process> proc;
    steady::time_point since;
  };

  void reap() {
    std::unique_lock lock(mu_);
    while (!stopping_) {
      auto now = steady::now();
      auto wake = now + warm_idle;
      std::vector<std::unique_ptr<codex_process>> expired;
      for (auto it = idle_.begin(); it != idle_.end();) {
        if (it->second.since + warm_idle <= now) {
          expired.push_back(std::move(it->second.proc));
          it = idle_.erase(it);
        } else {
          wake = std::min(wake, it->second.since + warm_idle);
          ++it;
        }
      }
      if (!expired.empty()) {
        lock.unlock();
        expired.clear();
        lock.lock();
        continue;
      }
      cv_.wait_until(lock, wake);
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, entry> idle_;
  bool stopping_ = false;
  std::thread reaper_;
};

class codex_turn final : public runtime_turn {
 public:
  codex_turn(const config& cfg, const turn_request& req) : cfg_(cfg), app_id_(req.app_id), broker_(req.broker) {}
  static result<std::unique_ptr<runtime_turn>> start(const config& cfg, const turn_request& req);

  bool next(std::string& line) override;
  [[nodiscard]] std::optional<provider_session_state> session() const override { return session_; }
  int exit_code() override { return exit_code_; }
  [[nodiscard]] bool result_seen() const override { return result_seen_; }
  void stop() override;

 private:
  enum class phase { running, ended, done };

  result<void> prepare(const turn_request& req);
  result<void> launch(const turn_request& req);
  result<void> open_jail(const turn_request& req);
  result<void> initialize();
  result<void> open_thread(const turn_request& req, const json& protocol);
  result<void> start_turn(const turn_request& req, const json& protocol);

  std::int64_t send(const char* method, json params);
  void write(const json& message);
  result<json> call(const char* method, json params, std::string& raw);
  void answer(const std::string& raw, const json& request);
  void take_line(const std::string& raw);
  void feed(const std::string& raw);
  void emit(const std::string& produced, const std::optional<run_usage>& turn_usage);
  void end_turn();
  bool unload_thread();
  void close_and_wait();
  void capture_session();

  const config& cfg_;
  std::string app_id_;
  std::optional<broker_access> broker_;
  std::string cwd_;
  bool warm_ = false;
  std::unique_ptr<codex_process> proc_;
  std::unique_ptr<runtime_normalizer> normalizer_;
  std::unique_ptr<usage_accumulator> usage_;
  std::deque<std::string> out_;
  std::string thread_id_, turn_id_;
  std::int64_t turn_request_id_ = -1;
  phase phase_ = phase::running;
  bool result_seen_ = false;
  bool eof_ = false;
  int exit_code_ = 0;
  std::optional<provider_session_state> session_;
  steady::time_point started_ = steady::now();
  std::size_t native_lines_ = 0, native_bytes_ = 0, worker_lines_ = 0;
};

result<std::unique_ptr<runtime_turn>> codex_turn::start(const config& cfg, const turn_request& req) {
  auto t = std::make_unique<codex_turn>(cfg, req);
  if (auto ok = t->prepare(req); !ok) return tl::unexpected(ok.error());
  json protocol = servers::parse_json_within(req.protocol_params_json);
  if (!protocol.is_object()) protocol = json::object();
  bool reused = false;
  if (t->warm_) {
    t->proc_ = warm_pool::instance().take(req.app_id);
    reused = t->proc_ != nullptr;
    if (reused) t->mark_spawn();  // the runtime's time starts with the warm process' handshake
    if (reused) trace(cfg, "reuse warm process app=%s pid=%d", req.app_id.c_str(), t->proc_->proc->pid());
  }
  if (!t->proc_) {
    if (auto ok = t->launch(req); !ok) return tl::unexpected(ok.error());
  }
  auto opened = t->open_thread(req, protocol);
  if (!opened && reused) {
    // A warm process that died while idle: start over on a fresh one.
    trace(cfg, "warm process unusable app=%s, starting a new one", req.app_id.c_str());
    t->proc_.reset();
    t->out_.clear();
    if (auto ok = t->launch(req); !ok) return tl::unexpected(ok.error());
    opened = t->open_thread(req, protocol);
  }
  if (!opened) return tl::unexpected(opened.error());
  if (auto ok = t->start_turn(req, protocol); !ok) return tl::unexpected(ok.error());
  return t;
}

result<void> codex_turn::prepare(const turn_request& req) {
  cwd_ = req.app_agent() ? req.cwd : (fs::absolute(cfg_.workspaces_dir) / req.app_id).string();
  std::error_code ec;
  fs::create_directories(cwd_, ec);
  if (ec) return fail(api_error::workspace_unavailable, "cannot create the app workspace: " + ec.message());
  if (::access(cfg_.codex_path.c_str(), X_OK) != 0) {
    return fail(api_error::runtime_not_available, "codex is not installed (PLATFORM_CODEX_PATH)");
  }
  warm_ = cfg_.codex_warm && !cfg_.production && !req.app_agent();
  auto normalizer = make_runtime_normalizer("runtime-b");
  if (!normalizer) return tl::unexpected(normalizer.error());
  normalizer_ = std::move(*normalizer);
  usage_context uc;
  uc.model = req.model;
  uc.pricing = builtin_runtime_registry().pricing();
  if (auto acc = make_usage_accumulator("runtime-b", std::move(uc))) usage_ = std::move(*acc);
  return {};
}

// App-agent runs get no shell and no apply_patch (features off, and a model catalog entry
// without them), a read-only sandbox, and web search only when their tools include it.
result<void> codex_turn::launch(const turn_request& req) {
  codex_home_options o;
  o.app_agent = req.app_agent();
  if (o.app_agent) {
    const auto& tools = req.allowed_tools;
    o.web_search = std::find(tools.begin(), tools.end(), "WebSearch") != tools.end() ||
                   std::find(tools.begin(), tools.end(), "WebFetch") != tools.end();
    auto catalog = restricted_model_catalog(cfg_, req.model);
    if (!catalog) return tl::unexpected(catalog.error());
    o.model_catalog_json = std::move(*catalog);
  }
  proc_ = std::make_unique<codex_process>();
  if (auto jailed = open_jail(req); !jailed) return tl::unexpected(jailed.error());
  const config& seen = *proc_->seen;
  if (!warm_ && req.broker) {
    o.broker = req.broker;
    o.broker->base_url = seen.broker_base_url;
  }
  o.home = proc_->jail->home();
  auto home = make_codex_home(seen, o);
  if (!home) return tl::unexpected(home.error());
  proc_->home = *home;
  std::string token = !warm_ && req.broker ? req.broker->token : std::string();
  process_spec spec{cfg_.codex_path, {"app-server"}, codex_env(seen, *home, token), cwd_};
  auto wrapped = proc_->jail->wrap(std::move(spec));
  if (!wrapped) return tl::unexpected(wrapped.error());
  mark_spawn();
  auto proc = child_process::spawn(*wrapped);
  if (!proc) return tl::unexpected(proc.error());
  proc_->proc = std::move(*proc);
  // A warm process outlives the turn, but not a user's stop: it is this app's own, and a model
  // request it holds must end with the stop (the app's next turn starts a fresh one).
  set_interrupt_group(proc_->proc->pid());
  processes_started.fetch_add(1);
  trace(cfg_, "spawn pid=%d app=%s home=%s warm=%d app_agent=%d", proc_->proc->pid(), req.app_id.c_str(),
        home->c_str(), warm_ ? 1 : 0, o.app_agent ? 1 : 0);
  return initialize();
}

// The process's jail: its provider door leads where codex would have gone (the custom
// provider, else OpenAI's API) with the key swapped in on the way out; the operator's ChatGPT
// login holds a refresh token, which never enters a jail.
result<void> codex_turn::open_jail(const turn_request& req) {
  jail_plan plan;
  plan.app_id = req.app_id;
  plan.workspace = cwd_;
  plan.node_modules = req.app_agent() ? std::string() : jail_node_modules(cfg_, cwd_);
  plan.broker = true;
  plan.internet = true;  // web search and fetch, and what the shell fetches, through the guard
  plan.broker_token_var = codex_broker_token_var;
  const std::string key = codex_key_now(cfg_);
  bool login = key.empty() && cfg_.codex_base_url.empty();
  if (!login || !cfg_.sandbox->enabled()) {
    plan.provider = provider_door_plan{cfg_.codex_base_url.empty() ? "https://api.openai.com/v1" : cfg_.codex_base_url, key};
  }
  if (login && cfg_.sandbox->enabled()) return fail(api_error::runtime_not_ready, runtime_ready(cfg_, "runtime-b", req.model).reason);
  auto jail = cfg_.sandbox->open(plan);
  if (!jail) return tl::unexpected(jail.error());
  proc_->jail = std::move(*jail);
  proc_->seen = cfg_;
  if (proc_->seen->codex_key.empty() && !key.empty()) {
    // A key entered on Model providers after the worker started.
    proc_->seen->codex_key = key;
    proc_->seen->codex_key_var = "CODEX_API_KEY";
  }
  if (proc_->jail->jailed()) {
    config& seen = *proc_->seen;
    seen.codex_base_url = proc_->jail->provider_url();
    seen.codex_key = proc_->jail->provider_credential();
    if (seen.codex_key_var.empty()) seen.codex_key_var = "CODEX_API_KEY";
    seen.broker_base_url = proc_->jail->broker_url();
  }
  return {};
}

result<void> codex_turn::initialize() {
  auto t0 = steady::now();
  kill_timer timer(*proc_->proc, handshake_limit);
  std::string raw;
  json client = {{"name", "platform_worker"}, {"title", "Platform Worker"}, {"version", "1.0.0"}};
  auto init = call("initialize", {{"clientInfo", client}, {"capabilities", {{"experimentalApi", false}}}}, raw);
  if (!init || init->contains("error")) return fail(api_error::runtime_not_available, "codex app-server did not initialize");
  write({{"method", "initialized"}});
  if (codex_needs_key_login(*proc_->seen)) {
    auto login = call("account/login/start", {{"type", "apiKey"}, {"apiKey", proc_->seen->codex_key}}, raw);
    if (!login || login->contains("error")) return fail(api_error::runtime_not_available, "codex did not accept the API key login");
  }
  trace(cfg_, "initialized pid=%d ms=%lld", proc_->proc->pid(), ms_since(t0));
  return {};
}

// A stored thread is resumed from its rollout; when codex does not know it (`no rollout found`,
// `thread not found`, a malformed id), the turn continues on a fresh thread without an error.
result<void> codex_turn::open_thread(const turn_request& req, const json& protocol) {
  kill_timer timer(*proc_->proc, handshake_limit);
  json params = member(protocol, "thread").is_object() ? member(protocol, "thread") : json::object();
  params["cwd"] = cwd_;
  if (req.app_agent()) params["sandbox"] = "read-only";
  if (!req.system_prompt.empty()) params["developerInstructions"] = req.system_prompt;
  if (warm_ && req.broker) {
    broker_access through = *req.broker;
    through.base_url = proc_->seen->broker_base_url;
    params["config"] = json::parse(mcp_thread_config(through));
  }
  std::string raw;
  const auto& r = req.restore;
  bool restored = r && r->runtime_id == "runtime-b" && restore_rollout(proc_->home, *r);
  if (restored) proc_->jail->own(proc_->home + "/sessions");
  if (restored) {
    json resume = params;
    resume["threadId"] = r->session_id;
    resume["excludeTurns"] = true;
    auto resumed = call("thread/resume", resume, raw);
    if (!resumed) return fail(api_error::runtime_not_available, "codex app-server exited while resuming the thread");
    if (!resumed->contains("error")) {
      thread_id_ = r->session_id;
      trace(cfg_, "thread/resume ok thread=%s", thread_id_.c_str());
      feed(raw);
      return {};
    }
    // codex's message names only the thread id ("no rollout found for thread id …").
    trace(cfg_, "thread/resume failed thread=%s (%.200s): starting a fresh thread", r->session_id.c_str(),
          string_field(member(*resumed, "error"), "message").c_str());
  }
  auto started = call("thread/start", params, raw);
  if (!started) return fail(api_error::runtime_not_available, "codex app-server exited while starting the thread");
  if (started->contains("error")) {
    return fail(api_error::runtime_not_available, "codex could not start a thread: " + string_field(member(*started, "error"), "message"));
  }
  thread_id_ = string_field(member(member(*started, "result"), "thread"), "id");
  trace(cfg_, "thread/start ok thread=%s", thread_id_.c_str());
  feed(raw);
  return {};
}

// turn/start's answer is read with the turn's notifications (next()): an error there ends the
// turn with the normalizer's error message.
result<void> codex_turn::start_turn(const turn_request& req, const json& protocol) {
  json params = member(protocol, "turn").is_object() ? member(protocol, "turn") : json::object();
  params["threadId"] = thread_id_;
  params["input"] = json::array({{{"type", "text"}, {"text", req.prompt}, {"text_elements", json::array()}}});
  turn_request_id_ = send("turn/start", std::move(params));
  if (turn_request_id_ < 0) return fail(api_error::runtime_not_available, "codex app-server closed its input");
  return {};
}

void codex_turn::write(const json& message) {
  (void)proc_->proc->write_stdin(compact_json(message) + "\n");
}

std::int64_t codex_turn::send(const char* method, json params) {
  std::int64_t id = proc_->next_id++;
  json m = {{"method", method}, {"id", id}, {"params", std::move(params)}};
  auto w = proc_->proc->write_stdin(compact_json(m) + "\n");
  return w ? id : -1;
}

// A request and its answer; what arrives before the answer belongs to no turn of ours (a warm
// process's leftovers, startup notices) and is dropped, except server requests, which are
// answered. An error when codex went away.
result<json> codex_turn::call(const char* method, json params, std::string& raw) {
  std::int64_t id = send(method, std::move(params));
  if (id < 0) return fail(api_error::runtime_not_available, "codex app-server closed its input");
  while (proc_->proc->read_line(raw)) {
    json m = servers::parse_json_within(raw);
    if (!m.is_object()) continue;
    if (m.contains("method") && m.contains("id")) {
      answer(raw, m);
    } else if (!m.contains("method") && m.contains("id") && m["id"] == id) {
      return m;
    }
  }
  return fail(api_error::runtime_not_available, "codex app-server exited");
}

// Server requests are answered at once, whatever phase the turn is in: codex waits for them.
void codex_turn::answer(const std::string& raw, const json& request) {
  auto a = answer_codex_request(raw, broker_);
  const json& params = member(request, "params");
  trace(cfg_, "server request %s server=%s tool=%s -> %s", string_field(request, "method").c_str(),
        string_field(params, "serverName").c_str(), string_field(member(params, "_meta"), "tool_name").c_str(), a.decision.c_str());
  (void)proc_->proc->write_stdin(a.reply + "\n");
}

void codex_turn::feed(const std::string& raw) {
  std::optional<run_usage> turn_usage;
  if (usage_) turn_usage = usage_->feed_line(raw);
  std::string produced;
  normalizer_->feed(raw + "\n", produced);
  emit(produced, turn_usage);
  if (auto so_far = usage_ ? usage_->progress() : std::nullopt) {
    std::string step;
    worker_message::step_usage(step, *so_far);
    step.pop_back();
    out_.push_back(std::move(step));
  }
}

void codex_turn::emit(const std::string& produced, const std::optional<run_usage>& turn_usage) {
  std::size_t pos = 0;
  while (pos < produced.size()) {
    std::size_t nl = produced.find('\n', pos);
    if (nl == std::string::npos) nl = produced.size();
    std::string line = produced.substr(pos, nl - pos);
    pos = nl + 1;
    if (line.empty()) continue;
    if (line.find("\"result\"") != std::string::npos) {
      json m = servers::parse_json_within(line);
      if (m.is_object() && string_field(m, "type") == "result") {
        result_seen_ = true;
        phase_ = phase::ended;
        if (turn_usage) worker_message::add_turn_usage(line, *turn_usage);
      }
    }
    ++worker_lines_;
    out_.push_back(std::move(line));
  }
}

void codex_turn::take_line(const std::string& raw) {
  ++native_lines_;
  native_bytes_ += raw.size();
  json m = servers::parse_json_within(raw);
  if (!m.is_object()) return;
  bool has_method = m.contains("method");
  if (has_method && m.contains("id")) return answer(raw, m);
  if (!has_method) {
    if (!m.contains("id") || m["id"] != turn_request_id_) return;  // no other request is open
    if (m.contains("error")) {
      feed(raw);  // the normalizer's error message; no turn runs
      phase_ = phase::ended;
    } else {
      turn_id_ = string_field(member(member(m, "result"), "turn"), "id");
      trace(cfg_, "turn/start ok thread=%s turn=%s", thread_id_.c_str(), turn_id_.c_str());
    }
    return;
  }
  feed(raw);
}

bool codex_turn::next(std::string& line) {
  for (;;) {
    if (!out_.empty()) {
      line = std::move(out_.front());
      out_.pop_front();
      return true;
    }
    if (phase_ == phase::done) return false;
    if (phase_ == phase::ended) {
      end_turn();
      continue;
    }
    std::string raw;
    if (proc_->proc->read_line(raw)) {
      take_line(raw);
      continue;
    }
    eof_ = true;
    std::string produced;
    normalizer_->finish(produced);  // closes what the turn left open
    emit(produced, std::nullopt);
    phase_ = phase::ended;
  }
}

void codex_turn::end_turn() {
  phase_ = phase::done;
  if (warm_ && !eof_ && result_seen_ && unload_thread()) {
    capture_session();
    trace(cfg_, "turn end app=%s thread=%s result=%d native_lines=%zu native_bytes=%zu worker_lines=%zu ms=%lld (kept warm)",
          app_id_.c_str(), thread_id_.c_str(), result_seen_ ? 1 : 0, native_lines_, native_bytes_, worker_lines_,
          ms_since(started_));
    warm_pool::instance().park(app_id_, std::move(proc_));
    return;
  }
  close_and_wait();
  capture_session();
  trace(cfg_, "turn end app=%s thread=%s result=%d exit=%d native_lines=%zu native_bytes=%zu worker_lines=%zu ms=%lld",
        app_id_.c_str(), thread_id_.c_str(), result_seen_ ? 1 : 0, exit_code_, native_lines_, native_bytes_,
        worker_lines_, ms_since(started_));
}

// Unloading the thread writes its rollout out and makes the next turn resume it, which
// reconnects the MCP servers with that turn's token.
bool codex_turn::unload_thread() {
  kill_timer timer(*proc_->proc, exit_limit);
  std::string raw;
  auto r = call("thread/unsubscribe", {{"threadId", thread_id_}}, raw);
  return r && !r->contains("error");
}

// One process per turn: codex exits when its stdin closes; reading to the end makes sure the
// rollout is complete before it is read.
void codex_turn::close_and_wait() {
  proc_->proc->close_stdin();
  {
    kill_timer timer(*proc_->proc, exit_limit);
    std::string raw;
    while (proc_->proc->read_line(raw)) {
    }
  }
  exit_code_ = proc_->proc->wait();
}

void codex_turn::capture_session() {
  if (!proc_) return;
  save_refreshed_login(*proc_->seen, proc_->home);
  if (thread_id_.empty()) return;
  auto data = read_rollout(proc_->home, thread_id_);
  if (!data) return;
  trace(cfg_, "session thread=%s rollout_bytes=%zu", thread_id_.c_str(), data->size());
  session_ = provider_session_state{"runtime-b", thread_id_, std::move(*data), "jsonl"};
}

void codex_turn::stop() {
  if (phase_ == phase::done || !proc_) return;
  phase_ = phase::done;
  proc_->proc->kill_group();
  proc_->proc->wait();
  capture_session();
  trace(cfg_, "turn stopped app=%s thread=%s ms=%lld", app_id_.c_str(), thread_id_.c_str(), ms_since(started_));
}

}  // namespace

result<std::unique_ptr<runtime_turn>> start_runtime_b_turn(const config& cfg, const turn_request& req) {
  return codex_turn::start(cfg, req);
}

std::uint64_t codex_processes_started() { return processes_started.load(); }

void end_warm_runtime_b(const std::string& app_id) { warm_pool::instance().take(app_id).reset(); }

}  // namespace platform::worker
