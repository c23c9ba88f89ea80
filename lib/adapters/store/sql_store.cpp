// platform::store over the SQL surface of sql.hpp. Each public call is one transaction on one
// pooled connection; every race-prone change is a single conditional UPDATE.
#include <filesystem>
#include <set>

#include "adapters/sql_store.hpp"
#include "schema.hpp"
#include "sql_app_data_store.hpp"
#include "sql_app_agent_run_store.hpp"
#include "sql_app_deletion.hpp"
#include "sql_audit_store.hpp"
#include "sql_governance_store.hpp"
#include "sql_preview_store.hpp"
#include "sql_version_store.hpp"
#include "sql_release_store.hpp"
#include "sql_budget_store.hpp"
#include "sql_routine_store.hpp"
#include "sql_integration_store.hpp"
#include "sql.hpp"
#include "sql_util.hpp"
#include "platform/api_error.hpp"

namespace platform {
namespace {

using sql::params;
using sql::to_double;
using sql::to_int;
using sql::to_text;
using sql::transaction;
using sql::v;
using sql::value;

result<void> migrate(sql::connection& c) {
  return transaction(c, [](sql::connection& t) -> result<void> {
    if (t.kind() == sql::dialect::postgres) {
      // Replicas starting together must not both run a migration.
      auto lock = t.exec("SELECT pg_advisory_xact_lock(727274)", {});
      if (!lock) return tl::unexpected(lock.error());
    }
    auto made = t.exec("CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY)", {});
    if (!made) return tl::unexpected(made.error());
    auto current = t.exec("SELECT version FROM schema_migrations", {});
    if (!current) return tl::unexpected(current.error());
    std::set<std::int64_t> have;
    for (const auto& r : current->data) have.insert(to_int(r[0]));
    // Each module numbers its own migrations in its own range, so a module's first migration
    // may come after another's later ones: apply every one not yet recorded, in order.
    for (const auto& m : sql::migrations()) {
      if (have.count(m.version) != 0) continue;
      for (auto statement : m.statements) {
        auto r = t.exec(statement, {});
        if (!r) return tl::unexpected(r.error());
      }
      auto r = t.exec("INSERT INTO schema_migrations (version) VALUES (?)", {v(std::int64_t{m.version})});
      if (!r) return tl::unexpected(r.error());
    }
    return {};
  });
}

constexpr std::string_view run_columns =
    "id, workspace_id, app_id, status, messages, message_count, active_stream_id, run_reason, session_state, "
    "claim_token, lease_until, has_usage, total_cost_usd, total_input_tokens, total_output_tokens, "
    "total_cache_read_tokens, total_cache_creation_tokens, created_at, updated_at, stop_reason, stop_message";

// run_columns with messages and session state left out ('[]' and NULL in their places): lists.
constexpr std::string_view projected_run_columns =
    "id, workspace_id, app_id, status, '[]', message_count, active_stream_id, run_reason, NULL, "
    "claim_token, lease_until, has_usage, total_cost_usd, total_input_tokens, total_output_tokens, "
    "total_cache_read_tokens, total_cache_creation_tokens, created_at, updated_at, stop_reason, stop_message";

constexpr std::string_view key_match = " WHERE workspace_id = ? AND app_id = ? AND id = ?";

params key_params(const run_key& k) { return {v(k.workspace_id), v(k.app_id), v(k.run_id)}; }

params with_key(params p, const run_key& k) {
  for (auto& x : key_params(k)) p.push_back(std::move(x));
  return p;
}

std::string statement(std::string_view head, std::string_view tail = {}) {
  std::string s(head);
  s.append(key_match);
  s.append(tail);
  return s;
}

result<builder_run_record> run_from_row(const sql::row& r) {
  builder_run_record run;
  run.key = {to_text(r[1]), to_text(r[2]), to_text(r[0])};
  auto status = run_status_from(to_text(r[3]));
  if (!status) return fail(api_error::store_corrupt, "run " + run.key.run_id + " has an unknown status");
  run.status = *status;
  run.messages_json = to_text(r[4]);
  run.message_count = to_int(r[5]);
  run.active_stream_id = r[6];
  run.run_reason = to_text(r[7]);
  run.stop_reason = to_text(r[19]);
  run.stop_message = to_text(r[20]);
  run.provider_session_state_json = r[8];
  run.claim_token = to_text(r[9]);
  run.lease_until = to_int(r[10]);
  if (to_int(r[11]) != 0) {
    run_usage u;
    u.total_cost_usd = to_double(r[12]);
    u.total_input_tokens = to_int(r[13]);
    u.total_output_tokens = to_int(r[14]);
    u.total_cache_read_tokens = to_int(r[15]);
    u.total_cache_creation_tokens = to_int(r[16]);
    run.usage = std::move(u);
  }
  run.created_at = to_int(r[17]);
  run.updated_at = to_int(r[18]);
  return run;
}

result<std::vector<builder_run_record>> runs_from_rows(const std::vector<sql::row>& rows) {
  std::vector<builder_run_record> out;
  for (const auto& row : rows) {
    auto run = run_from_row(row);
    if (!run) return tl::unexpected(run.error());
    out.push_back(std::move(*run));
  }
  return out;
}

// The per-model usage, cost-unknown models and session states of a run.
result<void> load_run_details(sql::connection& c, builder_run_record& run) {
  const params id{v(run.key.run_id)};
  if (run.usage) {
    auto models = c.exec(
        "SELECT model, input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens, cost_usd "
        "FROM run_model_usage WHERE run_id = ? ORDER BY model", id);
    if (!models) return tl::unexpected(models.error());
    for (const auto& m : models->data) {
      run.usage->by_model[to_text(m[0])] = {to_int(m[1]), to_int(m[2]), to_int(m[3]), to_int(m[4]), to_double(m[5])};
    }
    auto unknown = c.exec("SELECT model FROM run_cost_unknown WHERE run_id = ? ORDER BY model", id);
    if (!unknown) return tl::unexpected(unknown.error());
    for (const auto& m : unknown->data) run.usage->cost_unknown_models.push_back(to_text(m[0]));
  }
  auto states = c.exec("SELECT runtime_id, state, covered_messages FROM run_session_states WHERE run_id = ?", id);
  if (!states) return tl::unexpected(states.error());
  for (const auto& s : states->data) run.runtime_session_states[to_text(s[0])] = {to_text(s[1]), to_int(s[2])};
  return {};
}

class sql_store final : public store {
 public:
  explicit sql_store(std::unique_ptr<sql::backend> db)
      : ex_(std::shared_ptr<sql::backend>(std::move(db))), governance_(sql::make_governance_store(ex_.db())),
        app_data_(sql::make_app_data_store(ex_.db())) {}

  app_data_store& app_data() override { return *app_data_; }

  governance_store& governance() override { return *governance_; }
  app_agent_run_store& app_agent_runs() override { return *app_agent_runs_; }
  integration_store& integrations() override { return *integrations_; }
  audit_store& audit() override { return *audit_; }
  preview_store& previews() override { return *previews_; }
  version_store& versions() override { return *versions_; }
  release_store& releases() override { return *releases_; }
  budget_store& budgets() override { return *budgets_; }
  routine_store& routines() override { return *routines_; }

  result<void> put_user(const user_record& u) override {
    return write("INSERT INTO users (id, email, name) VALUES (?, ?, ?) "
                 "ON CONFLICT (id) DO UPDATE SET email = excluded.email, name = excluded.name",
                 {v(u.id), v(u.email), v(u.name)});
  }

  result<std::optional<user_record>> get_user(std::string_view user_id) override {
    auto r = query("SELECT id, email, name FROM users WHERE id = ?", {v(user_id)});
    if (!r) return tl::unexpected(r.error());
    if (r->empty()) return std::optional<user_record>();
    const auto& row = r->front();
    return std::optional<user_record>(user_record{to_text(row[0]), to_text(row[1]), to_text(row[2])});
  }

  result<void> put_workspace(std::string_view id, std::string_view name, std::int64_t now) override {
    return write("INSERT INTO workspaces (id, name, created_at) VALUES (?, ?, ?) "
                 "ON CONFLICT (id) DO UPDATE SET name = excluded.name",
                 {v(id), v(name), v(now)});
  }

  result<bool> workspace_exists(std::string_view id) override {
    auto r = query("SELECT 1 FROM workspaces WHERE id = ?", {v(id)});
    if (!r) return tl::unexpected(r.error());
    return !r->empty();
  }

  result<void> set_membership(std::string_view ws, std::string_view user, workspace_role role) override {
    return write("INSERT INTO memberships (workspace_id, user_id, role) VALUES (?, ?, ?) "
                 "ON CONFLICT (workspace_id, user_id) DO UPDATE SET role = excluded.role",
                 {v(ws), v(user), v(to_string(role))});
  }

  result<bool> remove_membership(std::string_view ws, std::string_view user) override {
    bool removed = false;
    auto r = in_transaction([&](sql::connection& c) -> result<void> {
      auto m = c.exec("DELETE FROM memberships WHERE workspace_id = ? AND user_id = ?", {v(ws), v(user)});
      if (!m) return tl::unexpected(m.error());
      removed = m->changes > 0;
      if (!removed) return {};
      auto a = c.exec("DELETE FROM oauth_accounts WHERE workspace_id = ? AND user_id = ?", {v(ws), v(user)});
      if (!a) return tl::unexpected(a.error());
      return {};
    });
    if (!r) return tl::unexpected(r.error());
    return removed;
  }

  result<std::optional<workspace_role>> membership(std::string_view ws, std::string_view user) override {
    auto r = query("SELECT role FROM memberships WHERE workspace_id = ? AND user_id = ?", {v(ws), v(user)});
    if (!r) return tl::unexpected(r.error());
    if (r->empty()) return std::optional<workspace_role>();
    auto role = workspace_role_from(to_text(r->front()[0]));
    if (!role) return fail(api_error::store_corrupt, "a membership has an unknown role");
    return role;
  }

  result<void> create_workspace(std::string_view id, std::string_view name, std::string_view owner,
                                std::int64_t now) override {
    return in_transaction([&](sql::connection& c) -> result<void> {
      auto ws = c.exec("INSERT INTO workspaces (id, name, created_at) VALUES (?, ?, ?)", {v(id), v(name), v(now)});
      if (!ws) return tl::unexpected(ws.error());
      auto m = c.exec("INSERT INTO memberships (workspace_id, user_id, role) VALUES (?, ?, 'owner')", {v(id), v(owner)});
      if (!m) return tl::unexpected(m.error());
      return {};
    });
  }

  result<std::vector<workspace_summary>> workspaces_of(std::string_view user) override {
    auto r = query("SELECT w.id, w.name, m.role FROM memberships m JOIN workspaces w ON w.id = m.workspace_id "
                   "WHERE m.user_id = ? ORDER BY w.created_at, w.id", {v(user)});
    if (!r) return tl::unexpected(r.error());
    std::vector<workspace_summary> out;
    for (const auto& x : *r) {
      auto role = workspace_role_from(to_text(x[2]));
      if (!role) return fail(api_error::store_corrupt, "a membership has an unknown role");
      out.push_back({to_text(x[0]), to_text(x[1]), *role});
    }
    return out;
  }

  result<std::vector<member_record>> members(std::string_view ws) override {
    auto r = query("SELECT m.user_id, COALESCE(u.email, ''), COALESCE(u.name, ''), m.role FROM memberships m "
                   "LEFT JOIN users u ON u.id = m.user_id WHERE m.workspace_id = ? ORDER BY m.user_id", {v(ws)});
    if (!r) return tl::unexpected(r.error());
    std::vector<member_record> out;
    for (const auto& x : *r) {
      auto role = workspace_role_from(to_text(x[3]));
      if (!role) return fail(api_error::store_corrupt, "a membership has an unknown role");
      out.push_back({{to_text(x[0]), to_text(x[1]), to_text(x[2])}, *role});
    }
    return out;
  }

  result<void> create_app(const app_record& a) override {
    return write("INSERT INTO apps (id, workspace_id, name, created_by, runtime_id, runtime_model, "
                 "runtime_params, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                 {v(a.id), v(a.workspace_id), v(a.name), v(a.created_by), v(a.runtime_id), v(a.runtime_model),
                  v(a.runtime_params_json), v(a.created_at)});
  }

  result<std::optional<app_record>> get_app(std::string_view ws, std::string_view app) override {
    auto r = query("SELECT id, workspace_id, name, created_by, runtime_id, runtime_model, runtime_params, "
                   "created_at FROM apps WHERE workspace_id = ? AND id = ?", {v(ws), v(app)});
    if (!r) return tl::unexpected(r.error());
    if (r->empty()) return std::optional<app_record>();
    const auto& x = r->front();
    return std::optional<app_record>(app_record{to_text(x[0]), to_text(x[1]), to_text(x[2]), to_text(x[3]),
                                                to_text(x[4]), to_text(x[5]), to_text(x[6]), to_int(x[7])});
  }

  result<bool> update_app(const app_record& a) override {
    auto changed = exec_changes("UPDATE apps SET name = ?, runtime_id = ?, runtime_model = ?, runtime_params = ? "
                                "WHERE workspace_id = ? AND id = ?",
                                {v(a.name), v(a.runtime_id), v(a.runtime_model), v(a.runtime_params_json),
                                 v(a.workspace_id), v(a.id)});
    if (!changed) return tl::unexpected(changed.error());
    return *changed == 1;
  }

  result<app_deletion> delete_app(std::string_view ws, std::string_view app) override {
    app_deletion outcome = app_deletion::not_found;
    auto r = in_transaction([&](sql::connection& c) -> result<void> {
      auto done = sql::delete_app_rows(c, ws, app);
      if (!done) return tl::unexpected(done.error());
      outcome = *done;
      return {};
    });
    if (!r) return tl::unexpected(r.error());
    return outcome;
  }

  result<std::vector<app_listing>> list_apps(std::string_view ws, const list_page& page) override {
    params p{v(ws)};
    std::string text = "SELECT id, workspace_id, name, created_by, runtime_id, runtime_model, runtime_params, "
                       "created_at FROM apps WHERE workspace_id = ?";
    text.append(page_tail(page, p));
    auto apps = query(text, p);
    if (!apps) return tl::unexpected(apps.error());
    std::vector<app_listing> out;
    for (const auto& x : *apps) {
      app_listing l{app_record{to_text(x[0]), to_text(x[1]), to_text(x[2]), to_text(x[3]), to_text(x[4]),
                               to_text(x[5]), to_text(x[6]), to_int(x[7])},
                    std::nullopt};
      auto latest = query(std::string("SELECT ").append(projected_run_columns).append(
                              " FROM builder_runs WHERE workspace_id = ? AND app_id = ? "
                              "ORDER BY created_at DESC, id DESC LIMIT 1"),
                          {v(ws), v(l.app.id)});
      if (!latest) return tl::unexpected(latest.error());
      if (!latest->empty()) {
        auto run = run_from_row(latest->front());
        if (!run) return tl::unexpected(run.error());
        l.latest_run = std::move(*run);
      }
      out.push_back(std::move(l));
    }
    return out;
  }

  result<std::vector<builder_run_record>> list_builder_runs(std::string_view ws, std::string_view app,
                                                            const list_page& page) override {
    params p{v(ws), v(app)};
    std::string text = std::string("SELECT ").append(projected_run_columns).append(
        " FROM builder_runs WHERE workspace_id = ? AND app_id = ?");
    text.append(page_tail(page, p));
    auto rows = query(text, p);
    if (!rows) return tl::unexpected(rows.error());
    return runs_from_rows(*rows);
  }

  result<void> create_builder_run(const builder_run_record& run) override {
    return in_transaction([&](sql::connection& c) -> result<void> {
      auto app = c.exec("SELECT 1 FROM apps WHERE workspace_id = ? AND id = ?",
                        {v(run.key.workspace_id), v(run.key.app_id)});
      if (!app) return tl::unexpected(app.error());
      if (app->data.empty()) return fail(api_error::store_invalid, "no app " + run.key.app_id + " in that workspace");
      auto r = c.exec("INSERT INTO builder_runs (id, workspace_id, app_id, status, run_reason, created_at, "
                      "updated_at) VALUES (?, ?, ?, 'pending', ?, ?, ?)",
                      {v(run.key.run_id), v(run.key.workspace_id), v(run.key.app_id), v(run.run_reason),
                       v(run.created_at), v(run.created_at)});
      if (!r) return tl::unexpected(r.error());
      return {};
    });
  }

  result<std::optional<builder_run_record>> get_builder_run(const run_key& key) override {
    std::optional<builder_run_record> found;
    auto r = in_transaction([&](sql::connection& c) -> result<void> {
      auto rows = c.exec(statement(std::string("SELECT ").append(run_columns).append(" FROM builder_runs")),
                         key_params(key));
      if (!rows) return tl::unexpected(rows.error());
      if (rows->data.empty()) return {};
      auto run = run_from_row(rows->data.front());
      if (!run) return tl::unexpected(run.error());
      if (auto d = load_run_details(c, *run); !d) return d;
      found = std::move(*run);
      return {};
    });
    if (!r) return tl::unexpected(r.error());
    return found;
  }

  result<std::optional<run_stream_state>> builder_run_stream(const run_key& key) override {
    auto rows = query(statement("SELECT status, active_stream_id FROM builder_runs"), key_params(key));
    if (!rows) return tl::unexpected(rows.error());
    if (rows->empty()) return std::optional<run_stream_state>();
    auto status = run_status_from(to_text(rows->front()[0]));
    if (!status) return fail(api_error::store_corrupt, "run " + key.run_id + " has an unknown status");
    return std::optional<run_stream_state>(run_stream_state{*status, rows->front()[1]});
  }

  result<claim_outcome> claim_builder_run(const run_key& key, const claim_request& claim) override {
    if (claim.claim_token.empty()) return fail(api_error::store_invalid, "a claim needs a token");
    // The UPDATE is the claim; reading the row afterwards only explains a lost claim. A row
    // that changed in between (classify says claimable) is tried again.
    for (int attempt = 0; attempt < 3; ++attempt) {
      std::string head = "UPDATE builder_runs SET status = 'streaming', claim_token = ?, lease_until = ?, "
                         "active_stream_id = NULL, updated_at = ?";
      params p{v(claim.claim_token), v(claim.lease_until), v(claim.now)};
      if (claim.messages_json) {
        head += ", messages = ?, message_count = ?";
        p.push_back(v(*claim.messages_json));
        p.push_back(v(claim.incoming_messages));
      }
      auto won = exec_changes(
          statement(head, " AND (status = 'pending' OR (status IN ('completed', 'failed') AND message_count < ?))"),
          [&] {
            auto all = with_key(p, key);
            all.push_back(v(claim.incoming_messages));
            return all;
          }());
      if (!won) return tl::unexpected(won.error());
      if (*won == 1) return claim_outcome::claimed;
      auto now = query(statement("SELECT status, message_count FROM builder_runs"), key_params(key));
      if (!now) return tl::unexpected(now.error());
      if (now->empty()) return claim_outcome::not_found;
      auto status = run_status_from(to_text(now->front()[0]));
      if (!status) return fail(api_error::store_corrupt, "run " + key.run_id + " has an unknown status");
      auto outcome = classify_claim(*status, to_int(now->front()[1]), claim.incoming_messages);
      if (outcome != claim_outcome::claimed) return outcome;
    }
    return claim_outcome::duplicate;
  }

  result<bool> set_active_stream(const run_key& key, std::string_view token, std::string_view stream_id,
                                 std::int64_t now) override {
    return changed_one(statement("UPDATE builder_runs SET active_stream_id = ?, updated_at = ?",
                                 " AND status = 'streaming' AND claim_token = ?"),
                       with_key({v(stream_id), v(now)}, key), token);
  }

  result<bool> renew_lease(const run_key& key, std::string_view token, std::int64_t lease_until) override {
    return changed_one(statement("UPDATE builder_runs SET lease_until = ?", " AND status = 'streaming' AND claim_token = ?"),
                       with_key({v(lease_until)}, key), token);
  }

  result<bool> end_turn(const run_key& key, std::string_view token, const turn_end& end) override {
    if (end.status != run_status::completed && end.status != run_status::failed) {
      return fail(api_error::store_invalid, "a turn ends completed or failed");
    }
    std::string head = "UPDATE builder_runs SET status = ?, active_stream_id = NULL, claim_token = '', "
                       "lease_until = 0, updated_at = ?, stop_reason = ?, stop_message = ?";
    params p{v(to_string(end.status)), v(end.now), v(end.stop_reason), v(end.stop_message)};
    if (end.messages_json) {
      head += ", messages = ?, message_count = ?";
      p.push_back(v(*end.messages_json));
      p.push_back(v(end.message_count));
    }
    return changed_one(statement(head, " AND status = 'streaming' AND claim_token = ?"), with_key(std::move(p), key),
                       token);
  }

  result<void> add_usage(const run_key& key, const run_usage& turn) override {
    return in_transaction([&](sql::connection& c) -> result<void> {
      auto totals = c.exec(
          statement("UPDATE builder_runs SET has_usage = 1, total_cost_usd = total_cost_usd + ?, "
                    "total_input_tokens = total_input_tokens + ?, total_output_tokens = total_output_tokens + ?, "
                    "total_cache_read_tokens = total_cache_read_tokens + ?, "
                    "total_cache_creation_tokens = total_cache_creation_tokens + ?"),
          with_key({value::of(turn.total_cost_usd), v(turn.total_input_tokens), v(turn.total_output_tokens),
                    v(turn.total_cache_read_tokens), v(turn.total_cache_creation_tokens)},
                   key));
      if (!totals) return tl::unexpected(totals.error());
      if (totals->changes != 1) return fail(api_error::store_invalid, "no run " + key.run_id + " under that app");
      for (const auto& [model, u] : turn.by_model) {
        auto r = c.exec(
            "INSERT INTO run_model_usage (run_id, model, input_tokens, output_tokens, cache_read_tokens, "
            "cache_creation_tokens, cost_usd) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_id, model) DO UPDATE SET "
            "input_tokens = run_model_usage.input_tokens + excluded.input_tokens, "
            "output_tokens = run_model_usage.output_tokens + excluded.output_tokens, "
            "cache_read_tokens = run_model_usage.cache_read_tokens + excluded.cache_read_tokens, "
            "cache_creation_tokens = run_model_usage.cache_creation_tokens + excluded.cache_creation_tokens, "
            "cost_usd = run_model_usage.cost_usd + excluded.cost_usd",
            {v(key.run_id), v(model), v(u.input_tokens), v(u.output_tokens), v(u.cache_read_input_tokens),
             v(u.cache_creation_input_tokens), value::of(u.cost_usd)});
        if (!r) return tl::unexpected(r.error());
      }
      for (const auto& model : turn.cost_unknown_models) {
        auto r = c.exec("INSERT INTO run_cost_unknown (run_id, model) VALUES (?, ?) ON CONFLICT DO NOTHING",
                        {v(key.run_id), v(model)});
        if (!r) return tl::unexpected(r.error());
      }
      return {};
    });
  }

  result<void> save_provider_session_state(const run_key& key, std::string_view runtime_id,
                                           const provider_session_state_record& state) override {
    return in_transaction([&](sql::connection& c) -> result<void> {
      auto latest = c.exec(statement("UPDATE builder_runs SET session_state = ?"), with_key({v(state.state_json)}, key));
      if (!latest) return tl::unexpected(latest.error());
      if (latest->changes != 1) return fail(api_error::store_invalid, "no run " + key.run_id + " under that app");
      auto r = c.exec("INSERT INTO run_session_states (run_id, runtime_id, state, covered_messages) VALUES (?, ?, ?, ?) "
                      "ON CONFLICT (run_id, runtime_id) DO UPDATE SET state = excluded.state, "
                      "covered_messages = excluded.covered_messages",
                      {v(key.run_id), v(runtime_id), v(state.state_json), v(state.covered_messages)});
      if (!r) return tl::unexpected(r.error());
      return {};
    });
  }

  result<std::vector<builder_run_record>> streaming_builder_runs(std::string_view ws) override {
    auto rows = query(std::string("SELECT ").append(run_columns).append(
                          " FROM builder_runs WHERE workspace_id = ? AND status = 'streaming' ORDER BY created_at, id"),
                      {v(ws)});
    if (!rows) return tl::unexpected(rows.error());
    return runs_from_rows(*rows);
  }

  result<std::vector<run_key>> fail_expired_claims(std::int64_t now) override {
    auto rows = query("UPDATE builder_runs SET status = 'failed', active_stream_id = NULL, claim_token = '', "
                      "lease_until = 0, updated_at = ? WHERE status = 'streaming' AND lease_until < ? "
                      "RETURNING workspace_id, app_id, id",
                      {v(now), v(now)});
    if (!rows) return tl::unexpected(rows.error());
    std::vector<run_key> out;
    for (const auto& r : *rows) out.push_back({to_text(r[0]), to_text(r[1]), to_text(r[2])});
    return out;
  }

 private:
  result<void> in_transaction(const std::function<result<void>(sql::connection&)>& fn) { return ex_.in_transaction(fn); }
  result<std::vector<sql::row>> query(std::string_view sql_text, const params& p) { return ex_.query(sql_text, p); }
  result<std::int64_t> exec_changes(std::string_view sql_text, const params& p) { return ex_.exec_changes(sql_text, p); }
  result<void> write(std::string_view sql_text, const params& p) { return ex_.write(sql_text, p); }

  result<bool> changed_one(const std::string& sql_text, params p, std::string_view token) {
    p.push_back(v(token));
    auto r = exec_changes(sql_text, p);
    if (!r) return tl::unexpected(r.error());
    return *r == 1;
  }

  sql::executor ex_;
  std::unique_ptr<governance_store> governance_;
  std::unique_ptr<app_agent_run_store> app_agent_runs_ = sql::make_app_agent_run_store(ex_.db());
  std::unique_ptr<integration_store> integrations_ = sql::make_integration_store(ex_.db());
  std::unique_ptr<preview_store> previews_ = sql::make_preview_store(ex_.db());
  std::unique_ptr<version_store> versions_ = sql::make_version_store(ex_.db());
  std::unique_ptr<release_store> releases_ = sql::make_release_store(ex_.db());
  std::unique_ptr<budget_store> budgets_ = sql::make_budget_store(ex_.db());
  std::unique_ptr<routine_store> routines_ = sql::make_routine_store(ex_.db());
  std::unique_ptr<audit_store> audit_ = sql::make_audit_store(ex_.db());
  std::unique_ptr<app_data_store> app_data_;
};

result<std::unique_ptr<store>> open_with(std::size_t size,
                                         const std::function<result<std::unique_ptr<sql::connection>>()>& connect) {
  std::vector<std::unique_ptr<sql::connection>> conns;
  for (std::size_t i = 0; i < size; ++i) {
    auto c = connect();
    if (!c) return tl::unexpected(c.error());
    if (i == 0) {
      if (auto m = migrate(**c); !m) return tl::unexpected(m.error());
    }
    conns.push_back(std::move(*c));
  }
  return std::unique_ptr<store>(std::make_unique<sql_store>(sql::make_pool(std::move(conns), connect)));
}

}  // namespace

result<std::unique_ptr<store>> open_sqlite_store(const std::string& path) {
  // An in-memory database exists once per connection, so it gets exactly one.
  std::size_t size = path == ":memory:" ? 1 : 4;
  return open_with(size, [path] { return sql::connect_sqlite(path); });
}

result<std::unique_ptr<store>> open_postgres_store(const std::string& url, std::size_t pool_size) {
  return open_with(pool_size == 0 ? 1 : pool_size, [url] { return sql::connect_postgres(url); });
}

result<std::unique_ptr<store>> open_store(const std::string& database_url, const std::string& data_dir) {
  if (!database_url.empty()) return open_postgres_store(database_url);
  std::error_code ec;
  std::filesystem::create_directories(data_dir, ec);
  if (ec) return fail(api_error::store_unavailable, "cannot create the data directory " + data_dir + ": " + ec.message());
  return open_sqlite_store((std::filesystem::path(data_dir) / "platform.db").string());
}

}  // namespace platform
