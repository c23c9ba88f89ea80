#include "governed_agents.hpp"

#include "platform/api_error.hpp"
#include "platform/approval_hash.hpp"
#include "platform/integration_setup.hpp"
#include "web_app.hpp"

namespace platform::web {

std::string_view to_string(approval_status s) {
  switch (s) {
    case approval_status::approved: return "approved";
    case approval_status::stale: return "stale";
    case approval_status::none: break;
  }
  return "none";
}

namespace {

// The same check present_agents makes: integration-setup.json enables the cross-file rules
// only when it is itself valid.
agents_config_report validate_with_setup(const std::string& agents_text, const std::optional<std::string>& setup_text) {
  if (setup_text) {
    auto setup = validate_integration_setup(*setup_text);
    if (setup.setup) return validate_agents_config(agents_text, &*setup.setup);
  }
  return validate_agents_config(agents_text);
}

approval_status status_of(const std::optional<std::string>& hash, const std::optional<std::string>& approved) {
  if (!approved) return approval_status::none;
  return hash && hashes_equal(*hash, *approved) ? approval_status::approved : approval_status::stale;
}

}  // namespace

result<agents_view> load_agents(web_app& app, std::string_view ws, std::string_view app_id, source_scope scope) {
  auto& gov = app.db.governance();
  agents_view view;
  view.scope = scope;
  auto text = gov.snapshot_file(ws, app_id, scope, agents_json_path);
  if (!text) return tl::unexpected(text.error());
  view.text = *text;
  if (view.text) {
    auto setup = gov.snapshot_file(ws, app_id, scope, integration_setup_path);
    if (!setup) return tl::unexpected(setup.error());
    auto report = validate_with_setup(*view.text, *setup);
    view.config = std::move(report.config);
    view.problems = std::move(report.problems);
    if (auto h = approval_hash_of(*view.text)) view.hash = h->hash;
  } else {
    view.problems = agents_config_missing().problems;
  }
  auto published = gov.publication(ws, app_id);
  if (!published) return tl::unexpected(published.error());
  view.publication = *published;
  if (scope == source_scope::published) {
    if (view.publication) view.approval = view.publication->approval;
  } else {
    auto approved = gov.approval(ws, app_id);
    if (!approved) return tl::unexpected(approved.error());
    view.approval = *approved;
  }
  view.status = status_of(view.hash, view.approval ? std::optional<std::string>(view.approval->hash) : std::nullopt);
  return view;
}

result<bool> tools_allowed(web_app& app, std::string_view ws, std::string_view app_id, source_scope scope) {
  auto& gov = app.db.governance();
  if (scope == source_scope::published) {
    auto p = gov.publication(ws, app_id);
    if (!p) return tl::unexpected(p.error());
    return p->has_value();
  }
  auto approved = gov.approval(ws, app_id);
  if (!approved) return tl::unexpected(approved.error());
  if (!*approved) return false;
  auto head = gov.head(ws, app_id, source_scope::draft);
  if (!head) return tl::unexpected(head.error());
  return *head && (*head)->agents_hash && hashes_equal(*(*head)->agents_hash, (*approved)->hash);
}

result<source_files> source_files_of(web_app& app, std::string_view ws, std::string_view app_id, source_scope scope) {
  return app.db.governance().snapshot_files(ws, app_id, scope);
}

result<std::optional<approved_policy>> approved_payload(web_app& app, std::string_view ws, std::string_view app_id,
                                                        source_scope scope) {
  auto& gov = app.db.governance();
  std::optional<agents_approval> approval;
  if (scope == source_scope::published) {
    auto p = gov.publication(ws, app_id);
    if (!p) return tl::unexpected(p.error());
    if (*p) approval = (*p)->approval;
  } else {
    // The approval read first, then compared with the draft: the payload returned is exactly
    // the one whose hash the draft carries.
    auto a = gov.approval(ws, app_id);
    if (!a) return tl::unexpected(a.error());
    auto head = gov.head(ws, app_id, source_scope::draft);
    if (!head) return tl::unexpected(head.error());
    bool current = *a && *head && (*head)->agents_hash && hashes_equal(*(*head)->agents_hash, (*a)->hash);
    if (current) approval = *a;
  }
  if (!approval) return std::optional<approved_policy>();
  auto report = validate_agents_config(approval->normalized_payload_json);
  if (!report.config) return fail(api_error::approval_invalid, "the approved agents.json payload no longer validates");
  return std::optional<approved_policy>(
      approved_policy{approval->hash, approval->normalized_payload_json, std::move(*report.config)});
}

result<bool> sync_draft_from_worker(store& db, const worker_client& worker, std::string_view ws,
                                    std::string_view app_id, std::int64_t now, std::string_view capability,
                                    source_files* out) {
  auto files = worker.source_snapshot(app_id, capability);
  if (!files) return tl::unexpected(files.error());
  if (!*files) return false;
  auto head = db.governance().replace_draft(ws, app_id, **files, now);
  if (!head) return tl::unexpected(head.error());
  if (out) *out = std::move(**files);
  return true;
}

}  // namespace platform::web
