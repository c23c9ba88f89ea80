#include "runtime_c.hpp"

#include "agent_sandbox.hpp"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "../common/json_fields.hpp"
#include "platform/api_error.hpp"
#include "platform/user_stop.hpp"
#include "platform/worker_message.hpp"

namespace platform::worker {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr auto session_io_timeout = std::chrono::seconds(60);
// Exports above this are not kept: the next turn then starts a fresh session. The web server
// stores ProviderSessionState per run, so it stays bounded.
constexpr std::size_t max_session_bytes = 16u << 20;
// The primary agent every run uses: its prompt is the platform's system prompt and its
// permissions are the turn's tool policy.
constexpr const char* agent_name = "platform";

bool safe_opencode_session_id(const std::string& id) {
  if (id.size() < 5 || id.size() > 128 || id.rfind("ses_", 0) != 0) return false;
  for (char c : id) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return false;
  }
  return true;
}

// opencode's name of a tool the platform grants: its built-ins are lower case, MCP tools are
// `<server>_<tool>`. Empty for tools opencode does not have.
std::string native_tool(const std::string& canonical) {
  if (canonical == "WebSearch") return "websearch";
  if (canonical == "WebFetch") return "webfetch";
  if (canonical.rfind("mcp__", 0) == 0) {
    auto sep = canonical.find("__", 5);
    if (sep == std::string::npos || sep == 5 || sep + 2 >= canonical.size()) return {};
    return canonical.substr(5, sep - 5) + "_" + canonical.substr(sep + 2);
  }
  return {};
}

// App agents: only their granted tools exist (`tools`) and may run (`permission`); everything
// else, shell and file tools included, is denied. Builders: opencode's normal tools with edits
// allowed, but nothing outside the workspace and no subagents (their tool calls would not
// show in the transcript).
void tool_policy(const turn_request& req, json& agent) {
  if (!req.app_agent()) {
    agent["permission"] = {{"external_directory", "deny"}, {"task", "deny"}, {"question", "deny"}};
    return;
  }
  json tools = {{"*", false}};
  json permission = {{"*", "deny"}};
  for (const auto& name : req.allowed_tools) {
    std::string native = native_tool(name);
    if (native.empty()) continue;
    tools[native] = true;
    permission[native] = "allow";
  }
  agent["tools"] = std::move(tools);
  agent["permission"] = std::move(permission);
}

// The broker token is written into this 0600 file only: not into the process environment,
// which opencode hands on to every shell command the model runs.
json mcp_servers(const broker_access& broker) {
  json servers = json::object();
  for (const auto& name : broker.servers) {
    servers[name] = {{"type", "remote"},
                     {"url", broker.base_url + "/mcp/" + name},
                     {"headers", {{"Authorization", "Bearer " + broker.token}}},
                     {"oauth", false},
                     {"enabled", true}};
  }
  return servers;
}

// The value a provider's `apiKey` names: `{env:NAME}` from the worker's provider variables,
// else the literal; and opencode's own variable for a provider without one.
std::string provider_secret(const config& cfg, const json& options, const std::string& provider) {
  std::string key = options.is_object() ? options.value("apiKey", "") : "";
  std::string var;
  if (key.starts_with("{env:") && key.ends_with("}")) var = key.substr(5, key.size() - 6);
  else if (!key.empty()) return key;
  else if (provider == "openai") var = "OPENAI_API_KEY";
  else if (provider == "anthropic") var = "ANTHROPIC_API_KEY";
  else if (provider == "google") var = "GOOGLE_GENERATIVE_AI_API_KEY";
  for (const auto& e : cfg.provider_env) {
    if (e.starts_with(var + "=")) return e.substr(var.size() + 1);
  }
  return {};
}

// Where the run's provider is, by the operator's config or opencode's defaults for the
// providers it bundles: what the provider door leads to.
result<provider_door_plan> provider_route(const config& cfg, const json& c, const std::string& model) {
  std::string provider = model.substr(0, model.find('/'));
  const json& p = c.contains("provider") && c["provider"].is_object() && c["provider"].contains(provider)
                      ? c["provider"][provider]
                      : json();
  const json& options = p.is_object() && p.contains("options") ? p["options"] : json();
  std::string base = options.is_object() ? options.value("baseURL", "") : "";
  if (base.empty() && provider == "openai") base = "https://api.openai.com/v1";
  if (base.empty() && provider == "anthropic") base = "https://api.anthropic.com/v1";
  if (base.empty() && provider == "google") base = "https://generativelanguage.googleapis.com/v1beta";
  if (base.empty()) {
    return fail(api_error::runtime_not_available, "runtime-c's provider " + provider +
                                                      " has no baseURL in PLATFORM_OPENCODE_CONFIG, which a sandboxed run needs");
  }
  return provider_door_plan{base, provider_secret(cfg, options, provider)};
}

result<json> run_config(const config& cfg, const turn_request& req, const opencode_tree& tree) {
  auto c = base_opencode_config(cfg);
  if (!c) return c;
  (*c)["model"] = req.model;
  // Title and summary calls go to the turn's own model unless the operator chose one.
  if (!c->contains("small_model")) (*c)["small_model"] = req.model;
  if (req.broker) (*c)["mcp"] = mcp_servers(*req.broker);
  json agent = {{"mode", "primary"}, {"description", "The platform's agent"}};
  if (!req.system_prompt.empty()) {
    // Spec "Authentication" 4: no prompt in env or config text. The config names the file;
    // opencode inserts its content verbatim (no further substitution).
    auto file = tree.write_private("system-prompt.md", req.system_prompt);
    if (!file) return tl::unexpected(file.error());
    agent["prompt"] = "{file:" + *file + "}";
  }
  tool_policy(req, agent);
  (*c)["agent"] = {{agent_name, std::move(agent)}};
  return c;
}

// The restored session goes into the fresh tree's database; false when it cannot (the turn
// then starts a fresh session).
bool import_session(const config& cfg, const opencode_tree& tree, const std::string& cwd,
                    const provider_session_state& s) {
  if (!safe_opencode_session_id(s.session_id) || s.data.empty() || s.data.size() > max_session_bytes) return false;
  json exported = servers::parse_json_within(s.data);
  if (!exported.is_object() || !exported.contains("info") || !exported["info"].is_object() ||
      exported["info"].value("id", "") != s.session_id) {
    return false;
  }
  auto file = tree.write_private("session-import.json", s.data);
  if (!file) return false;
  auto r = run_opencode(cfg, tree, {"import", *file}, session_io_timeout, cwd);
  std::error_code ec;
  fs::remove(*file, ec);
  return r && r->exit_code == 0;
}

std::string error_result_line(const std::string& text, const std::string& session_id) {
  std::string out;
  worker_message::result_fields r;
  r.is_error = true;
  r.result_text = text;
  r.session_id = session_id;
  r.num_turns = 0;
  worker_message::result(out, r);
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

}  // namespace

runtime_c_provider_state runtime_c_provider(const config& cfg, const std::string& model) {
  auto base = base_opencode_config(cfg);
  if (!base) return {};
  std::string provider = model.substr(0, model.find('/'));
  const json& providers = base->contains("provider") && (*base)["provider"].is_object() ? (*base)["provider"] : json();
  const json& p = providers.is_object() && providers.contains(provider) ? providers[provider] : json();
  const json& options = p.is_object() && p.contains("options") ? p["options"] : json();
  // A provider the operator defined without an apiKey needs none (a model server of their own).
  bool keyless = p.is_object() && !(options.is_object() && options.contains("apiKey"));
  auto route = provider_route(cfg, *base, model);
  runtime_c_provider_state s;
  s.routed = route.has_value() || !cfg.sandbox->enabled();
  s.credentials = keyless || !provider_secret(cfg, options, provider).empty();
  return s;
}

result<std::unique_ptr<runtime_turn>> runtime_c_turn::start(const config& cfg, const turn_request& req) {
  opencode_support support = opencode_check(cfg);
  if (!support.usable) return fail(api_error::runtime_not_available, support.reason);
  std::unique_ptr<runtime_c_turn> t(new runtime_c_turn(cfg));
  auto prepared = t->prepare(req, support.version);
  if (!prepared) return tl::unexpected(prepared.error());
  if (req.restore && req.restore->runtime_id == "runtime-c" && import_session(cfg, *t->tree_, t->cwd_, *req.restore)) {
    t->resume_id_ = req.restore->session_id;
  }
  auto spawned = t->spawn(!t->resume_id_.empty());
  if (!spawned) return tl::unexpected(spawned.error());
  return t;
}

// The workspace, the private tree with the run's config, argv, and the output readers.
result<void> runtime_c_turn::prepare(const turn_request& req, const std::string& version) {
  std::error_code ec;
  cwd_ = req.cwd.empty() ? (fs::absolute(cfg_.workspaces_dir) / req.app_id).string() : req.cwd;
  fs::create_directories(cwd_, ec);
  if (ec) return fail(api_error::workspace_unavailable, "cannot create the app workspace: " + ec.message());
  auto base = base_opencode_config(cfg_);
  if (!base) return tl::unexpected(base.error());
  jail_plan plan;
  plan.app_id = req.app_id;
  plan.workspace = cwd_;
  plan.node_modules = req.app_agent() ? std::string() : jail_node_modules(cfg_, cwd_);
  plan.broker = req.broker.has_value();
  plan.internet = true;  // WebFetch and what the shell fetches, through the guard
  if (cfg_.sandbox->enabled()) {
    auto route = provider_route(cfg_, *base, req.model);
    if (!route) return tl::unexpected(route.error());
    plan.provider = *route;
  }
  auto jail = cfg_.sandbox->open(plan);
  if (!jail) return tl::unexpected(jail.error());
  jail_ = std::move(*jail);
  auto tree = jail_->jailed() ? opencode_tree::create(version, jail_->home(), jail_.get()) : opencode_tree::create(version);
  if (!tree) return tl::unexpected(tree.error());
  tree_ = std::move(*tree);
  turn_request through = req;
  if (through.broker) through.broker->base_url = jail_->broker_url();
  auto run_cfg = run_config(cfg_, through, *tree_);
  if (!run_cfg) return tl::unexpected(run_cfg.error());
  if (jail_->jailed()) {
    // The run's provider through the door, with the placeholder: its real key stays outside.
    std::string provider = req.model.substr(0, req.model.find('/'));
    json& options = (*run_cfg)["provider"][provider]["options"];
    options["baseURL"] = jail_->provider_url();
    options["apiKey"] = jail_->provider_credential();
  }
  auto written = tree_->write_config(*run_cfg);
  if (!written) return tl::unexpected(written.error());
  prompt_ = req.prompt;
  args_ = req.settings_args;
  // A title skips opencode's extra title-generation model call on new sessions.
  args_.insert(args_.end(), {"--title", "platform " + req.run_id, "--agent", agent_name});
  auto normalizer = make_runtime_normalizer("runtime-c");
  if (!normalizer) return tl::unexpected(normalizer.error());
  normalizer_ = std::move(*normalizer);
  usage_context uc;
  uc.model = req.model;
  auto acc = make_usage_accumulator("runtime-c", std::move(uc));
  if (!acc) return tl::unexpected(acc.error());
  usage_ = std::move(*acc);
  return {};
}

result<void> runtime_c_turn::spawn(bool resume) {
  std::vector<std::string> args = args_;
  if (resume) args.insert(args.end(), {"--session", resume_id_});
  auto spec = tree_->wrap(process_spec{cfg_.opencode_path, std::move(args), tree_->env(cfg_), cwd_});
  if (!spec) return tl::unexpected(spec.error());
  mark_spawn();
  auto proc = child_process::spawn(*spec);
  if (!proc) return tl::unexpected(proc.error());
  proc_ = std::move(*proc);
  set_interrupt_group(proc_->pid());
  // opencode reads stdin to EOF before it starts; the prompt never goes on argv.
  auto w = proc_->write_stdin(prompt_);
  proc_->close_stdin();
  if (!w) return tl::unexpected(w.error());
  return {};
}

runtime_c_turn::~runtime_c_turn() {
  proc_.reset();
  tree_.reset();
  jail_.reset();
}

bool runtime_c_turn::next(std::string& line) {
  for (;;) {
    if (stopped_) return false;
    if (!queued_.empty()) {
      line = std::move(queued_.front());
      queued_.pop_front();
      return true;
    }
    if (finished_) return false;
    std::string native;
    if (proc_->read_line(native)) {
      native_line(native);
      continue;
    }
    if (retry_fresh()) continue;
    end_of_output();
  }
}

void runtime_c_turn::native_line(const std::string& native) {
  auto first = native.find_first_not_of(" \t\r");
  if (first == std::string::npos) return;
  json j = servers::parse_json_within(native);
  if (!j.is_object()) {
    // A CLI without JSON mode prints its usage or text here: the run cannot be read.
    foreign_ = true;
    opencode_mark_unusable(cfg_, "opencode printed output that is not JSON events in `run --format json`");
    proc_->kill_group();
    end_of_output();
    return;
  }
  native_seen_ = true;
  if (session_id_.empty()) {
    if (auto it = j.find("sessionID"); it != j.end() && it->is_string()) session_id_ = it->get<std::string>();
  }
  usage_->feed_line(native);
  std::string out;
  normalizer_->feed(native, out);
  normalizer_->feed("\n", out);
  for (std::size_t pos = 0; pos < out.size();) {
    auto nl = out.find('\n', pos);
    if (nl == std::string::npos) nl = out.size();
    if (nl > pos) queued_.push_back(out.substr(pos, nl - pos));
    pos = nl + 1;
  }
  if (auto so_far = usage_->progress()) {
    std::string step;
    worker_message::step_usage(step, *so_far);
    step.pop_back();
    queued_.push_back(std::move(step));
  }
}

// An imported session opencode still does not know ("Session not found", nothing printed)
// is continued as a fresh session in the same turn, once.
bool runtime_c_turn::retry_fresh() {
  if (native_seen_ || foreign_ || resume_id_.empty() || retried_) return false;
  int code = proc_->wait();
  if (code == 0 || proc_->stderr_tail().find("Session not found") == std::string::npos) return false;
  retried_ = true;
  resume_id_.clear();
  return static_cast<bool>(spawn(false));
}

// opencode prints no result line: the normalizer builds it from the step_finish lines, and
// this turn's usage is appended as `platform_turn_usage`.
void runtime_c_turn::end_of_output() {
  finished_ = true;
  std::string out;
  normalizer_->finish(out);
  auto turn_usage = usage_->finish();
  std::optional<std::string> result;
  for (std::size_t pos = 0; pos < out.size();) {
    auto nl = out.find('\n', pos);
    if (nl == std::string::npos) nl = out.size();
    std::string l = out.substr(pos, nl - pos);
    pos = nl + 1;
    if (l.empty()) continue;
    json m = servers::parse_json_within(l);
    if (m.is_object() && m.value("type", "") == "result") {
      result = std::move(l);
    } else {
      queued_.push_back(std::move(l));
    }
  }
  if (interrupted()) result = error_result_line(std::string(user_stop_reason), session_id_);
  if (foreign_) {
    result = error_result_line(
        "The installed opencode did not print JSON events for `opencode run --format json`, so runtime-c cannot run "
        "with it. Install opencode-ai 1.x (pinned: 1.18.33) or set PLATFORM_OPENCODE_PATH.",
        session_id_);
  }
  if (!result) return;
  if (turn_usage) worker_message::add_turn_usage(*result, *turn_usage);
  queued_.push_back(std::move(*result));
  result_seen_ = true;
}

std::optional<provider_session_state> runtime_c_turn::session() const {
  // A stopped turn starts nothing more (an export is a jailed opencode of its own); the next
  // turn resumes from the transcript instead.
  if (interrupted()) return std::nullopt;
  if (exported_) return *exported_;
  exported_.emplace();
  if (!safe_opencode_session_id(session_id_)) return std::nullopt;
  provider_session_state s{"runtime-c", session_id_, "", opencode_session_format};
  auto r = run_opencode(cfg_, *tree_, {"export", session_id_}, session_io_timeout, cwd_);
  if (r && r->exit_code == 0 && !r->timed_out && r->out.size() <= max_session_bytes) {
    json exported = servers::parse_json_within(r->out);
    if (exported.is_object() && exported.contains("info") && exported["info"].is_object() &&
        exported["info"].value("id", "") == session_id_) {
      s.data = compact_json(exported);
    }
  }
  *exported_ = std::move(s);
  return *exported_;
}

int runtime_c_turn::exit_code() { return stopped_ ? 0 : proc_->wait(); }

void runtime_c_turn::stop() {
  stopped_ = true;
  proc_->kill_group();
  proc_->wait();
}

}  // namespace platform::worker
