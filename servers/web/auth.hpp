#pragma once
// Who is asking (spec "Authentication"): PLATFORM_AUTH_MODE=none gives the one local owner;
// external verifies the identity token on every request. Roles come from the store.
#include <httplib.h>

#include <optional>
#include <string>

#include "platform/identity_token.hpp"
#include "platform/store.hpp"
#include "web_config.hpp"

namespace platform::web {

inline constexpr std::string_view local_user_id = "local-owner";
inline constexpr std::string_view local_workspace_id = "default";

class authenticator {
 public:
  authenticator(const config& cfg, store& db);

  // The caller's identity, or a 401 already written to `res`. A first request of an
  // external user records the user (id, email, name) in the store.
  std::optional<identity> identify(const httplib::Request& req, httplib::Response& res) const;
  // The same without writing the 401 (`unauthenticated`), for a route that has another way to
  // know the caller (the OAuth callback: the attempt cookie of the browser that started it).
  result<identity> identity_of(const httplib::Request& req) const;

  // Internal routes: `Authorization: Bearer INTERNAL_API_TOKEN`; without a token (only local
  // development allows that) loopback callers only. Writes 401 when refused.
  bool internal_allowed(const httplib::Request& req, httplib::Response& res) const;

  // Creates the local owner and the default workspace (auth mode none).
  result<void> bootstrap_local() const;

 private:
  const config& cfg_;
  store& db_;
  identity_token_keys keys_;
};

// The value of cookie `name` in the request's Cookie header, or "".
std::string cookie_of(const httplib::Request& req, std::string_view name);

// The caller's role in a workspace; writes 404 (not a member: the workspace is not revealed)
// or 503 and returns nullopt.
std::optional<workspace_role> member_role(store& db, std::string_view workspace_id, const identity& who,
                                          httplib::Response& res);

}  // namespace platform::web
