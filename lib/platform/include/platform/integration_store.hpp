#pragma once
// Integration grants and credentials (spec "integration-setup.json", "Custom tool and app action
// execution rules", "Builder integration flow"):
// - static secrets by NAME in an app-scoped grant {workspace, app, domain, keySlug}: another
//   app's grant never satisfies this app, so no lookup here crosses apps;
// - OAuth provider configs per {workspace, providerKey} (client id and secret, authorization
//   and token URLs): the operator's, never the tool's, URLs receive the client secret;
// - per-user connected accounts per {workspace, app ("" = the whole workspace), providerKey,
//   user} with their tokens, granted scopes and a revoked flag;
// - one-time OAuth connect states (CSRF and PKCE), bound to user, app and provider;
// - the integration requirements the builder synced for an app, replaced as a whole set.
// Secret values, client secrets, tokens and PKCE verifiers are sealed (secret_box.hpp) before
// they reach the database; reads open them. Nothing else leaves the store in plaintext form
// because nothing else is secret.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/error.hpp"
#include "platform/secret_box.hpp"

namespace platform {

struct grant_key {
  std::string workspace_id;
  std::string app_id;
  std::string domain;
  std::string key_slug = "default";
};

// A grant's metadata: which secret NAMEs are configured, never their values.
struct grant_summary {
  std::string domain;
  std::string key_slug;
  std::vector<std::string> secret_names;  // sorted
  std::int64_t updated_at = 0;
};

struct oauth_provider_config {
  std::string workspace_id;
  std::string provider_key;
  std::string client_id;
  std::string client_secret;  // plaintext in memory only; empty from provider_summaries()
  std::string authorization_url;
  std::string token_url;
  std::int64_t updated_at = 0;
};

struct oauth_account_key {
  std::string workspace_id;
  std::string app_id;  // "" = connected for every app of the workspace
  std::string provider_key;
  std::string user_id;
};

struct oauth_tokens {
  std::string access_token;
  std::optional<std::string> refresh_token;
  std::int64_t expires_at = 0;  // ms since the epoch; 0 = the provider gave no lifetime
  std::vector<std::string> scopes;
};

struct oauth_account {
  oauth_account_key key;
  oauth_tokens tokens;     // empty tokens when revoked
  bool revoked = false;
  std::int64_t version = 0;  // bumped by every token change: refreshes race on it
  std::int64_t updated_at = 0;
};

// A connect attempt between GET .../connect and the provider's callback.
struct oauth_connect_state {
  std::string state;  // the random value sent to the provider
  std::string workspace_id;
  std::string app_id;
  std::string provider_key;
  std::string user_id;
  std::string code_verifier;  // PKCE
  std::string redirect_uri;
  std::vector<std::string> scopes;
  std::int64_t expires_at = 0;
};

// One integration of the builder's integration-setup.json, as synced.
struct integration_requirement {
  std::string domain;
  std::string key_slug = "default";
  std::string name;
  std::string setup_json;  // the normalized integrations[] entry: metadata, no values
  std::string run_id;      // the builder run that synced it
  std::int64_t updated_at = 0;
};

// Errors as store.hpp's, plus `secrets_key_missing` (no key installed) and
// `secret_unreadable` (a value sealed under another key).
class integration_store {
 public:
  virtual ~integration_store() = default;

  // The key values are sealed under. Installed once at start-up, before the server serves.
  virtual void install_secrets_key(const secrets_key& key) = 0;

  // ---- static secrets ------------------------------------------------------------------------
  virtual result<void> put_secret(const grant_key& grant, std::string_view name, std::string_view value,
                                  std::int64_t now) = 0;
  virtual result<bool> delete_secret(const grant_key& grant, std::string_view name) = 0;  // false: none
  // Every secret of exactly this grant, opened (name → value).
  virtual result<std::map<std::string, std::string>> grant_secrets(const grant_key& grant) = 0;
  virtual result<std::vector<grant_summary>> grants(std::string_view ws, std::string_view app_id) = 0;

  // ---- OAuth providers -----------------------------------------------------------------------
  virtual result<void> put_provider(const oauth_provider_config& p) = 0;  // insert or replace
  virtual result<bool> delete_provider(std::string_view ws, std::string_view provider_key) = 0;
  virtual result<std::optional<oauth_provider_config>> get_provider(std::string_view ws,
                                                                    std::string_view provider_key) = 0;
  virtual result<std::vector<oauth_provider_config>> provider_summaries(std::string_view ws) = 0;

  // ---- connected accounts --------------------------------------------------------------------
  // Connects (or reconnects, clearing revoked) with fresh tokens.
  virtual result<void> put_account(const oauth_account_key& key, const oauth_tokens& tokens, std::int64_t now) = 0;
  virtual result<std::optional<oauth_account>> get_account(const oauth_account_key& key) = 0;
  // A refresh: stores `tokens` only while the account is still at `expected_version` and not
  // revoked (one conditional UPDATE). false: another refresh or a disconnect came first.
  virtual result<bool> replace_tokens(const oauth_account_key& key, std::int64_t expected_version,
                                      const oauth_tokens& tokens, std::int64_t now) = 0;
  // Marks revoked and forgets the tokens. false: no such account.
  virtual result<bool> revoke_account(const oauth_account_key& key, std::int64_t now) = 0;
  // Accounts usable by an app (its own and the workspace-wide ones), tokens left empty.
  virtual result<std::vector<oauth_account>> account_summaries(std::string_view ws, std::string_view app_id) = 0;

  // ---- OAuth connect states ------------------------------------------------------------------
  virtual result<void> put_connect_state(const oauth_connect_state& s) = 0;
  // Consumes the state: a second call, or one after expires_at, finds nothing.
  virtual result<std::optional<oauth_connect_state>> take_connect_state(std::string_view state, std::int64_t now) = 0;

  // ---- integration requirements --------------------------------------------------------------
  // Replaces this app's whole set in one transaction.
  virtual result<void> replace_requirements(std::string_view ws, std::string_view app_id,
                                            const std::vector<integration_requirement>& set) = 0;
  virtual result<std::vector<integration_requirement>> requirements(std::string_view ws, std::string_view app_id) = 0;
};

}  // namespace platform
