#include "access.hpp"

#include <algorithm>

#include "auth.hpp"
#include "http.hpp"
#include "web_app.hpp"

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
    send(res, a.error());
    return std::nullopt;
  }
  if (!*a) {
    send(res, api_error::not_found, "no such app in this workspace");
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

bool secure_cookies(const web_app& app, const httplib::Request& req) {
  return req.get_header_value("X-Forwarded-Proto") == "https" ||
         std::any_of(app.cfg.public_origins.begin(), app.cfg.public_origins.end(),
                     [](const std::string& o) { return o.rfind("https://", 0) == 0; });
}

}  // namespace platform::web
