// platform::integration_store over sql_util's executor. Values are sealed with associated data
// naming their row (kind, workspace, app, ...), so a sealed value moved to another row — e.g.
// another app's grant — does not open there.
#include "sql_integration_store.hpp"

#include <algorithm>
#include <mutex>

#include "sql_util.hpp"
#include "platform/api_error.hpp"

namespace platform::sql {
namespace {

// Length-prefixed so that no two different part lists give the same bytes.
std::string aad(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (auto p : parts) out.append(std::to_string(p.size())).append(":").append(p).append("|");
  return out;
}

std::string join_scopes(const std::vector<std::string>& scopes) {
  std::string out;
  for (const auto& s : scopes) {
    if (!out.empty()) out.push_back(' ');
    out.append(s);
  }
  return out;
}

std::vector<std::string> split_scopes(std::string_view text) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < text.size()) {
    auto end = text.find(' ', i);
    if (end == std::string_view::npos) end = text.size();
    if (end > i) out.emplace_back(text.substr(i, end - i));
    i = end + 1;
  }
  return out;
}

std::string secret_aad(const grant_key& g, std::string_view name) {
  return aad({"secret", g.workspace_id, g.app_id, g.domain, g.key_slug, name});
}
std::string client_secret_aad(std::string_view ws, std::string_view provider) {
  return aad({"client_secret", ws, provider});
}
std::string token_aad(std::string_view which, const oauth_account_key& k) {
  return aad({which, k.workspace_id, k.app_id, k.provider_key, k.user_id});
}
std::string verifier_aad(std::string_view state) { return aad({"pkce", state}); }

params account_params(const oauth_account_key& k) {
  return {v(k.workspace_id), v(k.app_id), v(k.provider_key), v(k.user_id)};
}
constexpr std::string_view account_match = " WHERE workspace_id = ? AND app_id = ? AND provider_key = ? AND user_id = ?";

class sql_integration_store final : public integration_store {
 public:
  explicit sql_integration_store(std::shared_ptr<backend> db) : ex_(std::move(db)) {}

  void install_secrets_key(const secrets_key& key) override {
    std::lock_guard lock(key_mutex_);
    key_ = key;
  }

  // ---- static secrets ----

  result<void> put_secret(const grant_key& g, std::string_view name, std::string_view value, std::int64_t now) override {
    auto sealed = seal(value, secret_aad(g, name));
    if (!sealed) return tl::unexpected(sealed.error());
    return ex_.write(
        "INSERT INTO integration_secrets (workspace_id, app_id, domain, key_slug, name, value_sealed, updated_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (workspace_id, app_id, domain, key_slug, name) "
        "DO UPDATE SET value_sealed = excluded.value_sealed, updated_at = excluded.updated_at",
        {v(g.workspace_id), v(g.app_id), v(g.domain), v(g.key_slug), v(name), v(*sealed), v(now)});
  }

  result<bool> delete_secret(const grant_key& g, std::string_view name) override {
    auto n = ex_.exec_changes(
        "DELETE FROM integration_secrets WHERE workspace_id = ? AND app_id = ? AND domain = ? AND key_slug = ? "
        "AND name = ?",
        {v(g.workspace_id), v(g.app_id), v(g.domain), v(g.key_slug), v(name)});
    if (!n) return tl::unexpected(n.error());
    return *n > 0;
  }

  result<std::map<std::string, std::string>> grant_secrets(const grant_key& g) override {
    auto rows = ex_.query(
        "SELECT name, value_sealed FROM integration_secrets WHERE workspace_id = ? AND app_id = ? AND domain = ? "
        "AND key_slug = ?",
        {v(g.workspace_id), v(g.app_id), v(g.domain), v(g.key_slug)});
    if (!rows) return tl::unexpected(rows.error());
    std::map<std::string, std::string> out;
    for (const auto& r : *rows) {
      auto name = to_text(r[0]);
      auto value = open(to_text(r[1]), secret_aad(g, name));
      if (!value) return tl::unexpected(value.error());
      out.emplace(std::move(name), std::move(*value));
    }
    return out;
  }

  result<std::vector<grant_summary>> grants(std::string_view ws, std::string_view app_id) override {
    auto rows = ex_.query(
        "SELECT domain, key_slug, name, updated_at FROM integration_secrets WHERE workspace_id = ? AND app_id = ? "
        "ORDER BY domain, key_slug, name",
        {v(ws), v(app_id)});
    if (!rows) return tl::unexpected(rows.error());
    std::vector<grant_summary> out;
    for (const auto& r : *rows) {
      if (out.empty() || out.back().domain != to_text(r[0]) || out.back().key_slug != to_text(r[1])) {
        out.push_back({to_text(r[0]), to_text(r[1]), {}, 0});
      }
      out.back().secret_names.push_back(to_text(r[2]));
      out.back().updated_at = std::max(out.back().updated_at, to_int(r[3]));
    }
    return out;
  }

  // ---- OAuth providers ----

  result<void> put_provider(const oauth_provider_config& p) override {
    auto sealed = seal(p.client_secret, client_secret_aad(p.workspace_id, p.provider_key));
    if (!sealed) return tl::unexpected(sealed.error());
    return ex_.write(
        "INSERT INTO oauth_providers (workspace_id, provider_key, client_id, client_secret_sealed, "
        "authorization_url, token_url, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (workspace_id, provider_key) DO UPDATE SET client_id = excluded.client_id, "
        "client_secret_sealed = excluded.client_secret_sealed, authorization_url = excluded.authorization_url, "
        "token_url = excluded.token_url, updated_at = excluded.updated_at",
        {v(p.workspace_id), v(p.provider_key), v(p.client_id), v(*sealed), v(p.authorization_url), v(p.token_url),
         v(p.updated_at)});
  }

  result<bool> delete_provider(std::string_view ws, std::string_view provider_key) override {
    auto n = ex_.exec_changes("DELETE FROM oauth_providers WHERE workspace_id = ? AND provider_key = ?",
                              {v(ws), v(provider_key)});
    if (!n) return tl::unexpected(n.error());
    return *n > 0;
  }

  result<std::optional<oauth_provider_config>> get_provider(std::string_view ws, std::string_view provider_key) override {
    auto rows = ex_.query(std::string(provider_select) + " WHERE workspace_id = ? AND provider_key = ?",
                          {v(ws), v(provider_key)});
    if (!rows) return tl::unexpected(rows.error());
    if (rows->empty()) return std::optional<oauth_provider_config>();
    auto p = read_provider(rows->front());
    auto secret = open(to_text(rows->front()[3]), client_secret_aad(p.workspace_id, p.provider_key));
    if (!secret) return tl::unexpected(secret.error());
    p.client_secret = std::move(*secret);
    return std::optional<oauth_provider_config>(std::move(p));
  }

  result<std::vector<oauth_provider_config>> provider_summaries(std::string_view ws) override {
    auto rows = ex_.query(std::string(provider_select) + " WHERE workspace_id = ? ORDER BY provider_key", {v(ws)});
    if (!rows) return tl::unexpected(rows.error());
    std::vector<oauth_provider_config> out;
    for (const auto& r : *rows) out.push_back(read_provider(r));
    return out;
  }

  // ---- connected accounts ----

  result<void> put_account(const oauth_account_key& k, const oauth_tokens& t, std::int64_t now) override {
    auto sealed = seal_tokens(k, t);
    if (!sealed) return tl::unexpected(sealed.error());
    params p = account_params(k);
    for (auto x : {v(sealed->first), value::of(sealed->second), v(t.expires_at), v(join_scopes(t.scopes)), v(now)}) {
      p.push_back(x);
    }
    return ex_.write(
        "INSERT INTO oauth_accounts (workspace_id, app_id, provider_key, user_id, access_token_sealed, "
        "refresh_token_sealed, expires_at, scopes, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (workspace_id, app_id, provider_key, user_id) DO UPDATE SET "
        "access_token_sealed = excluded.access_token_sealed, refresh_token_sealed = excluded.refresh_token_sealed, "
        "expires_at = excluded.expires_at, scopes = excluded.scopes, revoked = 0, "
        "version = oauth_accounts.version + 1, updated_at = excluded.updated_at",
        p);
  }

  result<std::optional<oauth_account>> get_account(const oauth_account_key& k) override {
    auto rows = ex_.query(std::string(account_select) + std::string(account_match), account_params(k));
    if (!rows) return tl::unexpected(rows.error());
    if (rows->empty()) return std::optional<oauth_account>();
    const auto& r = rows->front();
    auto a = read_account(r);
    if (!a.revoked) {
      auto access = open(to_text(r[4]), token_aad("access_token", k));
      if (!access) return tl::unexpected(access.error());
      a.tokens.access_token = std::move(*access);
      if (r[5]) {
        auto refresh = open(*r[5], token_aad("refresh_token", k));
        if (!refresh) return tl::unexpected(refresh.error());
        a.tokens.refresh_token = std::move(*refresh);
      }
    }
    return std::optional<oauth_account>(std::move(a));
  }

  result<bool> replace_tokens(const oauth_account_key& k, std::int64_t expected_version, const oauth_tokens& t,
                              std::int64_t now) override {
    auto sealed = seal_tokens(k, t);
    if (!sealed) return tl::unexpected(sealed.error());
    params p = {v(sealed->first), value::of(sealed->second), v(t.expires_at), v(join_scopes(t.scopes)), v(now)};
    for (auto& x : account_params(k)) p.push_back(std::move(x));
    p.push_back(v(expected_version));
    auto n = ex_.exec_changes(
        "UPDATE oauth_accounts SET access_token_sealed = ?, refresh_token_sealed = ?, expires_at = ?, scopes = ?, "
        "updated_at = ?, version = version + 1" +
            std::string(account_match) + " AND version = ? AND revoked = 0",
        p);
    if (!n) return tl::unexpected(n.error());
    return *n > 0;
  }

  result<bool> revoke_account(const oauth_account_key& k, std::int64_t now) override {
    params p = {v(now)};
    for (auto& x : account_params(k)) p.push_back(std::move(x));
    auto n = ex_.exec_changes(
        "UPDATE oauth_accounts SET revoked = 1, access_token_sealed = '', refresh_token_sealed = NULL, "
        "version = version + 1, updated_at = ?" +
            std::string(account_match),
        p);
    if (!n) return tl::unexpected(n.error());
    return *n > 0;
  }

  result<std::vector<oauth_account>> account_summaries(std::string_view ws, std::string_view app_id) override {
    auto rows = ex_.query(std::string(account_select) +
                              " WHERE workspace_id = ? AND (app_id = ? OR app_id = '') ORDER BY provider_key, user_id, app_id",
                          {v(ws), v(app_id)});
    if (!rows) return tl::unexpected(rows.error());
    std::vector<oauth_account> out;
    for (const auto& r : *rows) out.push_back(read_account(r));
    return out;
  }

  // ---- connect states ----

  result<void> put_connect_state(const oauth_connect_state& s) override {
    auto sealed = seal(s.code_verifier, verifier_aad(s.state));
    if (!sealed) return tl::unexpected(sealed.error());
    return ex_.in_transaction([&](connection& c) -> result<void> {
      // Abandoned attempts are swept here rather than by a timer: the store has no clock.
      auto swept = c.exec("DELETE FROM oauth_connect_states WHERE expires_at < ?", {v(s.expires_at - 86400000)});
      if (!swept) return tl::unexpected(swept.error());
      auto r = c.exec(
          "INSERT INTO oauth_connect_states (state, workspace_id, app_id, provider_key, user_id, code_verifier_sealed, "
          "redirect_uri, scopes, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
          {v(s.state), v(s.workspace_id), v(s.app_id), v(s.provider_key), v(s.user_id), v(*sealed), v(s.redirect_uri),
           v(join_scopes(s.scopes)), v(s.expires_at)});
      if (!r) return tl::unexpected(r.error());
      return {};
    });
  }

  result<std::optional<oauth_connect_state>> take_connect_state(std::string_view state, std::int64_t now) override {
    // DELETE ... RETURNING: exactly one caller gets the row, even across replicas.
    auto rows = ex_.query(
        "DELETE FROM oauth_connect_states WHERE state = ? RETURNING state, workspace_id, app_id, provider_key, "
        "user_id, code_verifier_sealed, redirect_uri, scopes, expires_at",
        {v(state)});
    if (!rows) return tl::unexpected(rows.error());
    if (rows->empty()) return std::optional<oauth_connect_state>();
    const auto& r = rows->front();
    oauth_connect_state s{to_text(r[0]), to_text(r[1]), to_text(r[2]), to_text(r[3]), to_text(r[4]), {},
                          to_text(r[6]), split_scopes(to_text(r[7])), to_int(r[8])};
    if (s.expires_at < now) return std::optional<oauth_connect_state>();
    auto verifier = open(to_text(r[5]), verifier_aad(s.state));
    if (!verifier) return tl::unexpected(verifier.error());
    s.code_verifier = std::move(*verifier);
    return std::optional<oauth_connect_state>(std::move(s));
  }

  // ---- requirements ----

  result<void> replace_requirements(std::string_view ws, std::string_view app_id,
                                    const std::vector<integration_requirement>& set) override {
    return ex_.in_transaction([&](connection& c) -> result<void> {
      auto del = c.exec("DELETE FROM integration_requirements WHERE workspace_id = ? AND app_id = ?", {v(ws), v(app_id)});
      if (!del) return tl::unexpected(del.error());
      for (const auto& q : set) {
        auto r = c.exec(
            "INSERT INTO integration_requirements (workspace_id, app_id, domain, key_slug, name, setup, run_id, "
            "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            {v(ws), v(app_id), v(q.domain), v(q.key_slug), v(q.name), v(q.setup_json), v(q.run_id), v(q.updated_at)});
        if (!r) return tl::unexpected(r.error());
      }
      return {};
    });
  }

  result<std::vector<integration_requirement>> requirements(std::string_view ws, std::string_view app_id) override {
    auto rows = ex_.query(
        "SELECT domain, key_slug, name, setup, run_id, updated_at FROM integration_requirements "
        "WHERE workspace_id = ? AND app_id = ? ORDER BY domain, key_slug",
        {v(ws), v(app_id)});
    if (!rows) return tl::unexpected(rows.error());
    std::vector<integration_requirement> out;
    for (const auto& r : *rows) {
      out.push_back({to_text(r[0]), to_text(r[1]), to_text(r[2]), to_text(r[3]), to_text(r[4]), to_int(r[5])});
    }
    return out;
  }

 private:
  static constexpr std::string_view provider_select =
      "SELECT workspace_id, provider_key, client_id, client_secret_sealed, authorization_url, token_url, updated_at "
      "FROM oauth_providers";
  static constexpr std::string_view account_select =
      "SELECT workspace_id, app_id, provider_key, user_id, access_token_sealed, refresh_token_sealed, expires_at, "
      "scopes, revoked, version, updated_at FROM oauth_accounts";

  static oauth_provider_config read_provider(const row& r) {
    return {to_text(r[0]), to_text(r[1]), to_text(r[2]), {}, to_text(r[4]), to_text(r[5]), to_int(r[6])};
  }

  static oauth_account read_account(const row& r) {
    oauth_account a;
    a.key = {to_text(r[0]), to_text(r[1]), to_text(r[2]), to_text(r[3])};
    a.tokens.expires_at = to_int(r[6]);
    a.tokens.scopes = split_scopes(to_text(r[7]));
    a.revoked = to_int(r[8]) != 0;
    a.version = to_int(r[9]);
    a.updated_at = to_int(r[10]);
    return a;
  }

  result<secrets_key> key() {
    std::lock_guard lock(key_mutex_);
    if (!key_) return fail(api_error::secrets_key_missing, "no secrets key is installed (PLATFORM_SECRETS_KEY)");
    return *key_;
  }

  result<std::string> seal(std::string_view plain, const std::string& ad) {
    auto k = key();
    if (!k) return tl::unexpected(k.error());
    return seal_secret(*k, plain, ad);
  }

  result<std::string> open(std::string_view sealed, const std::string& ad) {
    auto k = key();
    if (!k) return tl::unexpected(k.error());
    return open_secret(*k, sealed, ad);
  }

  // Access token and optional refresh token, sealed.
  result<std::pair<std::string, std::optional<std::string>>> seal_tokens(const oauth_account_key& k, const oauth_tokens& t) {
    auto access = seal(t.access_token, token_aad("access_token", k));
    if (!access) return tl::unexpected(access.error());
    std::optional<std::string> refresh;
    if (t.refresh_token) {
      auto r = seal(*t.refresh_token, token_aad("refresh_token", k));
      if (!r) return tl::unexpected(r.error());
      refresh = std::move(*r);
    }
    return std::make_pair(std::move(*access), std::move(refresh));
  }

  executor ex_;
  std::mutex key_mutex_;
  std::optional<secrets_key> key_;
};

}  // namespace

std::unique_ptr<integration_store> make_integration_store(std::shared_ptr<backend> db) {
  return std::make_unique<sql_integration_store>(std::move(db));
}

}  // namespace platform::sql
