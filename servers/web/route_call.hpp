#pragma once
// What a row of the route table (web_routes.cpp) establishes before its handler runs, in the
// same order for every row: authenticate → load the path's workspace, app and run by the
// spec's tuple → check the row's role → parse the body. A handler starts where that ends, with a
// reply already written for every refusal.
#include <httplib.h>

#include <chrono>

#include <nlohmann/json_fwd.hpp>

#include "access.hpp"
#include "../common/route_table.hpp"

namespace platform {
struct run_stream_state;
struct agent_run_summary;
}  // namespace platform

namespace platform::web {

struct web_app;
using servers::path_ids;

// Who may call a row, and what of the path is loaded for it.
enum class access : unsigned char {
  anyone,     // no identity asked (health, the builder page, the OAuth callback, sign-out)
  signed_in,  // an identity, no workspace: `by` holds it (role: viewer)
  member,     // a member of {workspace}: `by`
  app,        // a member, and {app} of that workspace: `by` and `app`
  run,        // a member, and the builder run {workspace, app, run}: `by` and `run` (404 for
              // another app's run: the tuple is the lookup)
  app_run,    // app and run together
  agent_run,  // a member, {app}, and its app agent run {workspace, app, agentRun}: `by`, `app`
              // and `agent_run`; a draft run is 404 to those who do not read the draft
  operator_token,  // the internal token alone (the operator's /metrics)
  // The worker, with the internal token and the capability of the run the body names
  // ({workspaceId, appId, runId}; run_capability.hpp), checked after the body is read:
  internal_turn,       // a builder turn, while it runs
  internal_agent_run,  // an app-agent run, while it runs
  internal_agent_end,  // an app-agent run, also once ended (its completion is idempotent)
};

// The role a member row needs beyond membership (spec "Authentication" 2). Rows that decide on
// the request's content (a draft run, a run's own user) check that in their handler.
enum class role_rule : unsigned char {
  member,         // any member
  editor,         // creators, collaborators, admins, owners (can_edit)
  admin,          // admins and owners
  admin_or_creator,  // admins, owners and the app's creator (can_patch_agents)
  draft_reader,      // those who read the draft, a demoted creator too (reads_draft)
};

// The body a row takes.
enum class body_rule : unsigned char {
  none,
  json,            // a JSON object within the body limits (json_limits.hpp)
  json_or_empty,   // the same, or no body at all (`body` is then an empty object)
  agents_json,     // a JSON object at most as deep as agents.json may be
};

struct route_call {
  const httplib::Request& req;
  const path_ids& ids;              // the path's ids, in order
  const caller* by;                 // signed_in, member and app rows
  const app_record* app;            // app, app_run and agent_run rows
  const run_stream_state* run;      // run and app_run rows: the builder run's status and stream
  const agent_run_summary* agent_run;  // agent_run rows: the projected summary
  const nlohmann::json* body;       // rows with a body rule
  std::chrono::steady_clock::time_point received;  // when the route began (the platform's share of a turn)
};

using route_handler_fn = void (*)(web_app&, const route_call&, httplib::Response&);

}  // namespace platform::web
