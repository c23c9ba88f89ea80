// platform-web's route table: every route of docs/http-api.md, one row each, to hold against
// the spec's "Browser-facing routes" and "Internal routes". A row says who may call it (and
// what of its path is loaded), the role it needs, the body it takes, and its handler; the
// preamble below does all of that, in that order, before the handler runs (route_call.hpp).
#include "web_routes.hpp"

#include <chrono>
#include <optional>
#include <span>
#include <string_view>

#include <nlohmann/json.hpp>

#include "access.hpp"
#include "agent_run_routes.hpp"
#include "agents_routes.hpp"
#include "app_data_routes.hpp"
#include "builder_routes.hpp"
#include "http.hpp"
#include "integration_routes.hpp"
#include "metrics_routes.hpp"
#include "../common/json_fields.hpp"
#include "platform/json_limits.hpp"
#include "platform/run_capability.hpp"
#include "route_call.hpp"
#include "tool_routes.hpp"
#include "version_routes.hpp"
#include "release_routes.hpp"
#include "budgets.hpp"
#include "routines.hpp"
#include "version_export_routes.hpp"
#include "ui_routes.hpp"
#include "web_app.hpp"
#include "workspace_routes.hpp"

namespace platform::web {
namespace {

struct route {
  std::string_view method;
  std::string_view path;  // {name} is an id: 1-128 of [A-Za-z0-9_-] (servers::any_id)
  access who;
  role_rule role;
  body_rule body;
  route_handler_fn fn;
  std::string_view refusal = {};  // the 403's message when `role` refuses
};

using enum access;
using enum body_rule;
using R = role_rule;
namespace b = builder_routes;
namespace w = workspace_routes;
namespace g = agents_routes;
namespace d = app_data_routes;
namespace a = agent_run_routes;
namespace t = tool_routes;
namespace i = integration_routes;
namespace v = version_routes;
namespace rel = release_routes;
namespace vx = version_export_routes;
namespace bud = budget_routes;
namespace rtn = routine_routes;

// clang-format off
constexpr route table[] = {
  // ---- the service, the person, workspaces and members
  {"GET",    "/api/health",                                                    anyone,    R::member, none, w::health},
  {"GET",    "/metrics",                                                       operator_token, R::member, none, metrics_routes::get_metrics},
  {"GET",    "/api/me",                                                        signed_in, R::member, none, w::me},
  {"POST",   "/api/session",                                                   anyone,    R::member, none, w::open_session},  // signs in itself
  {"DELETE", "/api/session",                                                   anyone,    R::member, none, w::close_session},
  {"GET",    "/api/workspaces",                                                signed_in, R::member, none, w::list_workspaces},
  {"POST",   "/api/workspaces",                                                signed_in, R::member, json, w::create_workspace},
  {"GET",    "/api/workspaces/{workspace}/members",                            member,    R::member, none, w::list_members},
  {"POST",   "/api/workspaces/{workspace}/members",                            member,    R::admin,  json, w::set_member,
             "only admins and owners manage members"},
  {"DELETE", "/api/workspaces/{workspace}/members",                            member,    R::admin,  none, w::remove_member,
             "only admins and owners manage members"},
  {"GET",    "/api/runtimes",                                                  signed_in, R::member, none, w::list_runtimes},
  {"GET",    "/onboarding/provider",                                           anyone,    R::member, none, w::onboarding_provider},
  {"GET",    "/api/setup/detect-provider",                                     signed_in, R::member, none, w::detect_provider},
  {"PUT",    "/api/setup/provider-keys/{key}",                                 signed_in, R::member, json, w::put_provider_key},

  // ---- apps, builder runs, the builder chat, workspace events
  {"GET",    "/api/workspaces/{workspace}/apps",                               member,    R::member, none, b::list_apps},
  {"POST",   "/api/workspaces/{workspace}/apps",                               member,    R::editor, json, b::create_app,
             "viewers cannot create apps"},
  {"GET",    "/api/workspaces/{workspace}/apps/{app}",                         app,       R::member, none, b::get_app},
  {"PATCH",  "/api/workspaces/{workspace}/apps/{app}",                         app,       R::editor, json, b::update_app,
             "viewers cannot change apps"},
  {"DELETE", "/api/workspaces/{workspace}/apps/{app}",                         app,       R::admin_or_creator, none, b::delete_app,
             "only workspace admins, owners and the app's creator delete an app"},
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/runs",                    app,       R::member, none, b::list_runs},
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/runs",                    app,       R::editor, none, b::create_run,
             "viewers cannot start builder runs"},
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/runs/{run}/chat",         app_run,   R::editor, json, b::post_chat,
             "viewers cannot send builder messages"},
  // The whole run is the reply: the handler's one read of it is the lookup by the tuple (a `run`
  // row would read the run's stream state first, a second query on a route the page polls).
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/runs/{run}/chat",         member,    R::member, none, b::get_chat},
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/runs/{run}/chat/stream",  run,       R::member, none, b::resume_chat},
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/runs/{run}/stop",         run,       R::editor, none, b::stop_chat,
             "viewers cannot stop builder turns"},
  {"GET",    "/api/workspaces/{workspace}/events",                             member,    R::member, none, b::workspace_events},
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/runs/{run}/events",       run,       R::member, none, b::run_events},

  // ---- governed agents, approval, publishing and reviews
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/agents",                  app, R::member,           none, g::get_agents},
  {"PATCH",  "/api/workspaces/{workspace}/apps/{app}/agents",                  app, R::admin_or_creator, agents_json, g::patch_agents,
             "only admins, owners and the app's creator edit agents.json"},
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/agents/approval",         app, R::admin,  json, g::approve_agents,
             "only workspace admins and owners approve agents.json"},
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/publish",                 app, R::admin,  none, g::publish_app,
             "only workspace admins and owners publish"},
  // releases (issue 35): everyone in the workspace sees what was published when
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/releases",                app, R::member, none, rel::list_releases},
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/releases/{release}/rollback", app, R::admin, none, rel::roll_back,
             "only workspace admins and owners roll back a publish"},
  // budgets (issue 37): everyone sees spend against the limits; admins and owners set them
  {"GET",    "/api/workspaces/{workspace}/budget",                             member, R::member, none, bud::get_workspace_budget},
  {"PUT",    "/api/workspaces/{workspace}/budget",                             member, R::admin,  json, bud::put_workspace_budget,
             "only workspace admins and owners set budgets"},
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/budget",                  app, R::member, none, bud::get_app_budget},
  {"PUT",    "/api/workspaces/{workspace}/apps/{app}/budget",                  app, R::admin,  json, bud::put_app_budget,
             "only workspace admins and owners set budgets"},
  // routines (issue 37): everyone sees them; admins and owners switch them and hold their webhook secrets
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/routines",                app, R::member, none, rtn::list_routines},
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/routines/{routine}/enable", app, R::admin, json, rtn::set_routine_enabled,
             "only workspace admins and owners switch routines on and off"},
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/routines/{routine}/webhook-secret", app, R::admin, none, rtn::reveal_webhook_secret,
             "only workspace admins and owners see a webhook's secret"},
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/routines/{routine}/webhook-secret/rotate", app, R::admin, none, rtn::rotate_webhook_secret,
             "only workspace admins and owners rotate a webhook's secret"},
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/reviews",                 app, R::draft_reader, none, g::list_reviews,
             "viewers do not see reviews"},
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/reviews",                 app, R::editor, json_or_empty, g::request_review,
             "viewers cannot ask for a review"},
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/reviews/{review}/approve", app, R::admin, json_or_empty, g::approve_review,
             "only workspace admins and owners decide reviews"},
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/reviews/{review}/reject", app, R::admin,  json_or_empty, g::reject_review,
             "only workspace admins and owners decide reviews"},

  // ---- app data (the draft scope's access is the handler's: the scope is in the request)
  // versions (issue 35): those who read the draft
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/versions",                app, R::draft_reader, none, v::list_versions,
             "viewers see the published app only"},
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/versions/{version}",      app, R::draft_reader, none, v::get_version,
             "viewers see the published app only"},
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/versions/{version}/file", app, R::draft_reader, none, v::get_version_file,
             "viewers see the published app only"},
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/versions/{version}/diff", app, R::draft_reader, none, v::get_version_diff,
             "viewers see the published app only"},
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/versions/{version}/zip",  app, R::draft_reader, none, vx::get_version_zip,
             "viewers see the published app only"},
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/history.bundle",          app, R::draft_reader, none, vx::get_history_bundle,
             "viewers see the published app only"},
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/versions/{version}/restore", app, R::admin_or_creator, none, v::restore_version,
             "only admins, owners and the app's creator restore a version (it changes the draft agents.json)"},
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/data",                    app, R::member, json, d::post_data},
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/data-events",             app, R::member, none, d::data_events},
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/data/{collection}",       app, R::member, none, d::list_data},
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/data/{collection}/{document}", app, R::member, none, d::get_document},

  // ---- app agent runs (draft runs and a run's own user are the handlers')
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/agent-runs",              app, R::member, none, a::list_agent_runs},
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/agent-runs",              app, R::member, json, a::create_agent_run},
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/agent-runs/{agentRun}",   agent_run, R::member, none, a::get_agent_run},
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/agent-runs/{agentRun}/stream", agent_run, R::member, none, a::post_agent_run_stream},
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/agent-runs/{agentRun}/stream", agent_run, R::member, none, a::get_agent_run_stream},
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/agent-runs/{agentRun}/stop", agent_run, R::member, none, a::post_agent_run_stop},
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/agent-runs/{agentRun}/messages", agent_run, R::member, none, a::get_agent_run_messages},

  // ---- app actions and custom tools
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/app-tools/{tool}/execute", app, R::member, json, t::execute_app_tool},
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/app-tools/{tool}/report-failure", app, R::draft_reader, json,
             t::report_app_tool_failure, "reporting a failure needs editable draft access"},
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/tool-audit",              app, R::draft_reader, none, t::tool_audit,
             "the tool audit needs editable access to the app"},

  // ---- integrations
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/integrations",            app, R::admin_or_creator, none, i::list_integrations,
             "only a workspace admin or owner manages integrations"},
  {"PUT",    "/api/workspaces/{workspace}/apps/{app}/integrations/secrets",    app, R::admin, json, i::put_secret,
             "only a workspace admin or owner manages integrations"},
  {"DELETE", "/api/workspaces/{workspace}/apps/{app}/integrations/secrets",    app, R::admin, none, i::delete_secret,
             "only a workspace admin or owner manages integrations"},
  {"GET",    "/api/workspaces/{workspace}/integrations/oauth-providers",       member, R::admin, none, i::list_providers,
             "only a workspace admin or owner manages integrations"},
  {"PUT",    "/api/workspaces/{workspace}/integrations/oauth-providers/{provider}", member, R::admin, json, i::put_provider,
             "only a workspace admin or owner manages integrations"},
  {"DELETE", "/api/workspaces/{workspace}/integrations/oauth-providers/{provider}", member, R::admin, none, i::delete_provider,
             "only a workspace admin or owner manages integrations"},
  // A browser is sent back to the page whatever refuses it: these two sign in themselves.
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/integrations/oauth/{provider}/connect", anyone, R::member, none,
             i::connect_start_route},
  {"GET",    "/api/integrations/oauth/callback",                               anyone, R::member, none, i::connect_callback_route},
  {"DELETE", "/api/workspaces/{workspace}/apps/{app}/integrations/oauth/{provider}", app, R::member, none, i::disconnect},

  // ---- a routine's webhook: whoever holds its secret (the signature is the authentication)
  {"POST",   "/api/hooks/{routine}",                                           anyone, R::member, none, rtn::receive_webhook},

  // ---- internal routes: the worker, with the internal token and the run's capability
  {"POST",   "/api/internal/agent-run-complete",                               internal_agent_end, R::member, json, a::agent_run_complete},
  {"POST",   "/api/internal/agent-run-spend",                                internal_agent_run, R::member, json, bud::agent_run_spend},
  {"POST",   "/api/internal/app-data",                                         internal_agent_run, R::member, json, d::internal_app_data},
  {"POST",   "/api/internal/tool-execute",                                     internal_agent_run, R::member, json, t::internal_tool_execute},
  {"POST",   "/api/internal/tool-failure-report",                              internal_agent_run, R::member, json, t::internal_failure_report},
  {"POST",   "/api/internal/integration-requirements",                         internal_turn,      R::member, json, i::sync_requirements},
  {"POST",   "/api/internal/workspace-integrations",                           internal_turn,      R::member, json, i::workspace_integrations},
};
// clang-format on

bool role_allows(role_rule rule, const caller& c, const app_record* a) {
  switch (rule) {
    case role_rule::member: return true;
    case role_rule::editor: return can_edit(c.role);
    case role_rule::admin: return is_admin_or_owner(c.role);
    case role_rule::admin_or_creator: return a && can_patch_agents(c, *a);
    case role_rule::draft_reader: return a && reads_draft(c, *a);
  }
  return false;
}

// The builder run or app agent run a row's path names, by the spec's tuple: 404 when that app
// has no such run (also another app's run in the same workspace), and for a draft agent run
// that the caller does not read.
bool load_run(web_app& web, access who, const caller& by, const app_record* app, const path_ids& ids,
              std::optional<run_stream_state>& run, std::optional<agent_run_summary>& agent_run, httplib::Response& res) {
  run_key key{ids.at(0), ids.at(1), ids.at(2)};
  if (who == access::agent_run) {
    auto s = web.db.app_agent_runs().summary(key);
    if (!s) {
      send(res, s.error());
      return false;
    }
    if (*s && (!(*s)->draft || reads_draft(by, *app))) agent_run = std::move(**s);
  } else {
    auto s = web.db.builder_run_stream(key);
    if (!s) {
      send(res, s.error());
      return false;
    }
    if (*s) run = std::move(**s);
  }
  if (run || agent_run) return true;
  send(res, api_error::not_found, who == access::agent_run ? "no such agent run for this app" : "no such run for this app");
  return false;
}

bool is_internal(access who) {
  return who == access::internal_turn || who == access::internal_agent_run || who == access::internal_agent_end;
}

// The second wall of the internal routes: the call carries the capability the web gave the run
// its body names, and that run has not ended (except for reporting its end).
bool run_capability_holds(web_app& web, access who, const httplib::Request& req, const nlohmann::json& body,
                          httplib::Response& res) {
  run_key key{servers::string_field(body, "workspaceId"), servers::string_field(body, "appId"), servers::string_field(body, "runId")};
  run_kind kind = who == access::internal_turn ? run_kind::builder_turn : run_kind::agent_run;
  auto held = verify_run_capability(web.capability_key, req.get_header_value(std::string(run_capability_header)),
                                    {kind, key.workspace_id, key.app_id, key.run_id});
  if (!held) {
    send(res, held.error());
    return false;
  }
  if (who == access::internal_agent_end) return true;
  bool ended = false;
  if (kind == run_kind::builder_turn) {
    auto run = web.db.builder_run_stream(key);
    if (!run) return send(res, run.error()), false;
    ended = *run && ((*run)->status == run_status::completed || (*run)->status == run_status::failed);
  } else {
    auto run = web.db.app_agent_runs().get(key);
    if (!run) return send(res, run.error()), false;
    ended = *run && is_finished((*run)->status);
  }
  // An unknown run is the handler's 404.
  if (ended) send(res, api_error::run_finished, "this run has ended");
  return !ended;
}

// The preamble: authenticate → load by the spec's tuple → role → body. Every refusal is
// written to `res` and ends the request there.
void run_row(web_app& web, const route& row, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
  const auto received = std::chrono::steady_clock::now();
  std::optional<caller> by;
  std::optional<app_record> loaded;
  std::optional<run_stream_state> run;
  std::optional<agent_run_summary> agent_run;
  switch (row.who) {
    case access::anyone: break;
    case access::operator_token:
    case access::internal_turn:
    case access::internal_agent_run:
    case access::internal_agent_end:
      if (!web.auth.internal_allowed(req, res)) return;
      break;
    case access::signed_in: {
      auto who = web.auth.identify(req, res);
      if (!who) return;
      by = caller{std::move(*who)};
      break;
    }
    case access::member:
    case access::app:
    case access::run:
    case access::app_run:
    case access::agent_run:
      by = authorize(web, req, res, ids.at(0));
      if (!by) return;
      if (row.who != access::member && row.who != access::run && !(loaded = load_app(web, ids.at(0), ids.at(1), res))) return;
      if (row.who == access::run || row.who == access::app_run || row.who == access::agent_run) {
        if (!load_run(web, row.who, *by, loaded ? &*loaded : nullptr, ids, run, agent_run, res)) return;
      }
      break;
  }
  const app_record* app_of = loaded ? &*loaded : nullptr;
  if (by && !role_allows(row.role, *by, app_of)) return send(res, api_error::forbidden, row.refusal);
  nlohmann::json body = nlohmann::json::object();
  bool parse = row.body != body_rule::none && !(row.body == body_rule::json_or_empty && req.body.empty());
  // agents.json may be as deep as docs/agents-json.md allows, and no deeper: its indented dump
  // grows with the square of the depth.
  std::size_t depth = row.body == body_rule::agents_json ? agents_json_max_depth : body_max_depth;
  if (parse && !parse_json_body(req, res, web.cfg.max_body_bytes, body, depth)) return;
  if (is_internal(row.who) && !run_capability_holds(web, row.who, req, body, res)) return;
  row.fn(web,
         route_call{req, ids, by ? &*by : nullptr, app_of, run ? &*run : nullptr, agent_run ? &*agent_run : nullptr,
                    row.body == body_rule::none ? nullptr : &body, received},
         res);
}

}  // namespace

servers::route_dispatch register_routes(httplib::Server& s, web_app& web) {
  auto run = [&web](const route& row, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
    run_row(web, row, req, res, ids);
  };
  auto gets = servers::serve_routes(s, std::span<const route>(table), servers::any_id, run, "no such route");
  app_data_routes::check_settings();  // a bad data-limit setting is reported at start-up
  auto page = ui_routes(web);         // every other GET outside /api: the builder page
  return [gets = std::move(gets), page = std::move(page)](const httplib::Request& req, httplib::Response& res) {
    return gets(req, res) || ((req.method == "GET" || req.method == "HEAD") && page(req, res));
  };
}

}  // namespace platform::web
