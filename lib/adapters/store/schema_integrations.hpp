#pragma once
// Integration grants, OAuth providers and accounts, connect states, requirements: migrations
// 400-499. Never edited once released. Columns named *_sealed hold secret_box values only.
#include <vector>

#include "schema.hpp"

namespace platform::sql {

inline const std::vector<migration>& integrations_migrations() {
  static const std::vector<migration> all = {
      {400,
       {
           "CREATE TABLE integration_secrets (workspace_id TEXT NOT NULL, app_id TEXT NOT NULL, "
           "domain TEXT NOT NULL, key_slug TEXT NOT NULL, name TEXT NOT NULL, value_sealed TEXT NOT NULL, "
           "updated_at BIGINT NOT NULL, PRIMARY KEY (workspace_id, app_id, domain, key_slug, name))",
           "CREATE TABLE oauth_providers (workspace_id TEXT NOT NULL, provider_key TEXT NOT NULL, "
           "client_id TEXT NOT NULL, client_secret_sealed TEXT NOT NULL, authorization_url TEXT NOT NULL, "
           "token_url TEXT NOT NULL, updated_at BIGINT NOT NULL, PRIMARY KEY (workspace_id, provider_key))",
           "CREATE TABLE oauth_accounts (workspace_id TEXT NOT NULL, app_id TEXT NOT NULL, "
           "provider_key TEXT NOT NULL, user_id TEXT NOT NULL, access_token_sealed TEXT NOT NULL DEFAULT '', "
           "refresh_token_sealed TEXT, expires_at BIGINT NOT NULL DEFAULT 0, scopes TEXT NOT NULL DEFAULT '', "
           "revoked BIGINT NOT NULL DEFAULT 0, version BIGINT NOT NULL DEFAULT 1, updated_at BIGINT NOT NULL, "
           "PRIMARY KEY (workspace_id, app_id, provider_key, user_id))",
           "CREATE TABLE oauth_connect_states (state TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, "
           "app_id TEXT NOT NULL, provider_key TEXT NOT NULL, user_id TEXT NOT NULL, "
           "code_verifier_sealed TEXT NOT NULL, redirect_uri TEXT NOT NULL, scopes TEXT NOT NULL DEFAULT '', "
           "expires_at BIGINT NOT NULL)",
           "CREATE INDEX oauth_connect_states_by_expiry ON oauth_connect_states (expires_at)",
           "CREATE TABLE integration_requirements (workspace_id TEXT NOT NULL, app_id TEXT NOT NULL, "
           "domain TEXT NOT NULL, key_slug TEXT NOT NULL, name TEXT NOT NULL, setup TEXT NOT NULL, "
           "run_id TEXT NOT NULL DEFAULT '', updated_at BIGINT NOT NULL, "
           "PRIMARY KEY (workspace_id, app_id, domain, key_slug))",
       }},
  };
  return all;
}

}  // namespace platform::sql
