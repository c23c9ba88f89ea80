#include "auth.hpp"

#include <chrono>

#include "../common/request_checks.hpp"
#include "chat_service.hpp"
#include "http.hpp"
#include "platform/api_error.hpp"

namespace platform::web {

namespace {

std::string bearer_of(const httplib::Request& req) {
  std::string h = req.get_header_value("Authorization");
  if (h.rfind("Bearer ", 0) == 0) return h.substr(7);
  return {};
}

}  // namespace

std::string cookie_of(const httplib::Request& req, std::string_view name) {
  std::string all = req.get_header_value("Cookie");
  std::size_t pos = 0;
  while (pos < all.size()) {
    std::size_t end = all.find(';', pos);
    if (end == std::string::npos) end = all.size();
    std::string_view part(all.data() + pos, end - pos);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    if (part.size() > name.size() && part.substr(0, name.size()) == name && part[name.size()] == '=') {
      return std::string(part.substr(name.size() + 1));
    }
    pos = end + 1;
  }
  return {};
}

authenticator::authenticator(const config& cfg, store& db) : cfg_(cfg), db_(db) {
  keys_.hs256_secret = cfg.jwt_hs256_secret;
  keys_.rs256_public_pem = cfg.jwt_rs256_public_key_pem;
  keys_.issuer = cfg.jwt_issuer;
  keys_.audience = cfg.jwt_audience;
}

result<identity> authenticator::identity_of(const httplib::Request& req) const {
  if (cfg_.auth == auth_mode::none) return identity{std::string(local_user_id), "owner@localhost", "Local owner"};
  std::string token = bearer_of(req);
  if (token.empty()) token = cookie_of(req, "platform_session");
  if (token.empty()) return fail(api_error::unauthenticated, "sign in first: no identity token was sent");
  auto who = verify_identity_token(token, keys_, now_ms() / 1000);
  if (!who) return fail(api_error::unauthenticated, who.error().message);
  (void)db_.put_user({who->user_id, who->email, who->name});
  return *who;
}

std::optional<identity> authenticator::identify(const httplib::Request& req, httplib::Response& res) const {
  auto who = identity_of(req);
  if (!who) {
    send(res, who.error());
    return std::nullopt;
  }
  return std::move(*who);
}

bool authenticator::internal_allowed(const httplib::Request& req, httplib::Response& res) const {
  return servers::internal_caller_allowed(req, res, cfg_.internal_token);
}

result<void> authenticator::bootstrap_local() const {
  if (auto r = db_.put_user({std::string(local_user_id), "owner@localhost", "Local owner"}); !r) return r;
  if (auto r = db_.put_workspace(local_workspace_id, "Default workspace", now_ms()); !r) return r;
  return db_.set_membership(local_workspace_id, local_user_id, workspace_role::owner);
}

std::optional<workspace_role> member_role(store& db, std::string_view workspace_id, const identity& who,
                                          httplib::Response& res) {
  auto role = db.membership(workspace_id, who.user_id);
  if (!role) {
    send(res, role.error());
    return std::nullopt;
  }
  if (!*role) {
    send(res, api_error::not_found, "no such workspace");
    return std::nullopt;
  }
  return *role;
}

}  // namespace platform::web
