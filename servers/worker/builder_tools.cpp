#include "builder_tools.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "agent_sandbox.hpp"
#include "platform/api_error.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "../common/json_fields.hpp"
#include "platform/agents_config.hpp"
#include "platform/approval_hash.hpp"
#include "platform/integration_setup.hpp"
#include "platform/placeholder.hpp"
#include "app_packages.hpp"
#include "app_workspace.hpp"
#include "build_runner.hpp"
#include "builder_checks.hpp"
#include "web_internal.hpp"

namespace platform::worker {

namespace fs = std::filesystem;
using nlohmann::json;
using ojson = nlohmann::ordered_json;  // payloads read top-down: status first

namespace {

constexpr std::uintmax_t max_config_bytes = 1u << 20;
constexpr std::size_t max_reported_problems = 50;
constexpr std::size_t max_preview_files = 200;
constexpr int internal_route_timeout_s = 30;

// ---- results ----

tool_outcome error_result(std::string message) { return {std::move(message), true}; }

// The payload as JSON text: the text block is all that reaches the model and the bridge, so
// it carries the whole structured result (research/mcp.md §4: clients differ in which of text
// and structuredContent they read; ours are one and the same).
tool_outcome payload_result(const ojson& payload) {
  return {compact_json(payload), false};
}

// A tool's body may not throw past the broker: a bug becomes a tool error the model can read.
tool_handler guarded(tool_outcome (*body)(const config&, turn_context&, const mcp_tool_call&), const config& cfg) {
  return [body, &cfg](turn_context& ctx, const mcp_tool_call& call) -> tool_outcome {
    try {
      if (ctx.workspace_dir.empty()) return error_result("This turn has no app workspace.");
      return body(cfg, ctx, call);
    } catch (const std::exception& e) {
      return error_result(std::string("The tool failed inside the worker: ") + e.what());
    }
  };
}

// ---- arguments ----

// The arguments object, with every member named in `allowed`. The broker does not check
// arguments against the schema, so this is where a wrong call gets its clear message.
result<json> arguments(const mcp_tool_call& call, std::initializer_list<std::string_view> allowed) {
  json args = servers::parse_json_within(call.arguments_json);
  if (args.is_discarded() || !args.is_object()) return fail(api_error::invalid_arguments, "The arguments must be a JSON object.");
  for (auto it = args.begin(); it != args.end(); ++it) {
    if (std::find(allowed.begin(), allowed.end(), it.key()) != allowed.end()) continue;
    std::string known;
    for (auto a : allowed) known += (known.empty() ? "" : ", ") + std::string(a);
    return fail(api_error::invalid_arguments, "Unknown argument \"" + it.key() + "\". " +
                                         (known.empty() ? std::string("This tool takes no arguments.")
                                                        : "Allowed arguments: " + known + "."));
  }
  return args;
}

// An optional string argument of at most `max` bytes; `required` rejects missing and blank.
result<std::optional<std::string>> string_arg(const json& args, const char* name, std::size_t max, bool required) {
  auto it = args.find(name);
  if (it == args.end() || it->is_null()) {
    if (required) return fail(api_error::invalid_arguments, std::string("\"") + name + "\" is required.");
    return std::optional<std::string>();
  }
  if (!it->is_string()) return fail(api_error::invalid_arguments, std::string("\"") + name + "\" must be a string.");
  const auto& s = it->get_ref<const std::string&>();
  if (required && s.find_first_not_of(" \t\r\n") == std::string::npos) {
    return fail(api_error::invalid_arguments, std::string("\"") + name + "\" must not be empty.");
  }
  if (s.size() > max) {
    return fail(api_error::invalid_arguments, std::string("\"") + name + "\" is longer than " + std::to_string(max) + " bytes.");
  }
  return std::optional<std::string>(s);
}

// ---- workspace files ----

struct workspace_file {
  bool exists = false;
  std::string text;
  std::optional<std::string> problem;  // exists but cannot be used
};

// A file in the workspace root. A symlink is refused: the builder could point one at any
// file of the machine, and validation messages quote what they read. Opened without following
// a link and checked on the open file, so a jailed process swapping the file for a link between
// a check and the read gains nothing.
workspace_file read_workspace_file(const turn_context& ctx, const char* name) {
  workspace_file f;
  std::string p = (fs::path(ctx.workspace_dir) / name).string();
  int fd = ::open(p.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0 && errno == ENOENT) return f;
  f.exists = true;
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    if (fd >= 0) ::close(fd);
    f.problem = std::string(name) + " must be a regular file in the workspace root, not a link or a directory";
    return f;
  }
  if (static_cast<std::uintmax_t>(st.st_size) > max_config_bytes) {
    ::close(fd);
    f.problem = std::string(name) + " is larger than 1 MiB";
    return f;
  }
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    f.text.append(buf, static_cast<std::size_t>(n));
    if (f.text.size() > max_config_bytes) break;
  }
  ::close(fd);
  return f;
}

ojson problems_json(const violations& problems) {
  ojson list = ojson::array();
  for (std::size_t i = 0; i < problems.size() && i < max_reported_problems; ++i) {
    list.push_back({{"path", problems[i].path}, {"code", problems[i].code}, {"message", problems[i].message}});
  }
  return list;
}

// The fix-it result of present_agents and present_integration_setup (no approval stop).
ojson needs_changes(const char* card, const violations& problems, const std::string& message) {
  ojson p = {{"status", "needs_changes"}, {"card", card}, {"problemCount", problems.size()},
             {"problems", problems_json(problems)}, {"message", message}};
  return p;
}

violations single_problem(std::string code, std::string message) {
  return {violation{"", std::move(code), std::move(message)}};
}

// ---- present_plan ----

result<std::vector<std::string>> plan_steps(const json& args) {
  auto it = args.find("steps");
  if (it == args.end() || !it->is_array() || it->empty()) {
    return fail(api_error::invalid_arguments, "\"steps\" is required: a non-empty array of strings, one per step.");
  }
  if (it->size() > 50) return fail(api_error::invalid_arguments, "\"steps\" holds at most 50 steps.");
  std::vector<std::string> steps;
  for (const auto& s : *it) {
    if (!s.is_string() || s.get_ref<const std::string&>().find_first_not_of(" \t\r\n") == std::string::npos) {
      return fail(api_error::invalid_arguments, "Every entry of \"steps\" must be a non-empty string.");
    }
    if (s.get_ref<const std::string&>().size() > 2000) return fail(api_error::invalid_arguments, "A step is longer than 2000 bytes.");
    steps.push_back(s.get<std::string>());
  }
  return steps;
}

tool_outcome present_plan(const config&, turn_context& ctx, const mcp_tool_call& call) {
  auto args = arguments(call, {"title", "summary", "steps"});
  if (!args) return error_result(args.error().message);
  auto title = string_arg(*args, "title", 200, true);
  if (!title) return error_result(title.error().message);
  auto summary = string_arg(*args, "summary", 8000, false);
  if (!summary) return error_result(summary.error().message);
  auto steps = plan_steps(*args);
  if (!steps) return error_result(steps.error().message);
  ojson p = {{"status", "awaiting_approval"}, {"card", "plan"}, {"title", **title}};
  if (*summary) p["summary"] = **summary;
  p["steps"] = *steps;
  p["message"] = "The plan is shown to the user with Approve & Build and Request Changes. Stop here: the user's "
                 "decision arrives as the next message.";
  ctx.stop_requested = true;
  return payload_result(p);
}

// ---- present_agents ----

std::string url_host(const std::string& url) {
  std::size_t start = url.find("://");
  start = start == std::string::npos ? 0 : start + 3;
  std::size_t end = url.find_first_of("/?#", start);
  std::string authority = url.substr(start, end == std::string::npos ? std::string::npos : end - start);
  if (auto at = authority.rfind('@'); at != std::string::npos) authority.erase(0, at + 1);
  return authority;
}

ojson tool_summary(const tool& t) {
  ojson s = {{"name", t.name}, {"type", t.type == tool_type::builtin ? "builtin" : "custom"}};
  if (t.display_name) s["displayName"] = *t.display_name;
  s["description"] = t.description;
  s["enabled"] = t.enabled;
  s["recommended"] = t.recommended;
  if (t.integration) {
    s["integration"] = {{"name", t.integration->name}, {"domain", t.integration->domain}, {"keySlug", t.integration->key_slug}};
  }
  if (t.endpoint) {
    s["endpoint"] = {{"method", t.endpoint->method}, {"host", url_host(t.endpoint->url)}};
    auto usage = endpoint_placeholder_usage(*t.endpoint);
    std::vector<std::string> secrets = usage ? usage->secret_names : std::vector<std::string>{};
    s["auth"] = t.integration && t.integration->oauth2 ? "oauth2" : secrets.empty() ? "none" : "secrets";
    if (!secrets.empty()) s["secrets"] = secrets;
    if (t.integration && t.integration->oauth2) s["scopes"] = t.integration->oauth2->scopes;
  }
  return s;
}

ojson agents_summary(const agents_config& cfg) {
  ojson agents = ojson::array();
  for (const auto& a : cfg.agents) {
    ojson tools = ojson::array();
    for (const auto& t : a.tools) tools.push_back(tool_summary(t));
    agents.push_back({{"id", a.id}, {"name", a.name}, {"description", a.description},
                      {"dataCollections", a.data_collections}, {"tools", tools}});
  }
  return agents;
}

// integration-setup.json is another tool's file: when it is invalid, agents.json is still
// validated (without the cross-file rules) and the result says why they were skipped.
struct setup_for_agents {
  std::optional<integration_setup> setup;
  ojson note;  // null when there is nothing to say
};

setup_for_agents setup_for_agents_check(const turn_context& ctx) {
  setup_for_agents s;
  auto file = read_workspace_file(ctx, "integration-setup.json");
  if (!file.exists) return s;
  auto report = file.problem ? integration_setup_report{std::nullopt, single_problem("invalid_file", *file.problem)}
                             : validate_integration_setup(file.text);
  if (report.setup) {
    s.setup = std::move(report.setup);
    s.note = {{"valid", true}, {"integrations", s.setup->integrations.size()}};
  } else {
    s.note = {{"valid", false},
              {"problems", problems_json(report.problems)},
              {"message", "integration-setup.json is invalid, so agents.json was checked without it and no integration "
                          "is registered: fix it and call present_integration_setup"}};
  }
  return s;
}

tool_outcome present_agents(const config&, turn_context& ctx, const mcp_tool_call& call) {
  auto args = arguments(call, {});
  if (!args) return error_result(args.error().message);
  const std::string fix = "agents.json needs changes before it can be approved: fix agents.json then call "
                          "present_agents again.";
  auto file = read_workspace_file(ctx, "agents.json");
  if (!file.exists) return payload_result(needs_changes("agents", agents_config_missing().problems, fix));
  if (file.problem) return payload_result(needs_changes("agents", single_problem("invalid_file", *file.problem), fix));
  auto setup = setup_for_agents_check(ctx);
  auto report = validate_agents_config(file.text, setup.setup ? &*setup.setup : nullptr);
  if (!report.config) {
    ojson p = needs_changes("agents", report.problems, fix);
    if (!setup.note.is_null()) p["integrationSetup"] = setup.note;
    return payload_result(p);
  }
  auto hash = approval_hash_of(file.text);
  if (!hash) return error_result("agents.json is valid but could not be hashed for approval: " + hash.error().message);
  ojson p = {{"status", "awaiting_approval"}, {"card", "agents"}, {"approvalHash", hash->hash},
             {"agents", agents_summary(*report.config)}};
  ojson app_tools = ojson::array();
  for (const auto& t : report.config->app_tools) app_tools.push_back(tool_summary(t));
  p["appTools"] = app_tools;
  if (!setup.note.is_null()) p["integrationSetup"] = setup.note;
  p["message"] = "agents.json is shown to a workspace admin or owner for approval. Stop here: the approval or the "
                 "requested changes arrive as the next message.";
  ctx.stop_requested = true;
  return payload_result(p);
}

// ---- web server's internal routes ----

ojson run_ids(const turn_context& ctx) {
  return {{"workspaceId", ctx.workspace_id}, {"appId", ctx.app_id}, {"runId", ctx.run_id}};
}

// The web's own error message (design notes' error body), bounded, when it sent one.
std::string web_error_message(const internal_reply& r) {
  json body = servers::parse_json_within(r.body);
  std::string m;
  if (body.is_object() && body.contains("error") && body["error"].is_object()) {
    m = body["error"].value("message", "");
  }
  if (m.size() > 300) m.resize(300);
  return m.empty() || looks_like_secret_value(m) ? std::string() : ": " + m;
}

// POSTs to a web route; an unreachable web or a non-2xx answer is a message for the model.
result<json> call_web(const config& cfg, const turn_context& ctx, const std::string& path, const ojson& body,
                      const std::string& what) {
  auto reply = post_internal(cfg, ctx.web_origin, path, ctx.run_capability, compact_json(body),
                             internal_route_timeout_s);
  if (!reply) {
    return fail(api_error::web_unreachable, "The platform's web server could not be reached to " + what +
                                       ". This is a platform problem, not yours: try again later, and do not guess.");
  }
  if (reply->status < 200 || reply->status > 299) {
    return fail(api_error::web_error, "The platform's web server refused to " + what + " (HTTP " +
                                 std::to_string(reply->status) + ")" + web_error_message(*reply) + ".");
  }
  json parsed = servers::parse_json_within(reply->body);
  if (parsed.is_discarded()) parsed = json::object();
  return parsed;
}

tool_outcome list_app_integration_keys(const config& cfg, turn_context& ctx, const mcp_tool_call& call) {
  auto args = arguments(call, {});
  if (!args) return error_result(args.error().message);
  auto reply = call_web(cfg, ctx, "/api/internal/workspace-integrations", run_ids(ctx), "list this app's integration keys");
  if (!reply) return error_result(reply.error().message);
  const json* list = reply->is_array() ? &*reply : nullptr;
  if (!list && reply->is_object() && reply->contains("integrations") && (*reply)["integrations"].is_array()) {
    list = &(*reply)["integrations"];
  }
  if (!list) return error_result("The platform's web server sent an unexpected answer (no integrations list).");
  json keys = metadata_only(*list);
  ojson p = {{"status", "ok"}, {"count", keys.size()}, {"integrations", ojson::parse(compact_json(keys))},
             {"message", "Metadata only. Describe in integration-setup.json only what is missing for this app: a "
                         "domain and keySlug without a grant, or a grant lacking permission groups, scopes or named "
                         "secrets. Another app's keys never count for this app."}};
  return payload_result(p);
}

// ---- present_integration_setup ----

// The validated setup in normalized form (defaults written out): what the web stores.
void put_optional(ojson& o, const char* key, const std::optional<std::string>& v) {
  if (v) o[key] = *v;
}

ojson instructions_json(const setup_instructions& in) {
  ojson o = ojson::object();
  put_optional(o, "overview", in.overview);
  o["steps"] = ojson::array();
  for (const auto& st : in.steps) {
    ojson step = {{"title", st.title}};
    put_optional(step, "description", st.description);
    put_optional(step, "url", st.url);
    o["steps"].push_back(step);
  }
  o["links"] = ojson::array();
  for (const auto& l : in.links) o["links"].push_back({{"label", l.label}, {"url", l.url}});
  return o;
}

ojson integration_json(const setup_integration& i) {
  ojson e = {{"name", i.name}, {"domain", i.domain}, {"keySlug", i.key_slug}};
  put_optional(e, "keyName", i.key_name);
  put_optional(e, "capabilityLabel", i.capability_label);
  put_optional(e, "why", i.why);
  e["permissionGroups"] = ojson::array();
  for (const auto& g : i.permission_groups) {
    ojson o = {{"name", g.name}};
    put_optional(o, "description", g.description);
    o["permissions"] = g.permissions;
    e["permissionGroups"].push_back(o);
  }
  e["secrets"] = ojson::array();
  for (const auto& sec : i.secrets) {
    ojson o = {{"name", sec.name}};
    put_optional(o, "label", sec.label);
    put_optional(o, "description", sec.description);
    o["required"] = sec.required;
    e["secrets"].push_back(o);
  }
  if (i.instructions) e["setupInstructions"] = instructions_json(*i.instructions);
  return e;
}

ojson setup_json(const integration_setup& s) {
  ojson list = ojson::array();
  for (const auto& i : s.integrations) list.push_back(integration_json(i));
  return {{"integrations", list}};
}

ojson setup_card_summary(const integration_setup& s) {
  ojson list = ojson::array();
  for (const auto& i : s.integrations) {
    ojson e = {{"name", i.name}, {"domain", i.domain}, {"keySlug", i.key_slug}};
    ojson secrets = ojson::array(), groups = ojson::array();
    for (const auto& sec : i.secrets) secrets.push_back(sec.name);
    for (const auto& g : i.permission_groups) groups.push_back(g.name);
    e["secrets"] = secrets;
    e["permissionGroups"] = groups;
    list.push_back(e);
  }
  return list;
}

tool_outcome present_integration_setup(const config& cfg, turn_context& ctx, const mcp_tool_call& call) {
  auto args = arguments(call, {});
  if (!args) return error_result(args.error().message);
  const std::string fix = "Nothing was registered: fix integration-setup.json then call present_integration_setup again.";
  auto file = read_workspace_file(ctx, "integration-setup.json");
  if (!file.exists) return payload_result(needs_changes("integration_setup", integration_setup_missing().problems, fix));
  if (file.problem) {
    return payload_result(needs_changes("integration_setup", single_problem("invalid_file", *file.problem), fix));
  }
  auto report = validate_integration_setup(file.text);
  if (!report.setup) return payload_result(needs_changes("integration_setup", report.problems, fix));
  ojson body = run_ids(ctx);
  body["setup"] = setup_json(*report.setup);
  auto synced = call_web(cfg, ctx, "/api/internal/integration-requirements", body, "register the integration setup");
  if (!synced) return error_result(synced.error().message);
  ojson p = {{"status", "presented"}, {"card", "integration_setup"}, {"synced", true},
             {"integrations", setup_card_summary(*report.setup)},
             {"message", "The setup is registered on the integrations settings page (replacing this app's earlier "
                         "setup) and shown to the user as a setup card. Continue with the implementation; until it is "
                         "configured, custom tools answer with their mockData."}};
  return payload_result(p);
}

// ---- done_building ----

ojson check_json(const check_result& r, bool with_output) {
  ojson o = {{"ok", r.ok}, {"exitCode", r.exit_code}, {"durationMs", r.duration_ms}};
  if (r.timed_out) o["timedOut"] = true;
  if (with_output) {
    o["output"] = r.output;
    o["truncated"] = r.truncated;
    o["outputBytes"] = r.output_bytes;
  }
  return o;
}

ojson preview_json(const artifact_report& art) {
  ojson files = ojson::array();
  for (std::size_t i = 0; i < art.files.size() && i < max_preview_files; ++i) {
    files.push_back({{"path", art.files[i].path}, {"bytes", art.files[i].bytes}});
  }
  return {{"entry", "dist/index.html"}, {"root", "dist"}, {"digest", art.digest}, {"fileCount", art.files.size()},
          {"totalBytes", art.total_bytes}, {"files", files}};
}

ojson build_failure(const std::string& message) {
  return {{"ok", false}, {"error", message}, {"message", "The build could not run. This is a platform problem, not an "
                                                         "error in the app: report it to the user."}};
}

// The app's own packages could not be installed from its package.json and lock.
bool packages_problem(const error& e) { return is(e, api_error::app_packages_invalid) || is(e, api_error::npm_failed); }

ojson checked_build(const config& cfg, const turn_context& ctx, const std::optional<std::string>& summary) {
  if (auto ws = ensure_app_workspace(cfg, ctx.workspace_dir); !ws) {
    if (!packages_problem(ws.error())) return build_failure(ws.error().message);
    return {{"ok", false}, {"packages", {{"ok", false}, {"code", std::string(code_name(ws.error()))}, {"error", ws.error().message}}},
            {"message", "The app's packages could not be installed from package.json and package-lock.json, so it "
                        "was not built. Add packages only with add_packages (exact versions), never by editing those "
                        "files: put them back as add_packages left them, then call done_building again."}};
  }
  // The type check and the build run the app's code (vite.config.ts, plugins): in its jail.
  jail_plan plan;
  plan.app_id = ctx.app_id;
  plan.workspace = ctx.workspace_dir;
  plan.node_modules = jail_node_modules(cfg, ctx.workspace_dir);
  auto jail = cfg.sandbox->open(plan);
  if (!jail) return build_failure(jail.error().message);
  auto checks = run_build_checks(ctx.workspace_dir, {}, jail->get());
  if (!checks) return build_failure(checks.error().message);
  bool passed = checks->typecheck.ok && checks->build.ok;
  if (!passed) {
    return {{"ok", false}, {"typecheck", check_json(checks->typecheck, true)}, {"build", check_json(checks->build, true)},
            {"message", "Fix the errors above, then call done_building again."}};
  }
  auto art = check_build_output(fs::path(ctx.workspace_dir) / "dist");
  if (!art.ok()) {
    return {{"ok", false}, {"typecheck", check_json(checks->typecheck, false)},
            {"build", check_json(checks->build, true)}, {"artifact", {{"ok", false}, {"problems", art.problems}}},
            {"message", "The build ran but its output is not a loadable app. Fix the problems above, then call "
                        "done_building again."}};
  }
  ojson p = {{"ok", true}};
  if (summary) p["summary"] = *summary;
  p["typecheck"] = check_json(checks->typecheck, false);
  p["build"] = check_json(checks->build, false);
  p["preview"] = preview_json(art);
  p["message"] = "The app type-checks and builds; the live preview now shows this build.";
  return p;
}

tool_outcome done_building(const config& cfg, turn_context& ctx, const mcp_tool_call& call) {
  auto args = arguments(call, {"summary"});
  if (!args) return error_result(args.error().message);
  auto summary = string_arg(*args, "summary", 8000, false);
  if (!summary) return error_result(summary.error().message);
  workspace_guard guard(ctx.workspace_dir);
  if (!guard) {
    return error_result("A build or a package install of this workspace is already running: wait for its result "
                        "instead of starting another.");
  }
  return payload_result(checked_build(cfg, ctx, *summary));
}

// ---- add_packages ----

tool_outcome add_packages_tool(const config& cfg, turn_context& ctx, const mcp_tool_call& call) {
  auto args = arguments(call, {"packages"});
  if (!args) return error_result(args.error().message);
  workspace_guard guard(ctx.workspace_dir);
  if (!guard) {
    return error_result("A build or a package install of this workspace is already running: wait for its result, "
                        "then call add_packages again.");
  }
  auto outcome = add_packages(cfg, ctx.workspace_dir, args->value("packages", json()));
  return {compact_json(outcome.payload), outcome.is_error};
}

// ---- definitions ----

constexpr const char* no_arguments_schema = R"({"type":"object","properties":{},"additionalProperties":false})";

// Codex runs tools without asking only when they say they are safe (research/mcp.md §5).
constexpr const char* read_only = R"({"readOnlyHint":true,"openWorldHint":false})";
constexpr const char* local_write = R"({"readOnlyHint":false,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false})";

tool_binding binding(const config& cfg, const char* tool, std::string description, const char* schema,
                     const char* annotations, tool_outcome (*body)(const config&, turn_context&, const mcp_tool_call&)) {
  return {mcp_tool_definition{mcp_tool_name(mcp_server_platform, tool), std::move(description), schema, annotations},
          guarded(body, cfg)};
}

}  // namespace

std::vector<tool_binding> builder_tools(const config& cfg) {
  std::vector<tool_binding> tools;
  tools.push_back(binding(
      cfg, "present_plan",
      "Show the user your implementation plan as a card with Approve & Build and Request Changes, before you change "
      "any files. This is an approval stop: the turn ends as soon as the card is shown, and the user's decision "
      "arrives as the next message (approval: build exactly this plan; requested changes: revise the plan and "
      "present it again).",
      R"({"type":"object","properties":{)"
      R"("title":{"type":"string","minLength":1,"maxLength":200,"description":"Short name of the app or change."},)"
      R"("summary":{"type":"string","maxLength":8000,"description":"What will be built and why, in a few sentences."},)"
      R"("steps":{"type":"array","minItems":1,"maxItems":50,"items":{"type":"string","minLength":1,"maxLength":2000},)"
      R"("description":"The implementation steps, in order, one sentence each."}},)"
      R"("required":["title","steps"],"additionalProperties":false})",
      read_only, present_plan));
  tools.push_back(binding(
      cfg, "present_agents",
      "Validate agents.json in the workspace root (the app's agents and app tools: its runtime policy) and, when it "
      "is valid, show it to a workspace admin or owner for approval. Takes no arguments: write agents.json first. "
      "Custom HTTP tools need integration.name, integration.domain, endpoint.method and endpoint.url; static-secret "
      "tools use {{secrets.NAME}} placeholders; OAuth tools use integration.auth {type: oauth2, ...} and no token "
      "placeholders or Authorization header; every custom tool needs at least 3 mockData entries. If anything is "
      "wrong the result has status \"needs_changes\" with each problem's path, code and fix: fix agents.json and "
      "call present_agents again. When it is valid this is an approval stop: the turn ends and the approval or the "
      "requested changes arrive as the next message.",
      no_arguments_schema, read_only, present_agents));
  tools.push_back(binding(
      cfg, "list_app_integration_keys",
      "List the integration keys (app-scoped grants) this app already has: integration name, domain, keySlug, the "
      "names of configured secrets, permission groups and scopes. Metadata only, never secret values. Call it before "
      "writing integration-setup.json, and describe there only what is missing: a domain and keySlug without a "
      "grant, or a grant lacking permission groups, scopes or named secrets. Another app's keys never count.",
      no_arguments_schema, read_only, list_app_integration_keys));
  tools.push_back(binding(
      cfg, "present_integration_setup",
      "Register the integration setup this app needs: validates integration-setup.json in the workspace root "
      "(integrations[] with name, domain, keySlug, secrets, permissionGroups, setupInstructions) and syncs it to the "
      "integrations settings page, replacing what this app registered before; the user sees a setup card. Call it "
      "after the agents are approved and whenever integration-setup.json changes. Not an approval stop: continue "
      "implementing afterwards. If the file has problems the result has status \"needs_changes\": fix them and call "
      "again.",
      no_arguments_schema, local_write, present_integration_setup));
  tools.push_back(binding(
      cfg, "add_packages",
      "Add npm packages to the app: installs them from the npm registry and pins them in package.json and "
      "package-lock.json (the app's source keeps them). Give each as name@x.y.z with one exact version (scoped names "
      "like @scope/name@1.2.3 too); ranges, tags such as latest, URLs, git and file specs are refused, and so are "
      "the platform's own packages (react, react-dom, vite, typescript, tailwindcss, their types and plugins), which "
      "the app already has. Install scripts never run, so packages that need a native build step do not work. Prefer "
      "packages that ship their own TypeScript types; otherwise add the matching @types/ package too. On failure "
      "nothing changes and the result says why. Never run npm install yourself.",
      R"({"type":"object","properties":{"packages":{"type":"array","minItems":1,"maxItems":10,)"
      R"("items":{"type":"string","minLength":3,"maxLength":300},)"
      R"("description":"Packages as name@exact-version, e.g. [\"clsx@2.1.1\", \"@types/lodash@4.17.20\"]."}},)"
      R"("required":["packages"],"additionalProperties":false})",
      local_write, add_packages_tool));
  tools.push_back(binding(
      cfg, "done_building",
      "Call when the implementation is complete. Type-checks (tsc) and builds (vite build) the workspace in "
      "parallel, checks the output in dist/ (index.html and every file it loads) and, on success, updates the app's "
      "live preview. On failure the result has ok:false with the type checker's and the bundler's output (the last "
      "8 KiB of each): fix the errors and call done_building again. Never say the app is finished before "
      "done_building returned ok:true.",
      R"({"type":"object","properties":{"summary":{"type":"string","maxLength":8000,)"
      R"("description":"What was built or changed, for the user."}},"additionalProperties":false})",
      local_write, done_building));
  return tools;
}

}  // namespace platform::worker
