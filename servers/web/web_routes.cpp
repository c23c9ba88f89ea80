// platform-web's route table: every route of docs/http-api.md, one row each, to hold against
// the spec's "Browser-facing routes" and "Internal routes". A row says who may call it (and
// what of its path is loaded), the role it needs, the body it takes, and its handler; the
// preamble below does all of that, in that order, before the handler runs (route_call.hpp).
// A row also says what it does (its summary): the table is the API's OpenAPI document too,
// served at GET /api/openapi.json (openapi.hpp), and docs/http-api.md's route list.
#include "web_routes.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "access.hpp"
#include "agent_run_routes.hpp"
#include "agents_routes.hpp"
#include "app_data_routes.hpp"
#include "builder_routes.hpp"
#include "http.hpp"
#include "integration_routes.hpp"
#include "metrics_routes.hpp"
#include "openapi.hpp"
#include "../common/json_fields.hpp"
#include "platform/api_error.hpp"
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

// A row's body: its rule and, for a body, what it holds in words (the OpenAPI document's
// requestBody description; the generator refuses a body without one).
struct body_spec {
  body_rule rule;
  std::string_view description;
  constexpr body_spec(body_rule r, std::string_view what = {}) : rule(r), description(what) {}  // NOLINT: `none` reads as a row's body
};

struct route {
  std::string_view method;
  std::string_view path;  // {name} is an id: 1-128 of [A-Za-z0-9_-] (servers::any_id)
  access who;
  role_rule role;
  body_spec body;
  route_handler_fn fn;
  std::string_view handler;       // fn's name, written by H(): its operationId, its namespace the area
  std::string_view summary = {};  // one line: what the route does (the OpenAPI summary, the docs' route list)
  std::string_view refusal = {};  // the 403's message when `role` refuses
};

// GET /api/openapi.json: the document generated from this table (web_openapi_json below).
namespace api_doc {
void get_openapi(web_app&, const route_call&, httplib::Response& res) {
  res.set_header("Cache-Control", "no-cache");
  res.set_content(web_openapi_json(), "application/json");
}
}  // namespace api_doc

// The rows' shorthands stay in their own namespace: in a unity build the files after this one
// would otherwise see `json` as body_rule::json.
namespace rows {
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

// A row's handler and its name.
#define H(fn) fn, #fn

// The summaries are docs/http-api.md's words for each route; the route list there is generated
// from them (tests/js/e2e-openapi.mjs --write-docs).
// clang-format off
constexpr route table[] = {
  // ---- the service, the person, workspaces and members
  {"GET",    "/api/health",                                                    anyone,    R::member, none, H(w::health),
             "The service's health: turns this process runs and its workers as it last saw them"},
  {"GET",    "/api/openapi.json",                                              anyone,    R::member, none, H(api_doc::get_openapi),
             "This API as an OpenAPI 3.1 document, generated from the route table"},
  {"GET",    "/metrics",                                                       operator_token, R::member, none, H(metrics_routes::get_metrics),
             "The operator's counters and times as Prometheus text"},
  {"GET",    "/api/me",                                                        signed_in, R::member, none, H(w::me),
             "The caller: id, email, name and default workspace"},
  {"POST",   "/api/session",                                                   anyone,    R::member, none, H(w::open_session),  // signs in itself
             "Sign in (external mode): the bearer identity token becomes the session cookie"},
  {"DELETE", "/api/session",                                                   anyone,    R::member, none, H(w::close_session),
             "Sign out: clears the session cookie"},
  {"GET",    "/api/workspaces",                                                signed_in, R::member, none, H(w::list_workspaces),
             "The caller's workspaces and their role in each"},
  {"POST",   "/api/workspaces",                                                signed_in, R::member, {json, "name: 1 to 200 bytes"}, H(w::create_workspace),
             "Create a workspace; the caller becomes its owner"},
  {"GET",    "/api/workspaces/{workspace}/members",                            member,    R::member, none, H(w::list_members),
             "The workspace's members and their roles"},
  {"POST",   "/api/workspaces/{workspace}/members",                            member,    R::admin,  {json, "userId, and role: viewer, collaborator or admin"}, H(w::set_member),
             "Add a member or change their role (never to or from owner)",
             "only admins and owners manage members"},
  {"DELETE", "/api/workspaces/{workspace}/members",                            member,    R::admin,  none, H(w::remove_member),
             "Remove the member ?userId= and the OAuth accounts they connected to the workspace's apps",
             "only admins and owners manage members"},
  {"GET",    "/api/runtimes",                                                  signed_in, R::member, none, H(w::list_runtimes),
             "The runtime registry for a model picker, with whether each runtime is ready"},
  {"GET",    "/onboarding/provider",                                           anyone,    R::member, none, H(w::onboarding_provider),
             "The provider setup page (local mode only)"},
  {"GET",    "/api/setup/detect-provider",                                     signed_in, R::member, none, H(w::detect_provider),
             "The worker's provider detection: CLIs and which credential variables are set (?fresh=1 probes again)"},
  {"PUT",    "/api/setup/provider-keys/{key}",                                 signed_in, R::member, {json, "value: the key (at most 4 KiB, no spaces or control characters)"}, H(w::put_provider_key),
             "Give the worker a provider key for its runtime (local mode only); never echoed"},

  // ---- apps, builder runs, the builder chat, workspace events
  {"GET",    "/api/workspaces/{workspace}/apps",                               member,    R::member, none, H(b::list_apps),
             "The workspace's apps, newest first, each with its latest builder run (paged)"},
  {"POST",   "/api/workspaces/{workspace}/apps",                               member,    R::editor, {json, "name (1 to 200 bytes); optional runtimeId, runtimeModel, runtimeParams"}, H(b::create_app),
             "Create an app with its runtime settings (normalized by the registry)",
             "viewers cannot create apps"},
  {"GET",    "/api/workspaces/{workspace}/apps/{app}",                         app,       R::member, none, H(b::get_app),
             "The app, with its live preview and its published page's build"},
  {"PATCH",  "/api/workspaces/{workspace}/apps/{app}",                         app,       R::editor, {json, "optional name, runtimeId, runtimeModel, runtimeParams: those left out keep their value"}, H(b::update_app),
             "Rename the app or change its runtime settings",
             "viewers cannot change apps"},
  {"DELETE", "/api/workspaces/{workspace}/apps/{app}",                         app,       R::admin_or_creator, none, H(b::delete_app),
             "Delete the app with everything of it (409 app_busy while a turn or an agent run holds it)",
             "only workspace admins, owners and the app's creator delete an app"},
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/runs",                    app,       R::member, none, H(b::list_runs),
             "The app's builder runs, newest first, without messages (paged)"},
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/runs",                    app,       R::editor, none, H(b::create_run),
             "Create a builder run (pending, no messages)",
             "viewers cannot start builder runs"},
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/runs/{run}/chat",         app_run,   R::editor, {json, "messages: the client's whole list of UI messages; optional runtimeId, runtimeModel, runtimeParams"}, H(b::post_chat),
             "Send the builder chat's messages: starts or continues the turn, answered with its UI message stream",
             "viewers cannot send builder messages"},
  // The whole run is the reply: the handler's one read of it is the lookup by the tuple (a `run`
  // row would read the run's stream state first, a second query on a route the page polls).
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/runs/{run}/chat",         member,    R::member, none, H(b::get_chat),
             "The persisted builder run with its messages"},
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/runs/{run}/chat/stream",  run,       R::member, none, H(b::resume_chat),
             "Resume the run's turn stream: the replay from ?cursor=N, then the live events, to [DONE]"},
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/runs/{run}/stop",         run,       R::editor, none, H(b::stop_chat),
             "Stop the run's streaming turn wherever it runs",
             "viewers cannot stop builder turns"},
  {"GET",    "/api/workspaces/{workspace}/events",                             member,    R::member, none, H(b::workspace_events),
             "The workspace's events as server-sent events: runs, deleted apps, releases, budget warnings"},
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/runs/{run}/events",       run,       R::member, none, H(b::run_events),
             "The workspace's events of one builder run, as server-sent events"},

  // ---- governed agents, approval, publishing and reviews
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/agents",                  app, R::member,           none, H(g::get_agents),
             "agents.json, the draft (editors) or the published one (viewers), with its approval status"},
  {"PATCH",  "/api/workspaces/{workspace}/apps/{app}/agents",                  app, R::admin_or_creator, {agents_json, "the whole draft agents.json (at most 100 levels deep)"}, H(g::patch_agents),
             "Replace the draft agents.json (also in the worker's workspace)",
             "only admins, owners and the app's creator edit agents.json"},
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/agents/approval",         app, R::admin,  {json, "approvalHash: the hash of the draft the approver was shown"}, H(g::approve_agents),
             "Approve the exact draft agents.json",
             "only workspace admins and owners approve agents.json"},
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/publish",                 app, R::admin,  none, H(g::publish_app),
             "Publish the approved agents.json with a source snapshot and the draft's build",
             "only workspace admins and owners publish"},
  // releases (issue 35): everyone in the workspace sees what was published when
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/releases",                app, R::member, none, H(rel::list_releases),
             "The app's releases, newest first: what went live, when and by whom (paged)"},
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/releases/{release}/rollback", app, R::admin, none, H(rel::roll_back),
             "Publish a release again, exactly, recorded as a new release",
             "only workspace admins and owners roll back a publish"},
  // budgets (issue 37): everyone sees spend against the limits; admins and owners set them
  {"GET",    "/api/workspaces/{workspace}/budget",                             member, R::member, none, H(bud::get_workspace_budget),
             "The workspace's budget settings and this month's spend against them"},
  {"PUT",    "/api/workspaces/{workspace}/budget",                             member, R::admin,  {json, "workspaceMonthly, appMonthly, builderTurn, agentRun: each a limit {usd, tokens}, a missing one none"}, H(bud::put_workspace_budget),
             "Set the workspace's four spend limits",
             "only workspace admins and owners set budgets"},
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/budget",                  app, R::member, none, H(bud::get_app_budget),
             "The app's budget overrides, the workspace's defaults and this month's spend"},
  {"PUT",    "/api/workspaces/{workspace}/apps/{app}/budget",                  app, R::admin,  {json, "appMonthly, builderTurn, agentRun: each a limit {usd, tokens}, null or missing for the workspace's default"}, H(bud::put_app_budget),
             "Set the app's three budget overrides",
             "only workspace admins and owners set budgets"},
  // routines (issue 37): everyone sees them; admins and owners switch them and hold their webhook secrets
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/routines",                app, R::member, none, H(rtn::list_routines),
             "The app's published routines and the draft's triggers"},
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/routines/{routine}/enable", app, R::admin, {json, "enabled: true or false"}, H(rtn::set_routine_enabled),
             "Switch a routine on or off",
             "only workspace admins and owners switch routines on and off"},
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/routines/{routine}/webhook-secret", app, R::admin, none, H(rtn::reveal_webhook_secret),
             "Show a webhook routine's signing secret",
             "only workspace admins and owners see a webhook's secret"},
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/routines/{routine}/webhook-secret/rotate", app, R::admin, none, H(rtn::rotate_webhook_secret),
             "Replace a webhook routine's signing secret with a new one",
             "only workspace admins and owners rotate a webhook's secret"},
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/reviews",                 app, R::draft_reader, none, H(g::list_reviews),
             "The app's reviews, newest first (50)",
             "viewers do not see reviews"},
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/reviews",                 app, R::editor, {json_or_empty, "optional note, and rollbackTo: the number of a release to publish again; no body is an empty one"}, H(g::request_review),
             "Ask for the draft to be published, or for a release to be published again (rollbackTo)",
             "viewers cannot ask for a review"},
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/reviews/{review}/approve", app, R::admin, {json_or_empty, "optional note; no body is an empty one"}, H(g::approve_review),
             "Approve a review: publish the reviewed draft, or roll back to the review's release",
             "only workspace admins and owners decide reviews"},
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/reviews/{review}/reject", app, R::admin,  {json_or_empty, "optional note; no body is an empty one"}, H(g::reject_review),
             "Reject a review: nothing is published",
             "only workspace admins and owners decide reviews"},

  // ---- app data (the draft scope's access is the handler's: the scope is in the request)
  // versions (issue 35): those who read the draft
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/versions",                app, R::draft_reader, none, H(v::list_versions),
             "The app's versions, newest first (paged)",
             "viewers see the published app only"},
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/versions/{version}",      app, R::draft_reader, none, H(v::get_version),
             "A version's summary with its file list",
             "viewers see the published app only"},
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/versions/{version}/file", app, R::draft_reader, none, H(v::get_version_file),
             "One file of a version (?path=P)",
             "viewers see the published app only"},
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/versions/{version}/diff", app, R::draft_reader, none, H(v::get_version_diff),
             "A version's diff against the version before it, or against ?from=M",
             "viewers see the published app only"},
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/versions/{version}/zip",  app, R::draft_reader, none, H(vx::get_version_zip),
             "A version's files as a zip",
             "viewers see the published app only"},
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/history.bundle",          app, R::draft_reader, none, H(vx::get_history_bundle),
             "Every version as a git commit on main, as a git bundle",
             "viewers see the published app only"},
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/versions/{version}/restore", app, R::admin_or_creator, none, H(v::restore_version),
             "Make a version's files the draft again, as a new version",
             "only admins, owners and the app's creator restore a version (it changes the draft agents.json)"},
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/data",                    app, R::member, {json, "optional scope (draft or published), collection, op (insert, update or remove), docId, data, expectedVersion"}, H(d::post_data),
             "Insert, update (merge) or remove a document of the app's data"},
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/data-events",             app, R::member, none, H(d::data_events),
             "The app's data changes of a scope (?scope=) as server-sent events"},
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/data/{collection}",       app, R::member, none, H(d::list_data),
             "A page of a collection's documents"},
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/data/{collection}/{document}", app, R::member, none, H(d::get_document),
             "One document of a collection"},

  // ---- app agent runs (draft runs and a run's own user are the handlers')
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/agent-runs",              app, R::member, none, H(a::list_agent_runs),
             "The app's agent runs, newest first (paged)"},
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/agent-runs",              app, R::member, {json, "agentId, prompt, and optional draft (true: the draft agents.json)"}, H(a::create_agent_run),
             "Create a pending app agent run of an agent, triggered by the caller"},
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/agent-runs/{agentRun}",   agent_run, R::member, none, H(a::get_agent_run),
             "An app agent run's projected summary"},
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/agent-runs/{agentRun}/stream", agent_run, R::member, none, H(a::post_agent_run_stream),
             "Start the run on a worker once, then a viewer stream (?startOnly=1: the start only)"},
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/agent-runs/{agentRun}/stream", agent_run, R::member, none, H(a::get_agent_run_stream),
             "A viewer stream of the run: replay from ?cursor=N, then the live events"},
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/agent-runs/{agentRun}/stop", agent_run, R::member, none, H(a::post_agent_run_stop),
             "Stop the app agent run (its triggering user or an editor)"},
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/agent-runs/{agentRun}/messages", agent_run, R::member, none, H(a::get_agent_run_messages),
             "The run's UI messages, stored at its completion"},

  // ---- app actions and custom tools
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/app-tools/{tool}/execute", app, R::member, {json, "optional input (an object or a JSON string) and draft"}, H(t::execute_app_tool),
             "Run an approved app action, answered with its Integration tool result"},
  {"POST",   "/api/workspaces/{workspace}/apps/{app}/app-tools/{tool}/report-failure", app, R::draft_reader, {json, "input, result, description, and optional attemptedTask"},
             H(t::report_app_tool_failure),
             "Report an app action's failure in the draft to the builder, which starts a repair run",
             "reporting a failure needs editable draft access"},
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/tool-audit",              app, R::draft_reader, none, H(t::tool_audit),
             "The app's recent tool audit events",
             "the tool audit needs editable access to the app"},

  // ---- integrations
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/integrations",            app, R::admin_or_creator, none, H(i::list_integrations),
             "The app's integrations: requirements, secret names and connections, never values",
             "only a workspace admin or owner manages integrations"},
  {"PUT",    "/api/workspaces/{workspace}/apps/{app}/integrations/secrets",    app, R::admin, {json, "domain, optional keySlug, name, value"}, H(i::put_secret),
             "Write a static integration secret (write-only: the value is never answered)",
             "only a workspace admin or owner manages integrations"},
  {"DELETE", "/api/workspaces/{workspace}/apps/{app}/integrations/secrets",    app, R::admin, none, H(i::delete_secret),
             "Delete a static integration secret (?domain=&keySlug=&name=)",
             "only a workspace admin or owner manages integrations"},
  {"GET",    "/api/workspaces/{workspace}/integrations/oauth-providers",       member, R::admin, none, H(i::list_providers),
             "The workspace's OAuth client configs, without client secrets",
             "only a workspace admin or owner manages integrations"},
  {"PUT",    "/api/workspaces/{workspace}/integrations/oauth-providers/{provider}", member, R::admin, {json, "clientId, clientSecret, authorizationUrl, tokenUrl"}, H(i::put_provider),
             "Set an OAuth provider's client config",
             "only a workspace admin or owner manages integrations"},
  {"DELETE", "/api/workspaces/{workspace}/integrations/oauth-providers/{provider}", member, R::admin, none, H(i::delete_provider),
             "Delete an OAuth provider's client config",
             "only a workspace admin or owner manages integrations"},
  // A browser is sent back to the page whatever refuses it: these two sign in themselves.
  {"GET",    "/api/workspaces/{workspace}/apps/{app}/integrations/oauth/{provider}/connect", anyone, R::member, none,
             H(i::connect_start_route),
             "Start connecting the caller's account to an OAuth provider (a redirect to its consent page)"},
  {"GET",    "/api/integrations/oauth/callback",                               anyone, R::member, none, H(i::connect_callback_route),
             "The OAuth redirect target: finishes the connect started by the same browser"},
  {"DELETE", "/api/workspaces/{workspace}/apps/{app}/integrations/oauth/{provider}", app, R::member, none, H(i::disconnect),
             "Disconnect the caller's own OAuth account from the app"},

  // ---- a routine's webhook: whoever holds its secret (the signature is the authentication)
  {"POST",   "/api/hooks/{routine}",                                           anyone, R::member, none, H(rtn::receive_webhook),
             "A webhook routine's trigger: starts its run when the X-Platform-Signature HMAC of the body holds"},

  // ---- internal routes: the worker, with the internal token and the run's capability
  {"POST",   "/api/internal/agent-run-complete",                               internal_agent_end, R::member,
             {json, "workspaceId, appId, runId, status (completed or failed), result, error, usage, transcript, optional stopReason"}, H(a::agent_run_complete),
             "The worker's completion callback of an app agent run (a retry changes nothing)"},
  {"POST",   "/api/internal/agent-run-spend",                                  internal_agent_run, R::member,
             {json, "workspaceId, appId, runId, usage: the run's usage so far"}, H(bud::agent_run_spend),
             "An app agent run's spend so far, answered with whether a budget stops it"},
  {"POST",   "/api/internal/app-data",                                         internal_agent_run, R::member,
             {json, "workspaceId, appId, runId, agentId, action (read or write), request"}, H(d::internal_app_data),
             "An app agent run's data tool call on its declared collections"},
  {"POST",   "/api/internal/tool-execute",                                     internal_agent_run, R::member,
             {json, "workspaceId, appId, runId, agentId, toolName, input"}, H(t::internal_tool_execute),
             "An app agent run's call of a tool approved for its agent, answered with its Integration tool result"},
  {"POST",   "/api/internal/tool-failure-report",                              internal_agent_run, R::member,
             {json, "workspaceId, appId, runId, agentId, toolName, description, attemptedTask, failures"}, H(t::internal_failure_report),
             "An app agent run's report of failed tool calls, for a builder repair"},
  {"POST",   "/api/internal/integration-requirements",                         internal_turn,      R::member,
             {json, "workspaceId, appId, runId, setup: the integration-setup.json"}, H(i::sync_requirements),
             "A builder turn's integration-setup.json: validated, it replaces the app's requirement set"},
  {"POST",   "/api/internal/workspace-integrations",                           internal_turn,      R::member,
             {json, "workspaceId, appId, runId"}, H(i::workspace_integrations),
             "The integrations and OAuth providers a builder turn may use, metadata only"},
};

}  // namespace rows
using rows::table;
// clang-format on
#undef H

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
  const body_rule rule = row.body.rule;
  bool parse = rule != body_rule::none && !(rule == body_rule::json_or_empty && req.body.empty());
  // agents.json may be as deep as docs/agents-json.md allows, and no deeper: its indented dump
  // grows with the square of the depth.
  std::size_t depth = rule == body_rule::agents_json ? agents_json_max_depth : body_max_depth;
  if (parse && !parse_json_body(req, res, web.cfg.max_body_bytes, body, depth)) return;
  if (is_internal(row.who) && !run_capability_holds(web, row.who, req, body, res)) return;
  row.fn(web,
         route_call{req, ids, by ? &*by : nullptr, app_of, run ? &*run : nullptr, agent_run ? &*agent_run : nullptr,
                    rule == body_rule::none ? nullptr : &body, received},
         res);
}

// ---- the OpenAPI document (openapi.hpp): what a row says about itself

openapi_auth auth_of(access who) {
  switch (who) {
    case access::anyone: return openapi_auth::none;
    case access::operator_token: return openapi_auth::internal;
    case access::internal_turn:
    case access::internal_agent_run:
    case access::internal_agent_end: return openapi_auth::internal_run;
    default: return openapi_auth::identity;
  }
}

std::string_view caller_of(const route& row) {
  switch (row.who) {
    case access::anyone: return "anyone";
    case access::signed_in: return "signed-in users";
    case access::operator_token: return "the operator (internal token)";
    case access::internal_turn: return "the worker, for a running builder turn";
    case access::internal_agent_run: return "the worker, for a running app agent run";
    case access::internal_agent_end: return "the worker, for an app agent run";
    default: break;
  }
  switch (row.role) {
    case role_rule::member: return "members";
    case role_rule::editor: return "members other than viewers";
    case role_rule::admin: return "admins, owners";
    case role_rule::admin_or_creator: return "admins, owners, the app's creator";
    case role_rule::draft_reader: return "those who read the draft";
  }
  return {};
}

// The area of a row: the worker's routes are one; the others are their handler's module's.
std::string_view tag_of(const route& row) {
  if (is_internal(row.who)) return "internal";
  static constexpr std::pair<std::string_view, std::string_view> areas[] = {
      {"w", "workspaces"},   {"api_doc", "service"}, {"metrics_routes", "service"}, {"b", "builder"},
      {"g", "governance"},   {"rel", "releases"},     {"bud", "budgets"},             {"rtn", "routines"},
      {"v", "versions"},     {"vx", "versions"},      {"d", "app data"},              {"a", "agent runs"},
      {"t", "tools"},        {"i", "integrations"},
  };
  std::string_view ns = row.handler.substr(0, row.handler.rfind("::"));
  for (const auto& [prefix, area] : areas) {
    if (prefix == ns) return area;
  }
  return {};  // refused by the generator: a new module needs its area here
}

openapi_body body_of(body_rule rule) {
  switch (rule) {
    case body_rule::none: return openapi_body::none;
    case body_rule::json_or_empty: return openapi_body::optional;
    case body_rule::json:
    case body_rule::agents_json: return openapi_body::required;
  }
  return openapi_body::none;
}

std::vector<openapi_route> describe_table() {
  std::vector<openapi_route> out;
  for (const route& row : table) {
    std::string_view handler = row.handler;
    if (auto at = handler.rfind("::"); at != std::string_view::npos) handler = handler.substr(at + 2);
    out.push_back({row.method, row.path, handler, tag_of(row), row.summary, caller_of(row), auth_of(row.who),
                   body_of(row.body.rule), row.body.description});
  }
  return out;
}

}  // namespace

std::span<const openapi_route> web_openapi_routes() {
  static const std::vector<openapi_route> routes = describe_table();
  return routes;
}

const std::string& web_openapi_json() {
  static const std::string text = openapi_document(web_openapi_routes(), api_error_table()).dump();
  return text;
}

servers::route_dispatch register_routes(httplib::Server& s, web_app& web) {
  auto run = [&web](const route& row, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
    run_row(web, row, req, res, ids);
  };
  auto gets = servers::serve_routes(s, std::span<const route>(table), servers::any_id, run, "no such route");
  app_data_routes::check_settings();  // a bad data-limit setting is reported at start-up
  try {
    (void)web_openapi_json();  // built once, here: a row the document cannot describe is a failed start
  } catch (const openapi_refusal& e) {
    std::fprintf(stderr, "web: the route table's OpenAPI document: %s\n", e.what());
    std::exit(1);
  }
  auto page = ui_routes(web);         // every other GET outside /api: the builder page
  return [gets = std::move(gets), page = std::move(page)](const httplib::Request& req, httplib::Response& res) {
    return gets(req, res) || ((req.method == "GET" || req.method == "HEAD") && page(req, res));
  };
}

}  // namespace platform::web
