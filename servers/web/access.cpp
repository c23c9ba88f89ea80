#include "access.hpp"

#include "auth.hpp"
#include "http.hpp"
#include "routes.hpp"

namespace platform::web {

std::optional<caller> authorize(web_app& app, const httplib::Request& req, httplib::Response& res,
                                std::string_view workspace_id) {
  auto who = app.auth.identify(req, res);
  if (!who) return std::nullopt;
  auto role = member_role(app.db, workspace_id, *who, res);
  if (!role) return std::nullopt;
  return caller{*who, *role};
}

std::optional<app_record> load_app(web_app& app, std::string_view ws, std::string_view app_id, httplib::Response& res) {
  auto a = app.db.get_app(ws, app_id);
  if (!a) {
    send_store_error(res, a.error());
    return std::nullopt;
  }
  if (!*a) {
    send_error(res, 404, "not_found", "no such app in this workspace");
    return std::nullopt;
  }
  return *a;
}

bool can_edit(workspace_role role) { return role != workspace_role::viewer; }

bool is_admin_or_owner(workspace_role role) { return role == workspace_role::admin || role == workspace_role::owner; }

bool can_patch_agents(const caller& c, const app_record& app) {
  return is_admin_or_owner(c.role) || c.who.user_id == app.created_by;
}

// A viewer who created the app (a demoted creator) still reads its draft: the creator is a
// role of its own in the spec.
bool reads_draft(const caller& c, const app_record& app) { return can_edit(c.role) || c.who.user_id == app.created_by; }

std::string id_pattern_regex(std::string_view pattern) {
  std::string out;
  for (std::size_t at = 0; at < pattern.size();) {
    if (pattern.substr(at, 2) == "{}") {
      out += "([A-Za-z0-9_-]{1,128})";
      at += 2;
    } else {
      out += pattern[at++];
    }
  }
  return out;
}

void on_body_route(httplib::Server& s, std::string_view method, std::string_view pattern, web_app& app,
                   app_handler fn) {
  auto handler = [&app, fn](const httplib::Request& req, httplib::Response& res) {
    path_ids ids(req.matches.begin() + 1, req.matches.end());
    fn(app, req, res, ids);
  };
  std::string re = id_pattern_regex(pattern);
  if (method == "POST") s.Post(re, handler);
  else if (method == "PUT") s.Put(re, handler);
  else if (method == "PATCH") s.Patch(re, handler);
  else if (method == "DELETE") s.Delete(re, handler);
}

void on_get_route(router& r, std::string_view pattern, web_app& app, app_handler fn) {
  r.get(pattern, [&app, fn](const httplib::Request& req, httplib::Response& res, const path_ids& ids) {
    fn(app, req, res, ids);
  });
}

}  // namespace platform::web
