#include "version_routes.hpp"

#include <charconv>

#include <nlohmann/json.hpp>

#include "events.hpp"
#include "http.hpp"
#include "numbered_page.hpp"
#include "previews.hpp"
#include "platform/text_diff.hpp"
#include "web_app.hpp"

namespace platform::web::version_routes {
namespace {

using nlohmann::json;

json summary_json(const app_version& v) {
  return {{"number", v.number},
          {"createdAt", v.created_at},
          {"runId", v.origin.run_id.empty() ? json(nullptr) : json(v.origin.run_id)},
          {"request", v.origin.request},
          {"runtimeId", v.origin.runtime_id},
          {"askedBy", v.origin.asked_by},
          {"restoredFrom", v.origin.restored_from ? json(*v.origin.restored_from) : json(nullptr)},
          {"sourceDigest", v.source_digest},
          {"buildDigest", v.build_digest ? json(*v.build_digest) : json(nullptr)},
          {"fileCount", v.file_count},
          {"totalBytes", v.total_bytes},
          {"changes", {{"added", v.changes.added}, {"removed", v.changes.removed}, {"modified", v.changes.modified}}}};
}

// The path's {version} of the app, or the 404 already written.
std::optional<app_version> version_of(web_app& app, const route_call& call, httplib::Response& res) {
  auto n = positive_number(call.ids.at(2));
  if (!n) return send(res, api_error::not_found, "no such version of this app"), std::nullopt;
  auto v = app.db.versions().get(call.ids.at(0), call.ids.at(1), *n);
  if (!v) return send(res, v.error()), std::nullopt;
  if (!*v) return send(res, api_error::not_found, "no such version of this app"), std::nullopt;
  return std::move(**v);
}

}  // namespace

void list_versions(web_app& app, const route_call& call, httplib::Response& res) {
  auto page = numbered_page_of(call.req, res);
  if (!page) return;
  auto listed = app.db.versions().list(call.ids.at(0), call.ids.at(1), *page);
  if (!listed) return send(res, listed.error());
  send_json(res, 200, numbered_page_json(*listed, *page, summary_json).dump());
}

void get_version(web_app& app, const route_call& call, httplib::Response& res) {
  auto v = version_of(app, call, res);
  if (!v) return;
  json out = summary_json(*v);
  json files = json::array();
  for (const auto& [path, bytes] : v->sizes) files.push_back({{"path", path}, {"bytes", bytes}});
  out["files"] = std::move(files);
  send_json(res, 200, out.dump());
}

void get_version_file(web_app& app, const route_call& call, httplib::Response& res) {
  auto v = version_of(app, call, res);
  if (!v) return;
  const std::string path = call.req.get_param_value("path");
  auto it = v->manifest.find(path);
  if (it == v->manifest.end()) return send(res, api_error::not_found, "this version has no file at that path");
  auto content = app.db.versions().blob(it->second);
  if (!content) return send(res, content.error());
  if (!*content) return send(res, api_error::store_corrupt, "the version's file is missing from the store");
  send_json(res, 200, json({{"path", path}, {"content", **content}}).dump());
}

void get_version_diff(web_app& app, const route_call& call, httplib::Response& res) {
  auto to = version_of(app, call, res);
  if (!to) return;
  std::optional<std::int64_t> from_number = to->number > 1 ? std::optional<std::int64_t>(to->number - 1) : std::nullopt;
  if (auto from = call.req.get_param_value("from"); !from.empty()) {
    from_number = positive_number(from);
    if (!from_number) return send(res, api_error::invalid_body, "from must be a version number");
  }
  app_version before;
  if (from_number) {
    auto v = app.db.versions().get(call.ids.at(0), call.ids.at(1), *from_number);
    if (!v) return send(res, v.error());
    if (!*v) return send(res, api_error::not_found, "no such version of this app to compare with");
    before = std::move(**v);
  }
  auto text_of = [&](const std::string& digest) -> result<std::string> {
    auto c = app.db.versions().blob(digest);
    if (!c) return tl::unexpected(c.error());
    return c->value_or(std::string());
  };
  json files = json::array();
  auto add = [&](const std::string& path, const char* status, const std::string& a, const std::string& b) {
    text_diff d = unified_diff(a, b);
    json f = {{"path", path}, {"status", status}, {"additions", d.additions}, {"deletions", d.deletions}, {"diff", d.hunks}};
    if (d.too_large) f["tooLarge"] = true;
    files.push_back(std::move(f));
  };
  // One walk over both manifests in path order: the file list comes out sorted.
  auto a = before.manifest.begin();
  auto b = to->manifest.begin();
  while (a != before.manifest.end() || b != to->manifest.end()) {
    bool take_a = b == to->manifest.end() || (a != before.manifest.end() && a->first < b->first);
    bool take_b = a == before.manifest.end() || (b != to->manifest.end() && b->first < a->first);
    if (take_a) {
      auto old_text = text_of(a->second);
      if (!old_text) return send(res, old_text.error());
      add(a->first, "removed", *old_text, "");
      ++a;
    } else if (take_b) {
      auto new_text = text_of(b->second);
      if (!new_text) return send(res, new_text.error());
      add(b->first, "added", "", *new_text);
      ++b;
    } else {
      if (a->second != b->second) {
        auto old_text = text_of(a->second);
        auto new_text = text_of(b->second);
        if (!old_text || !new_text) return send(res, old_text ? new_text.error() : old_text.error());
        add(b->first, "modified", *old_text, *new_text);
      }
      ++a, ++b;
    }
  }
  send_json(res, 200, json({{"from", from_number ? json(*from_number) : json(nullptr)}, {"to", to->number}, {"files", std::move(files)}}).dump());
}

void restore_version(web_app& app, const route_call& call, httplib::Response& res) {
  const app_record& a = *call.app;
  auto from = version_of(app, call, res);
  if (!from) return;
  auto streaming = app.db.streaming_builder_runs(a.workspace_id);
  if (!streaming) return send(res, streaming.error());
  for (const auto& r : *streaming) {
    if (r.key.app_id == a.id) {
      return send(res, api_error::app_busy,
                        "the builder is working on this app: stop its turn or let it finish, then restore the version");
    }
  }
  auto files = app.db.versions().files(a.workspace_id, a.id, from->number);
  if (!files) return send(res, files.error());
  if (!*files) return send(res, api_error::not_found, "no such version of this app");
  const std::int64_t now = now_ms();
  if (auto draft = app.db.governance().replace_draft(a.workspace_id, a.id, **files, now); !draft) {
    return send(res, draft.error());
  }
  const std::string label = "Restored version " + std::to_string(from->number);
  const version_origin origin{"", label, "", call.by->who.user_id, from->number};
  auto made = app.db.versions().record(a.workspace_id, a.id, **files, origin, from->build_digest, now);
  if (!made) return send(res, made.error());
  // The draft preview shows that version's build, when it had one still stored.
  if (from->build_digest) {
    auto stored = app.db.previews().has_build(*from->build_digest);
    if (stored && *stored) (void)app.db.previews().set_app_preview(a.workspace_id, a.id, source_scope::draft, *from->build_digest, now, {"", label});
  }
  publish_app_event(app.cache, "app.restored", a.workspace_id, a.id);
  send_json(res, 200, summary_json(**made).dump());
}

}  // namespace platform::web::version_routes
