#include "release_routes.hpp"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "events.hpp"
#include "http.hpp"
#include "numbered_page.hpp"
#include "routines.hpp"
#include "web_app.hpp"

namespace platform::web::release_routes {
namespace {

using nlohmann::json;

// The ids of the agents an approved payload runs (the normalized agents.json).
json agent_ids_of(const agents_approval& a) {
  json ids = json::array();
  json doc = json::parse(a.normalized_payload_json, nullptr, false);
  if (doc.is_object() && doc.contains("agents") && doc["agents"].is_array()) {
    for (const auto& agent : doc["agents"]) {
      if (agent.is_object() && agent.contains("id") && agent["id"].is_string()) ids.push_back(agent["id"]);
    }
  }
  return ids;
}

json release_json(const app_release& r, const std::string& request, std::int64_t live) {
  json approval = r.approval ? json({{"hash", r.approval->hash},
                                     {"approvedBy", r.approval->approved_by},
                                     {"approvedAt", r.approval->approved_at},
                                     {"agents", agent_ids_of(*r.approval)}})
                             : json(nullptr);
  return {{"number", r.number},
          {"version", r.version},
          {"request", request},
          {"buildDigest", r.build_digest},
          {"approval", std::move(approval)},
          {"publishedBy", r.published_by},
          {"publishedAt", r.published_at},
          {"via", std::string(to_string(r.via))},
          {"reviewId", r.review_id.empty() ? json(nullptr) : json(r.review_id)},
          {"rolledBackFrom", r.rolled_back_from ? json(*r.rolled_back_from) : json(nullptr)},
          {"live", r.number == live}};
}

// The words of the turn that made a release's version (empty when it is gone).
std::string request_of(web_app& app, const app_release& r) {
  auto v = app.db.versions().list(r.workspace_id, r.app_id, {1, r.version + 1});
  if (!v || v->empty() || v->front().number != r.version) return {};
  return v->front().origin.request;
}

}  // namespace

void list_releases(web_app& app, const route_call& call, httplib::Response& res) {
  auto page = numbered_page_of(call.req, res);
  if (!page) return;
  const auto& ws = call.ids.at(0);
  const auto& app_id = call.ids.at(1);
  auto listed = app.db.releases().list(ws, app_id, *page);
  if (!listed) return send(res, listed.error());
  // The newest release is what viewers use now (every publish and rollback records one).
  std::int64_t live = 0;
  if (auto top = app.db.releases().list(ws, app_id, {1, std::nullopt}); top && !top->empty()) live = top->front().number;
  auto body = numbered_page_json(*listed, *page, [&](const app_release& r) { return release_json(r, request_of(app, r), live); });
  send_json(res, 200, body.dump());
}

namespace {

// Rolls back, or writes why not; the new release.
std::optional<app_release> rolled_back(web_app& app, const app_record& a, std::int64_t number, const release_request& request,
                                       httplib::Response& res) {
  std::optional<app_release> made;
  auto out = app.db.releases().roll_back(a.workspace_id, a.id, number, request, made);
  if (!out) return send(res, out.error()), std::nullopt;
  switch (*out) {
    case rollback_outcome::no_release: return send(res, api_error::not_found, "no such release of this app"), std::nullopt;
    case rollback_outcome::build_missing:
      return send(res, api_error::no_build, "that release's build is no longer stored, so it cannot be published again"), std::nullopt;
    case rollback_outcome::rolled_back: break;
  }
  sync_routines(app, a.workspace_id, a.id);
  publish_app_event(app.cache, "app.released", a.workspace_id, a.id);
  return made;
}

}  // namespace

void roll_back(web_app& app, const route_call& call, httplib::Response& res) {
  auto n = positive_number(call.ids.at(2));
  if (!n) return send(res, api_error::not_found, "no such release of this app");
  auto made = rolled_back(app, *call.app, *n, {call.by->who.user_id, now_ms(), release_via::rollback, ""}, res);
  if (made) send_json(res, 200, release_json(*made, request_of(app, *made), made->number).dump());
}

bool roll_back_for_review(web_app& app, const app_record& a, std::int64_t number, const release_request& request,
                          httplib::Response& res) {
  return rolled_back(app, a, number, request, res).has_value();
}

void record_release(web_app& app, const app_record& a, const release_request& request) {
  auto made = app.db.releases().record_publish(a.workspace_id, a.id, request);
  if (!made) {
    std::fprintf(stderr, "web: release of app=%s not recorded: %s\n", a.id.c_str(), code_c_str(made.error()));
    return;
  }
  sync_routines(app, a.workspace_id, a.id);
  publish_app_event(app.cache, "app.released", a.workspace_id, a.id);
}

}  // namespace platform::web::release_routes
