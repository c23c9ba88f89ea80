// Glue for the worker's completion callback; the work is complete_agent_run (agent_runs.hpp).
#include "internal_routes.hpp"

#include <nlohmann/json.hpp>

#include "access.hpp"
#include "agent_runs.hpp"
#include "http.hpp"
#include "routes.hpp"

namespace platform::web {

using nlohmann::json;

namespace {

// Idempotent: the worker retries a callback whose reply it did not get, so an ended run
// answers 200 again (`duplicate: true`) and nothing is stored or published twice.
void agent_run_complete(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids&) {
  if (!app.auth.internal_allowed(req, res)) return;
  json body;
  if (!parse_json_body(req, res, app.cfg.max_body_bytes, body)) return;
  auto done = complete_agent_run(app, body);
  if (done) return send_json(res, 200, json({{"ok", true}, {"duplicate", !*done}}).dump());
  const error& e = done.error();
  if (e.code == "invalid_body") return send_error(res, 400, e.code, e.message);
  if (e.code == "not_found") return send_error(res, 404, e.code, e.message);
  send_store_error(res, e);
}

}  // namespace

void register_internal_agent_run_routes(httplib::Server& s, web_app& app) {
  on_body_route(s, "POST", "/api/internal/agent-run-complete", app, agent_run_complete);
}

}  // namespace platform::web
