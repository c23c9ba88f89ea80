#include "agents_routes.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "../common/json_fields.hpp"
#include "access.hpp"
#include "governed_agents.hpp"
#include "http.hpp"
#include "platform/approval_hash.hpp"
#include "routes.hpp"

namespace platform::web {
namespace {

using nlohmann::json;

json nullable(const std::optional<std::string>& s) { return s ? json(*s) : json(nullptr); }

json problems_json(const violations& v) {
  json out = json::array();
  for (const auto& p : v) out.push_back({{"path", p.path}, {"code", p.code}, {"message", p.message}});
  return out;
}

json agents_summary(const agents_config& c) {
  json out = json::array();
  for (const auto& a : c.agents) out.push_back({{"id", a.id}, {"name", a.name}, {"description", a.description}});
  return out;
}

// GET's reply, also returned by PATCH and approval. `hash` is the v1 hash of the document
// shown: in the draft scope it is what an approver approves (`approvalHash` in the body).
json view_json(const agents_view& v) {
  json doc = v.text ? servers::parse_json_or_null(*v.text) : json(nullptr);
  json j = {{"scope", std::string(to_string(v.scope))},
            {"agentsJson", doc},
            {"text", nullable(v.text)},
            {"valid", v.config.has_value()},
            {"problems", problems_json(v.problems)},
            {"agents", v.config ? agents_summary(*v.config) : json::array()},
            {"approvalStatus", std::string(to_string(v.status))},
            {"hash", nullable(v.hash)},
            {"approvedHash", v.approval ? json(v.approval->hash) : json(nullptr)},
            {"approvedBy", v.approval ? json(v.approval->approved_by) : json(nullptr)},
            {"approvedAt", v.approval ? json(v.approval->approved_at) : json(nullptr)},
            {"toolsAllowed", v.status == approval_status::approved}};
  if (v.scope == source_scope::draft) j["draftHash"] = nullable(v.hash);
  j["published"] = v.publication ? json({{"hash", v.publication->approval.hash},
                                         {"publishedBy", v.publication->published_by},
                                         {"publishedAt", v.publication->published_at}})
                                 : json(nullptr);
  return j;
}

void send_view(web_app& app, httplib::Response& res, const app_record& a, source_scope scope, int status,
               json extra = json::object()) {
  auto v = load_agents(app, a.workspace_id, a.id, scope);
  if (!v) return send_store_error(res, v.error());
  json body = view_json(*v);
  body.update(extra);
  send_json(res, status, compact_json(body));
}

// The caller and the app, with `allowed` checked; nullopt when a reply was written.
struct app_access {
  caller by;
  app_record app;
};

template <class Allowed>
std::optional<app_access> access(web_app& app, const httplib::Request& req, httplib::Response& res,
                                 const path_ids& ids, Allowed allowed, std::string_view refusal) {
  auto c = authorize(app, req, res, ids.at(0));
  if (!c) return std::nullopt;
  auto a = load_app(app, ids.at(0), ids.at(1), res);
  if (!a) return std::nullopt;
  if (!allowed(*c, *a)) {
    send_error(res, 403, "forbidden", refusal);
    return std::nullopt;
  }
  return app_access{std::move(*c), std::move(*a)};
}

bool admin_or_owner(const caller& c, const app_record&) { return is_admin_or_owner(c.role); }

void get_agents(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
  auto x = access(app, req, res, ids, [](const caller&, const app_record&) { return true; }, "");
  if (!x) return;
  send_view(app, res, x->app, reads_draft(x->by, x->app) ? source_scope::draft : source_scope::published, 200);
}

// The body is the whole agents.json. It is stored even when invalid (the builder's file can
// be invalid too); the reply says whether it is valid and what to fix.
void patch_agents(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
  auto x = access(app, req, res, ids, can_patch_agents, "only admins, owners and the app's creator edit agents.json");
  if (!x) return;
  json body;
  // As deep as the file may be (docs/agents-json.md), and no deeper: the indented dump below
  // grows with the square of the depth.
  if (!parse_json_body(req, res, app.cfg.max_body_bytes, body, agents_json_max_depth)) return;
  std::string text = body.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
  auto head = app.db.governance().put_draft_file(x->app.workspace_id, x->app.id, agents_json_path, text, now_ms());
  if (!head) return send_store_error(res, head.error());
  // The builder edits the worker's workspace, and the next turn's snapshot replaces the draft:
  // the file must reach the workspace too. When it cannot, the draft keeps the edit.
  auto synced = app.workers.for_app(x->app.id).put_file(x->app.id, agents_json_path, text);
  json extra = {{"workerSynced", synced.has_value()}};
  if (!synced) extra["workerError"] = synced.error().code;
  send_view(app, res, x->app, source_scope::draft, 200, std::move(extra));
}

void approve_agents(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
  auto x = access(app, req, res, ids, admin_or_owner, "only workspace admins and owners approve agents.json");
  if (!x) return;
  json body;
  if (!parse_json_body(req, res, app.cfg.max_body_bytes, body)) return;
  auto seen = body.find("approvalHash");
  if (seen == body.end() || !seen->is_string() || !hash_scheme_of(seen->get<std::string>())) {
    return send_error(res, 400, "invalid_body", "approvalHash must be the v1 hash of the payload being approved");
  }
  const auto& ws = x->app.workspace_id;
  auto draft = load_agents(app, ws, x->app.id, source_scope::draft);
  if (!draft) return send_store_error(res, draft.error());
  if (!draft->text) return send_error(res, 409, "no_draft", "the app has no agents.json to approve");
  if (!draft->hash || !hashes_equal(*draft->hash, seen->get<std::string>())) {
    return send_error(res, 409, "draft_changed", "agents.json changed since it was shown: review it again");
  }
  if (!draft->config) return send_error(res, 422, "invalid_config", "agents.json is invalid and cannot be approved");
  auto payload = approval_hash_v1(*draft->text);
  if (!payload) return send_error(res, 422, payload.error().code, payload.error().message);
  agents_approval record{payload->hash, payload->normalized_payload_json, x->by.who.user_id, now_ms()};
  auto outcome = app.db.governance().approve(ws, x->app.id, record);
  if (!outcome) return send_store_error(res, outcome.error());
  if (*outcome != approve_outcome::approved) {
    return send_error(res, 409, "draft_changed", "agents.json changed while it was being approved: review it again");
  }
  send_view(app, res, x->app, source_scope::draft, 200);
}

// The published page shows the draft's current build from the publish on (its source was
// published with it). A failure is logged: the publish itself stands.
void publish_build(web_app& app, const app_record& a) {
  if (auto shown = app.db.previews().publish_preview(a.workspace_id, a.id, now_ms()); !shown) {
    std::fprintf(stderr, "web: published preview app=%s not promoted: %s\n", a.id.c_str(), shown.error().code.c_str());
  }
}

void publish_app(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
  auto x = access(app, req, res, ids, admin_or_owner, "only workspace admins and owners publish");
  if (!x) return;
  auto outcome = app.db.governance().publish(x->app.workspace_id, x->app.id, x->by.who.user_id, now_ms());
  if (!outcome) return send_store_error(res, outcome.error());
  switch (*outcome) {
    case publish_outcome::published:
      publish_build(app, x->app);
      return send_view(app, res, x->app, source_scope::published, 200);
    case publish_outcome::no_draft: return send_error(res, 409, "no_draft", "the app has no draft source to publish");
    case publish_outcome::unapproved:
      return send_error(res, 409, "not_approved", "agents.json must be approved by an admin or owner before publishing");
    case publish_outcome::stale:
      return send_error(res, 409, "approval_stale", "agents.json changed since it was approved: approve it again first");
  }
}

// ---- publish reviews ------------------------------------------------------------------------

constexpr std::size_t max_review_note_bytes = 2000;

json review_json(const publish_review& r) {
  return {{"id", r.id},
          {"workspaceId", r.workspace_id},
          {"appId", r.app_id},
          {"status", std::string(to_string(r.status))},
          {"requestedBy", r.requested_by},
          {"note", r.note},
          {"draftVersion", r.draft_version},
          {"decidedBy", r.decided_by.empty() ? json(nullptr) : json(r.decided_by)},
          {"decisionNote", r.decision_note},
          {"createdAt", r.created_at},
          {"decidedAt", r.decided_at == 0 ? json(nullptr) : json(r.decided_at)}};
}

// The optional `note` of a review body; nullopt when a 400 was written.
std::optional<std::string> note_of(web_app& app, const httplib::Request& req, httplib::Response& res) {
  if (req.body.empty()) return std::string();
  json body;
  if (!parse_json_body(req, res, app.cfg.max_body_bytes, body)) return std::nullopt;
  auto note = body.find("note");
  if (note == body.end() || note->is_null()) return std::string();
  if (!note->is_string() || note->get<std::string>().size() > max_review_note_bytes) {
    send_error(res, 400, "invalid_body", "note must be a string of at most 2000 bytes");
    return std::nullopt;
  }
  return note->get<std::string>();
}

// An editor asks for the current draft to be published (spec "Agent config approval": review).
void request_review(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
  auto x = access(app, req, res, ids, [](const caller& c, const app_record&) { return can_edit(c.role); },
                  "viewers cannot ask for a review");
  if (!x) return;
  auto note = note_of(app, req, res);
  if (!note) return;
  publish_review r;
  r.id = "rev_" + random_id(8);
  r.workspace_id = x->app.workspace_id;
  r.app_id = x->app.id;
  r.requested_by = x->by.who.user_id;
  r.note = std::move(*note);
  r.created_at = now_ms();
  auto out = app.db.governance().request_review(r);
  if (!out) return send_store_error(res, out.error());
  if (*out == review_request_outcome::no_draft) return send_error(res, 409, "no_draft", "the app has no draft to review");
  if (*out == review_request_outcome::already_pending) {
    return send_error(res, 409, "review_pending", "a review of this app is already waiting for an admin or owner");
  }
  send_json(res, 201, compact_json(review_json(r)));
}

void list_reviews(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
  auto x = access(app, req, res, ids, reads_draft, "viewers do not see reviews");
  if (!x) return;
  auto all = app.db.governance().reviews(x->app.workspace_id, x->app.id, 50);
  if (!all) return send_store_error(res, all.error());
  json out = json::array();
  for (const auto& r : *all) out.push_back(review_json(r));
  send_json(res, 200, compact_json(json({{"reviews", std::move(out)}})));
}

// Approving publishes the reviewed draft (as POST .../publish); rejecting only records it.
void decide_review(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids, bool approve) {
  auto x = access(app, req, res, ids, admin_or_owner, "only workspace admins and owners decide reviews");
  if (!x) return;
  auto note = note_of(app, req, res);
  if (!note) return;
  auto out = app.db.governance().decide_review(x->app.workspace_id, x->app.id, ids.at(2), approve, x->by.who.user_id,
                                               *note, now_ms());
  if (!out) return send_store_error(res, out.error());
  switch (*out) {
    case review_decision_outcome::decided:
      if (approve) publish_build(app, x->app);
      break;
    case review_decision_outcome::not_found: return send_error(res, 404, "not_found", "no such review for this app");
    case review_decision_outcome::not_pending: return send_error(res, 409, "not_pending", "the review was decided already");
    case review_decision_outcome::draft_changed:
      return send_error(res, 409, "draft_changed", "the draft changed since the review was asked for: ask for a new review");
    case review_decision_outcome::unapproved:
      return send_error(res, 409, "not_approved", "agents.json must be approved by an admin or owner before publishing");
    case review_decision_outcome::stale:
      return send_error(res, 409, "approval_stale", "agents.json changed since it was approved: approve it again first");
    case review_decision_outcome::no_draft: return send_error(res, 409, "no_draft", "the app has no draft to publish");
  }
  auto all = app.db.governance().reviews(x->app.workspace_id, x->app.id, 50);
  if (!all) return send_store_error(res, all.error());
  for (const auto& r : *all) {
    if (r.id == ids.at(2)) return send_json(res, 200, compact_json(review_json(r)));
  }
  send_error(res, 404, "not_found", "no such review for this app");
}

void approve_review(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
  decide_review(app, req, res, ids, true);
}

void reject_review(web_app& app, const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
  decide_review(app, req, res, ids, false);
}

}  // namespace

void register_agents_routes(httplib::Server& s, router& r, web_app& app) {
  const std::string app_path = "/api/workspaces/{}/apps/{}";
  on_get_route(r, app_path + "/agents", app, get_agents);
  on_body_route(s, "PATCH", app_path + "/agents", app, patch_agents);
  on_body_route(s, "POST", app_path + "/agents/approval", app, approve_agents);
  on_body_route(s, "POST", app_path + "/publish", app, publish_app);
  on_get_route(r, app_path + "/reviews", app, list_reviews);
  on_body_route(s, "POST", app_path + "/reviews", app, request_review);
  on_body_route(s, "POST", app_path + "/reviews/{}/approve", app, approve_review);
  on_body_route(s, "POST", app_path + "/reviews/{}/reject", app, reject_review);
}

}  // namespace platform::web
