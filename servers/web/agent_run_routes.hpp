#pragma once
// App agent runs (spec "App agent run", docs/http-api.md "App agent runs") and the worker's
// completion callback; the rows are in web_routes.cpp.
#include "route_call.hpp"

namespace platform::web::agent_run_routes {

// The app's runs, newest first, as summaries; draft runs only for those who read the draft.
void list_agent_runs(web_app& app, const route_call& call, httplib::Response& res);
// {agentId, prompt, draft?}: a pending run of a governed agent.
void create_agent_run(web_app& app, const route_call& call, httplib::Response& res);
void get_agent_run(web_app& app, const route_call& call, httplib::Response& res);
// The run's UI messages once it ended; never the prompt or the raw transcript.
void get_agent_run_messages(web_app& app, const route_call& call, httplib::Response& res);
// Starts the run (once, by its triggering user) and, unless startOnly=1, follows it.
void post_agent_run_stream(web_app& app, const route_call& call, httplib::Response& res);
// Follows the run from ?cursor.
void get_agent_run_stream(web_app& app, const route_call& call, httplib::Response& res);
// The triggering user or any editor stops the run.
void post_agent_run_stop(web_app& app, const route_call& call, httplib::Response& res);
// POST /api/internal/agent-run-complete (the worker).
void agent_run_complete(web_app& app, const route_call& call, httplib::Response& res);

}  // namespace platform::web::agent_run_routes
