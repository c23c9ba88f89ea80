#include "agents_routes.hpp"

#include <cstdio>
#include <nlohmann/json.hpp>

#include "../common/json_fields.hpp"
#include "access.hpp"
#include "governed_agents.hpp"
#include "http.hpp"
#include "release_routes.hpp"
#include "platform/approval_hash.hpp"
#include "web_app.hpp"

namespace platform::web::agents_routes {
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
  if (!v) return send(res, v.error());
  json body = view_json(*v);
  body.update(extra);
  send_json(res, status, compact_json(body));
}

}  // namespace

void get_agents(web_app& app, const route_call& call, httplib::Response& res) {
  send_view(app, res, *call.app, reads_draft(*call.by, *call.app) ? source_scope::draft : source_scope::published, 200);
}

// The body is the whole agents.json. It is stored even when invalid (the builder's file can
// be invalid too); the reply says whether it is valid and what to fix.
// As deep as the file may be (docs/agents-json.md), and no deeper (the route's body rule): the
// indented dump below grows with the square of the depth.
void patch_agents(web_app& app, const route_call& call, httplib::Response& res) {
  const app_record& a = *call.app;
  std::string text = call.body->dump(2, ' ', false, json::error_handler_t::replace) + "\n";
  auto head = app.db.governance().put_draft_file(a.workspace_id, a.id, agents_json_path, text, now_ms());
  if (!head) return send(res, head.error());
  // The builder edits the worker's workspace, and the next turn's snapshot replaces the draft:
  // the file must reach the workspace too. When it cannot, the draft keeps the edit.
  auto synced = app.workers.for_app(a.id).put_file(a.id, agents_json_path, text);
  json extra = {{"workerSynced", synced.has_value()}};
  if (!synced) extra["workerError"] = std::string(code_name(synced.error()));
  send_view(app, res, a, source_scope::draft, 200, std::move(extra));
}

void approve_agents(web_app& app, const route_call& call, httplib::Response& res) {
  const app_record& a = *call.app;
  const json& body = *call.body;
  auto seen = body.find("approvalHash");
  if (seen == body.end() || !seen->is_string() || !hash_scheme_of(seen->get<std::string>())) {
    return send(res, api_error::invalid_body, "approvalHash must be the v1 hash of the payload being approved");
  }
  const auto& ws = a.workspace_id;
  auto draft = load_agents(app, ws, a.id, source_scope::draft);
  if (!draft) return send(res, draft.error());
  if (!draft->text) return send(res, api_error::no_draft, "the app has no agents.json to approve");
  if (!draft->hash || !hashes_equal(*draft->hash, seen->get<std::string>())) {
    return send(res, api_error::draft_changed, "agents.json changed since it was shown: review it again");
  }
  if (!draft->config) return send(res, api_error::invalid_config, "agents.json is invalid and cannot be approved");
  auto payload = approval_hash_of(*draft->text);
  if (!payload) return send(res, payload.error());
  agents_approval record{payload->hash, payload->normalized_payload_json, call.by->who.user_id, now_ms()};
  auto outcome = app.db.governance().approve(ws, a.id, record);
  if (!outcome) return send(res, outcome.error());
  if (*outcome != approve_outcome::approved) {
    return send(res, api_error::draft_changed, "agents.json changed while it was being approved: review it again");
  }
  send_view(app, res, a, source_scope::draft, 200);
}

// The published page shows the draft's current build from the publish on (its source was
// published with it). A failure is logged: the publish itself stands.
void publish_build(web_app& app, const app_record& a) {
  if (auto shown = app.db.previews().publish_preview(a.workspace_id, a.id, now_ms()); !shown) {
    std::fprintf(stderr, "web: published preview app=%s not promoted: %s\n", a.id.c_str(), code_c_str(shown.error()));
  }
}

// A publish (direct or through a review) needs the draft's build: without one the published
// page would show viewers nothing while the dialog said "Published".
bool has_draft_build(web_app& app, const app_record& a, httplib::Response& res) {
  auto build = app.db.previews().app_preview_of(a.workspace_id, a.id, source_scope::draft);
  if (!build) return send(res, build.error()), false;
  if (*build) return true;
  send(res, api_error::no_build,
             "the app has no build to publish yet: ask the builder to finish the app (it builds it with done_building), then publish");
  return false;
}

void publish_app(web_app& app, const route_call& call, httplib::Response& res) {
  const app_record& a = *call.app;
  if (!has_draft_build(app, a, res)) return;
  auto outcome = app.db.governance().publish(a.workspace_id, a.id, call.by->who.user_id, now_ms());
  if (!outcome) return send(res, outcome.error());
  switch (*outcome) {
    case publish_outcome::published: {
      publish_build(app, a);
      release_routes::record_release(app, a, {call.by->who.user_id, now_ms(), release_via::publish, ""});
      // An app without agents.json has no publication record; the reply still says who
      // published it and when.
      json extra = json::object();
      auto p = app.db.governance().publication(a.workspace_id, a.id);
      if (p && !*p) extra["published"] = {{"hash", nullptr}, {"publishedBy", call.by->who.user_id}, {"publishedAt", now_ms()}};
      return send_view(app, res, a, source_scope::published, 200, std::move(extra));
    }
    case publish_outcome::no_draft: return send(res, api_error::no_draft, "the app has no draft source to publish");
    case publish_outcome::unapproved:
      return send(res, api_error::not_approved, "agents.json must be approved by an admin or owner before publishing");
    case publish_outcome::stale:
      return send(res, api_error::approval_stale, "agents.json changed since it was approved: approve it again first");
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
          {"decidedAt", r.decided_at == 0 ? json(nullptr) : json(r.decided_at)},
          {"rollbackTo", r.rollback_to ? json(*r.rollback_to) : json(nullptr)}};
}

// The optional `note` of a review body; nullopt when a 400 was written.
std::optional<std::string> note_of(const json& body, httplib::Response& res) {
  auto note = body.find("note");
  if (note == body.end() || note->is_null()) return std::string();
  if (!note->is_string() || note->get<std::string>().size() > max_review_note_bytes) {
    send(res, api_error::invalid_body, "note must be a string of at most 2000 bytes");
    return std::nullopt;
  }
  return note->get<std::string>();
}

// An editor asks for the current draft to be published (spec "Agent config approval": review).
void request_review(web_app& app, const route_call& call, httplib::Response& res) {
  const app_record& a = *call.app;
  auto note = note_of(*call.body, res);
  if (!note) return;
  publish_review r;
  r.id = "rev_" + random_id(8);
  r.workspace_id = a.workspace_id;
  r.app_id = a.id;
  r.requested_by = call.by->who.user_id;
  r.note = std::move(*note);
  r.created_at = now_ms();
  // A rollback review names a release of this app to publish again.
  if (auto to = call.body->find("rollbackTo"); to != call.body->end() && !to->is_null()) {
    if (!to->is_number_integer() || to->get<std::int64_t>() < 1) {
      return send(res, api_error::invalid_body, "rollbackTo must be the number of one of the app's releases");
    }
    auto release = app.db.releases().get(a.workspace_id, a.id, to->get<std::int64_t>());
    if (!release) return send(res, release.error());
    if (!*release) return send(res, api_error::not_found, "no such release of this app to roll back to");
    r.rollback_to = (*release)->number;
  }
  auto out = app.db.governance().request_review(r);
  if (!out) return send(res, out.error());
  if (*out == review_request_outcome::no_draft) return send(res, api_error::no_draft, "the app has no draft to review");
  if (*out == review_request_outcome::already_pending) {
    return send(res, api_error::review_pending, "a review of this app is already waiting for an admin or owner");
  }
  send_json(res, 201, compact_json(review_json(r)));
}

void list_reviews(web_app& app, const route_call& call, httplib::Response& res) {
  const app_record& a = *call.app;
  auto all = app.db.governance().reviews(a.workspace_id, a.id, 50);
  if (!all) return send(res, all.error());
  json out = json::array();
  for (const auto& r : *all) out.push_back(review_json(r));
  send_json(res, 200, compact_json(json({{"reviews", std::move(out)}})));
}

namespace {

// The release a pending rollback review asks for, checked before the review is approved: it
// exists and its build is still stored (nullopt inside: not a rollback review). nullopt when an
// error was written.
std::optional<std::optional<app_release>> rollback_target(web_app& app, const app_record& a, const std::string& review_id,
                                                          httplib::Response& res) {
  auto all = app.db.governance().reviews(a.workspace_id, a.id, 50);
  if (!all) return send(res, all.error()), std::nullopt;
  for (const auto& r : *all) {
    if (r.id != review_id || r.status != review_status::pending || !r.rollback_to) continue;
    auto release = app.db.releases().get(a.workspace_id, a.id, *r.rollback_to);
    if (!release) return send(res, release.error()), std::nullopt;
    if (!*release) return send(res, api_error::not_found, "the release this review asks for is no longer in the app's history"), std::nullopt;
    auto stored = app.db.previews().has_build((*release)->build_digest);
    if (!stored) return send(res, stored.error()), std::nullopt;
    if (!*stored) return send(res, api_error::no_build, "that release's build is no longer stored, so it cannot be published again"), std::nullopt;
    return std::optional<std::optional<app_release>>(std::move(*release));
  }
  return std::optional<std::optional<app_release>>(std::optional<app_release>());
}

}  // namespace

// Approving publishes the reviewed draft (as POST .../publish), or for a rollback review the
// release it names (as POST .../releases/{n}/rollback); rejecting only records it.
void decide_review(web_app& app, const route_call& call, httplib::Response& res, bool approve) {
  const app_record& a = *call.app;
  const std::string& review_id = call.ids.at(2);
  auto note = note_of(*call.body, res);
  if (!note) return;
  auto target = approve ? rollback_target(app, a, review_id, res) : std::optional<std::optional<app_release>>(std::optional<app_release>());
  if (!target) return;
  if (approve && !*target && !has_draft_build(app, a, res)) return;
  auto out = app.db.governance().decide_review(a.workspace_id, a.id, review_id, approve, call.by->who.user_id,
                                               *note, now_ms());
  if (!out) return send(res, out.error());
  switch (*out) {
    case review_decision_outcome::decided:
      if (approve && *target) {
        if (!release_routes::roll_back_for_review(app, a, (*target)->number, {call.by->who.user_id, now_ms(), release_via::rollback, review_id}, res)) return;
      } else if (approve) {
        publish_build(app, a);
        release_routes::record_release(app, a, {call.by->who.user_id, now_ms(), release_via::review, review_id});
      }
      break;
    case review_decision_outcome::not_found: return send(res, api_error::not_found, "no such review for this app");
    case review_decision_outcome::not_pending: return send(res, api_error::not_pending, "the review was decided already");
    case review_decision_outcome::draft_changed:
      return send(res, api_error::draft_changed, "the draft changed since the review was asked for: ask for a new review");
    case review_decision_outcome::unapproved:
      return send(res, api_error::not_approved, "agents.json must be approved by an admin or owner before publishing");
    case review_decision_outcome::stale:
      return send(res, api_error::approval_stale, "agents.json changed since it was approved: approve it again first");
    case review_decision_outcome::no_draft: return send(res, api_error::no_draft, "the app has no draft to publish");
  }
  auto all = app.db.governance().reviews(a.workspace_id, a.id, 50);
  if (!all) return send(res, all.error());
  for (const auto& r : *all) {
    if (r.id == review_id) return send_json(res, 200, compact_json(review_json(r)));
  }
  send(res, api_error::not_found, "no such review for this app");
}

void approve_review(web_app& app, const route_call& call, httplib::Response& res) { decide_review(app, call, res, true); }

void reject_review(web_app& app, const route_call& call, httplib::Response& res) { decide_review(app, call, res, false); }

}  // namespace platform::web::agents_routes
