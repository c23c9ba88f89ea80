#pragma once
// The key integration credentials are sealed under (platform/secret_box.hpp).
// PLATFORM_SECRETS_KEY (32 bytes, 64 hex digits or base64) when set; production requires it.
// Local development without it uses <data_dir>/secrets.key, created once with mode 0600 (a
// data dir moved elsewhere keeps opening its secrets; deleting the file makes them unreadable).
// Replicas sharing PostgreSQL must share the key: set the variable there.
#include "platform/error.hpp"
#include "platform/secret_box.hpp"
#include "web_config.hpp"

namespace platform::web {

result<secrets_key> load_secrets_key(const config& cfg);

// The key preview tokens are signed with: derived from the secrets key, so replicas sharing
// that key verify each other's preview links, and one key never serves two purposes.
std::string derive_preview_key(const secrets_key& key);
// The key of the runs' capabilities (run_capability.hpp).
std::string derive_run_capability_key(const secrets_key& key);
// The key each routine's webhook secret is derived from (with the routine's id and secret
// generation): no webhook secret is stored, and every replica computes the same one.
std::string derive_webhook_key(const secrets_key& key);

}  // namespace platform::web
