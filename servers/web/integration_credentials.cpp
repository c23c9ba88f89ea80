// credentials_for: which grant or account a tool call may use. Only this app's grant for the
// tool's {domain, keySlug} is read (never another app's), and for OAuth only the user's own
// account — the app's, else the workspace-wide one. The provider config comes from the
// operator, not the tool: a tool's own tokenUrl never receives the client secret.
#include "integration_credentials.hpp"
#include "platform/api_error.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <variant>

#include "chat_service.hpp"
#include "oauth_token.hpp"
#include "platform/placeholder.hpp"
#include "web_app.hpp"

namespace platform::web {

namespace {

// Tokens this close to expiry are refreshed first, so they do not expire on the way.
constexpr std::int64_t expiry_skew_ms = 60'000;

tool_credentials none() {
  tool_credentials c;
  c.secrets = [](std::string_view) { return std::optional<std::string>(); };
  return c;
}

tool_credentials mock(std::string reason) {
  auto c = none();
  c.mock_reason = std::move(reason);
  return c;
}

result<tool_credentials> static_credentials(web_app& app, const std::string& ws, const std::string& app_id,
                                            const tool& t) {
  auto usage = endpoint_placeholder_usage(*t.endpoint);
  // A broken template is the request builder's failure to report, with its own category.
  if (!usage || usage->secret_names.empty()) return none();
  const auto& in = *t.integration;
  auto secrets = app.db.integrations().grant_secrets({ws, app_id, in.domain, in.key_slug});
  if (!secrets) return tl::unexpected(secrets.error());
  for (const auto& name : usage->secret_names) {
    if (!secrets->contains(name)) {
      return mock("integration not configured: secret " + name + " of " + in.domain + " (" + in.key_slug +
                  ") is not set for this app");
    }
  }
  auto values = std::make_shared<const std::map<std::string, std::string>>(std::move(*secrets));
  tool_credentials c;
  c.secrets = [values](std::string_view name) -> std::optional<std::string> {
    auto it = values->find(std::string(name));
    if (it == values->end()) return std::nullopt;
    return it->second;
  };
  return c;
}

// The user's account for the provider: this app's, else the workspace-wide one.
result<std::optional<oauth_account>> find_account(web_app& app, const std::string& ws, const std::string& app_id,
                                                  const std::string& provider, const std::string& user_id) {
  auto own = app.db.integrations().get_account({ws, app_id, provider, user_id});
  if (!own || *own) return own;
  return app.db.integrations().get_account({ws, "", provider, user_id});
}

bool has_scopes(const oauth_account& a, const std::vector<std::string>& required) {
  return std::all_of(required.begin(), required.end(), [&](const std::string& s) {
    return std::find(a.tokens.scopes.begin(), a.tokens.scopes.end(), s) != a.tokens.scopes.end();
  });
}

bool expired(const oauth_account& a, std::int64_t now) {
  return a.tokens.expires_at != 0 && a.tokens.expires_at - expiry_skew_ms <= now;
}

// Refreshes an expired account once. Another replica may refresh the same account at the same
// time: the conditional store keeps one result, and the loser uses the stored winner.
result<std::variant<oauth_account, std::string>> refreshed(web_app& app, const oauth_provider_config& provider,
                                                           oauth_account a, std::int64_t now) {
  using out = std::variant<oauth_account, std::string>;
  if (!a.tokens.refresh_token) return out(std::string("OAuth token expired and there is no refresh token: reconnect the account"));
  auto fresh = refresh_tokens(app, provider, *a.tokens.refresh_token, a.tokens.scopes, now);
  if (!fresh && is(fresh.error(), api_error::oauth_token_refused)) {
    return out(std::string("OAuth token expired and the provider refused the refresh: reconnect the account"));
  }
  if (!fresh) return tl::unexpected(fresh.error());
  auto stored = app.db.integrations().replace_tokens(a.key, a.version, *fresh, now);
  if (!stored) return tl::unexpected(stored.error());
  if (*stored) {
    a.tokens = std::move(*fresh);
    return out(std::move(a));
  }
  auto winner = app.db.integrations().get_account(a.key);
  if (!winner) return tl::unexpected(winner.error());
  if (!*winner || (*winner)->revoked) return out(std::string("OAuth account revoked"));
  return out(std::move(**winner));
}

result<tool_credentials> oauth_credentials(web_app& app, const std::string& ws, const std::string& app_id,
                                           const oauth2_auth& auth, const std::string& user_id) {
  auto provider = app.db.integrations().get_provider(ws, auth.provider_key);
  if (!provider) return tl::unexpected(provider.error());
  if (!*provider) return mock("OAuth provider " + auth.provider_key + " is not configured for this workspace");
  if (user_id.empty()) return mock("OAuth account not connected: no user to act for");
  auto account = find_account(app, ws, app_id, auth.provider_key, user_id);
  if (!account) return tl::unexpected(account.error());
  if (!*account) return mock("OAuth account for " + auth.provider_key + " is not connected for this user");
  if ((*account)->revoked) return mock("OAuth account for " + auth.provider_key + " was revoked: reconnect it");
  if (!has_scopes(**account, auth.scopes)) {
    return mock("OAuth account for " + auth.provider_key + " lacks required scopes: reconnect with them");
  }
  oauth_account usable = std::move(**account);
  if (std::int64_t now = now_ms(); expired(usable, now)) {
    auto r = refreshed(app, **provider, std::move(usable), now);
    if (!r) return tl::unexpected(r.error());
    if (auto* reason = std::get_if<std::string>(&*r)) return mock(std::move(*reason));
    usable = std::get<oauth_account>(std::move(*r));
  }
  auto c = none();
  c.oauth_access_token = std::move(usable.tokens.access_token);
  return c;
}

}  // namespace

result<tool_credentials> credentials_for(web_app& app, const std::string& ws, const std::string& app_id,
                                         const platform::tool& t, const std::string& user_id) {
  if (t.type != tool_type::custom || !t.integration || !t.endpoint) return none();
  if (t.integration->oauth2) return oauth_credentials(app, ws, app_id, *t.integration->oauth2, user_id);
  return static_credentials(app, ws, app_id, t);
}

}  // namespace platform::web
