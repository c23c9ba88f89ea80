#include "version_export_routes.hpp"

#include <map>

#include "http.hpp"
#include "numbered_page.hpp"
#include "platform/git_bundle.hpp"
#include "platform/zip_archive.hpp"
#include "web_app.hpp"

namespace platform::web::version_export_routes {
namespace {

// The app's name as a file name: lowercase letters, digits and dashes ("app" when none is left).
std::string file_name_of(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    bool keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (keep) out += c;
    else if (!out.empty() && out.back() != '-') out += '-';
    if (out.size() >= 60) break;
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "app" : out;
}

void send_download(httplib::Response& res, std::string bytes, const std::string& type, const std::string& file) {
  res.status = 200;
  res.set_header("Content-Disposition", "attachment; filename=\"" + file + "\"");
  res.set_header("Cache-Control", "no-store");
  res.set_content(std::move(bytes), type);
}

// Every file of a version by its manifest, each content read once across versions.
result<std::map<std::string, std::string>> files_of(web_app& app, const app_version& v, std::map<std::string, std::string>& blobs) {
  std::map<std::string, std::string> out;
  for (const auto& [path, digest] : v.manifest) {
    auto known = blobs.find(digest);
    if (known == blobs.end()) {
      auto content = app.db.versions().blob(digest);
      if (!content) return tl::unexpected(content.error());
      if (!*content) return fail(api_error::store_corrupt, "a version's file is missing from the store");
      known = blobs.emplace(digest, std::move(**content)).first;
    }
    out[path] = known->second;
  }
  return out;
}

}  // namespace

void get_version_zip(web_app& app, const route_call& call, httplib::Response& res) {
  auto n = positive_number(call.ids.at(2));
  if (!n) return send(res, api_error::not_found, "no such version of this app");
  auto v = app.db.versions().get(call.ids.at(0), call.ids.at(1), *n);
  if (!v) return send(res, v.error());
  if (!*v) return send(res, api_error::not_found, "no such version of this app");
  std::map<std::string, std::string> blobs;
  auto files = files_of(app, **v, blobs);
  if (!files) return send(res, files.error());
  std::vector<zip_entry> entries;
  for (auto& [path, bytes] : *files) entries.push_back({path, std::move(bytes)});
  const std::string folder = file_name_of(call.app->name) + "-v" + std::to_string(*n);
  send_download(res, zip_archive(entries, (*v)->created_at / 1000, folder), "application/zip", folder + ".zip");
}

void get_history_bundle(web_app& app, const route_call& call, httplib::Response& res) {
  const auto& ws = call.ids.at(0);
  const auto& app_id = call.ids.at(1);
  // Oldest first: the list is newest first, a page at a time.
  std::vector<app_version> all;
  version_page page{max_numbered_page, std::nullopt};
  for (;;) {
    auto listed = app.db.versions().list(ws, app_id, page);
    if (!listed) return send(res, listed.error());
    all.insert(all.end(), listed->begin(), listed->end());
    if (static_cast<std::int64_t>(listed->size()) < page.limit) break;
    page.before = listed->back().number;
  }
  if (all.empty()) return send(res, api_error::not_found, "this app has no versions yet: its first builder turn that changes a file makes one");
  std::map<std::string, std::string> blobs;
  std::map<std::string, user_record> people;
  std::vector<git_commit_input> commits;
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    auto v = app.db.versions().get(ws, app_id, it->number);
    if (!v) return send(res, v.error());
    if (!*v) continue;  // pruned meanwhile
    auto files = files_of(app, **v, blobs);
    if (!files) return send(res, files.error());
    const std::string& asked = (*v)->origin.asked_by;
    if (!people.contains(asked)) {
      auto u = app.db.get_user(asked);
      people[asked] = u && *u ? **u : user_record{asked, asked + "@users.invalid", asked};
    }
    const auto& who = people[asked];
    std::string message = (*v)->origin.request.empty() ? "Version " + std::to_string((*v)->number) : (*v)->origin.request;
    message += "\n\nVersion: " + std::to_string((*v)->number) + "\n";
    if (!(*v)->origin.run_id.empty()) message += "Run: " + (*v)->origin.run_id + "\n";
    if ((*v)->origin.restored_from) message += "Restored-From: " + std::to_string(*(*v)->origin.restored_from) + "\n";
    commits.push_back({std::move(*files), std::move(message), who.name.empty() ? who.id : who.name,
                       who.email.empty() ? who.id + "@users.invalid" : who.email, (*v)->created_at / 1000});
  }
  send_download(res, git_bundle(commits), "application/x-git-bundle", file_name_of(call.app->name) + ".bundle");
}

}  // namespace platform::web::version_export_routes
