// platform::release_store over sql_util's executor, on the same tables as the governance,
// preview and version stores (one database): recording a publish and rolling back are each
// one transaction under the app's history lock, so a release is never half written and two
// replicas number their releases one after the other.
#include "sql_release_store.hpp"

#include <algorithm>
#include <type_traits>

#include "platform/api_error.hpp"
#include "platform/approval_hash.hpp"
#include "platform/source_digest.hpp"
#include "sql_util.hpp"
#include "sql_version_rows.hpp"

namespace platform::sql {
namespace {

constexpr int release_attempts = 5;

constexpr std::string_view release_columns =
    "number, version_number, build_digest, approval_hash, approval_payload, approved_by, approved_at, published_by, "
    "published_at, via, review_id, rolled_back_from";

app_release release_from(std::string_view ws, std::string_view app, const row& r) {
  app_release out;
  out.workspace_id = ws;
  out.app_id = app;
  out.number = to_int(r[0]);
  out.version = to_int(r[1]);
  out.build_digest = to_text(r[2]);
  if (r[3]) out.approval = agents_approval{to_text(r[3]), to_text(r[4]), to_text(r[5]), to_int(r[6])};
  out.published_by = to_text(r[7]);
  out.published_at = to_int(r[8]);
  out.via = release_via_from(to_text(r[9])).value_or(release_via::publish);
  out.review_id = to_text(r[10]);
  if (r[11]) out.rolled_back_from = to_int(r[11]);
  return out;
}

value nullable_int(const std::optional<std::int64_t>& n) { return n ? v(*n) : value::null(); }

result<std::int64_t> next_release_number(connection& c, std::string_view ws, std::string_view app) {
  auto top = c.exec("SELECT MAX(number) FROM app_releases WHERE workspace_id = ? AND app_id = ?", {v(ws), v(app)});
  if (!top) return tl::unexpected(top.error());
  return (top->data.empty() || !top->data.front()[0] ? 0 : to_int(top->data.front()[0])) + 1;
}

result<void> insert_release(connection& c, app_release& r) {
  auto n = next_release_number(c, r.workspace_id, r.app_id);
  if (!n) return tl::unexpected(n.error());
  r.number = *n;
  const auto& a = r.approval;
  auto ins = c.exec(
      "INSERT INTO app_releases (workspace_id, app_id, number, version_number, build_digest, approval_hash, "
      "approval_payload, approved_by, approved_at, published_by, published_at, via, review_id, rolled_back_from) "
      // NULLs go as text on PostgreSQL: the casts keep the columns' types.
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, CAST(? AS BIGINT), ?, ?, ?, ?, CAST(? AS BIGINT))",
      {v(r.workspace_id), v(r.app_id), v(r.number), v(r.version), v(r.build_digest),
       a ? v(a->hash) : value::null(), a ? v(a->normalized_payload_json) : value::null(),
       a ? v(a->approved_by) : value::null(), a ? v(a->approved_at) : value::null(), v(r.published_by),
       v(r.published_at), v(to_string(r.via)), v(r.review_id), nullable_int(r.rolled_back_from)});
  if (!ins) return tl::unexpected(ins.error());
  return {};
}

result<std::optional<app_release>> release_in(connection& c, std::string_view ws, std::string_view app, std::int64_t number) {
  auto rows = c.exec("SELECT " + std::string(release_columns) + " FROM app_releases WHERE workspace_id = ? AND app_id = ? AND number = ?",
                     {v(ws), v(app), v(number)});
  if (!rows) return tl::unexpected(rows.error());
  if (rows->data.empty()) return std::optional<app_release>();
  return std::optional<app_release>(release_from(ws, app, rows->data.front()));
}

// The published source as it is now, read in the caller's transaction.
result<source_files> published_files(connection& c, std::string_view ws, std::string_view app) {
  auto rows = c.exec("SELECT path, content FROM gov_snapshot_files WHERE workspace_id = ? AND app_id = ? AND scope = 'published'",
                     {v(ws), v(app)});
  if (!rows) return tl::unexpected(rows.error());
  source_files out;
  for (const auto& r : rows->data) out[to_text(r[0])] = to_text(r[1]);
  return out;
}

// The newest version with exactly `files`, recording them as a version when none has them.
result<std::int64_t> version_with(connection& c, std::string_view ws, std::string_view app, const source_files& files,
                                  const std::string& build, const release_request& req) {
  auto found = c.exec("SELECT MAX(number) FROM app_versions WHERE workspace_id = ? AND app_id = ? AND source_digest = ?",
                      {v(ws), v(app), v(source_digest(files))});
  if (!found) return tl::unexpected(found.error());
  if (!found->data.empty() && found->data.front()[0]) return to_int(found->data.front()[0]);
  const version_origin origin{"", "Published edits made outside a turn", "", req.published_by, std::nullopt};
  auto made = record_version_in(c, ws, app, files, origin, build, req.published_at);
  if (!made) return tl::unexpected(made.error());
  if (!*made) return fail(api_error::store_corrupt, "the published source is the latest version's but no version has it");
  return (*made)->number;
}

// Makes `files`, `approval` and `build` what the published app is, as a publish does.
result<void> publish_exactly(connection& c, const app_release& r, const source_files& files, const version_origin& made_by,
                             std::int64_t now) {
  const params key{v(r.workspace_id), v(r.app_id)};
  auto gone = c.exec("DELETE FROM gov_snapshot_files WHERE workspace_id = ? AND app_id = ? AND scope = 'published'", key);
  if (!gone) return tl::unexpected(gone.error());
  for (const auto& [path, content] : files) {
    auto f = c.exec("INSERT INTO gov_snapshot_files (workspace_id, app_id, scope, path, content) VALUES (?, ?, 'published', ?, ?)",
                    {v(r.workspace_id), v(r.app_id), v(path), v(content)});
    if (!f) return tl::unexpected(f.error());
  }
  std::optional<std::string> agents_hash;
  if (auto agents = files.find(std::string(agents_json_path)); agents != files.end()) {
    if (auto h = approval_hash_of(agents->second)) agents_hash = h->hash;
  }
  auto head = c.exec("INSERT INTO gov_snapshots (workspace_id, app_id, scope, version, agents_hash, updated_at) "
                     "VALUES (?, ?, 'published', 0, ?, ?) ON CONFLICT (workspace_id, app_id, scope) DO UPDATE SET "
                     "version = gov_snapshots.version + 1, agents_hash = excluded.agents_hash, updated_at = excluded.updated_at",
                     {v(r.workspace_id), v(r.app_id), value::of(agents_hash), v(now)});
  if (!head) return tl::unexpected(head.error());
  if (r.approval) {
    const auto& a = *r.approval;
    auto p = c.exec("INSERT INTO gov_publications (workspace_id, app_id, hash, payload, approved_by, approved_at, "
                    "published_by, published_at, snapshot_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0) "
                    "ON CONFLICT (workspace_id, app_id) DO UPDATE SET hash = excluded.hash, payload = excluded.payload, "
                    "approved_by = excluded.approved_by, approved_at = excluded.approved_at, "
                    "published_by = excluded.published_by, published_at = excluded.published_at",
                    {v(r.workspace_id), v(r.app_id), v(a.hash), v(a.normalized_payload_json), v(a.approved_by),
                     v(a.approved_at), v(r.published_by), v(now)});
    if (!p) return tl::unexpected(p.error());
  } else {
    auto none = c.exec("DELETE FROM gov_publications WHERE workspace_id = ? AND app_id = ?", key);
    if (!none) return tl::unexpected(none.error());
  }
  auto shown = c.exec(
      "INSERT INTO app_previews (workspace_id, app_id, scope, digest, updated_at, made_by_run, made_by_request) "
      "VALUES (?, ?, 'published', ?, ?, ?, ?) ON CONFLICT (workspace_id, app_id, scope) DO UPDATE SET "
      "digest = excluded.digest, updated_at = excluded.updated_at, made_by_run = excluded.made_by_run, "
      "made_by_request = excluded.made_by_request",
      {v(r.workspace_id), v(r.app_id), v(r.build_digest), v(now), v(made_by.run_id), v(made_by.request)});
  if (!shown) return tl::unexpected(shown.error());
  return {};
}

// One transaction, again on a primary-key collision (two replicas numbering at once where
// the lock does not reach: SQLite's writers are serialized, so this is PostgreSQL's).
template <typename Fn>
auto retried(executor& ex, Fn&& fn) -> std::invoke_result_t<Fn&, connection&> {
  using T = typename std::invoke_result_t<Fn&, connection&>::value_type;
  for (int attempt = 1;; ++attempt) {
    std::optional<T> out;
    auto r = ex.in_transaction([&](connection& c) -> result<void> {
      auto got = fn(c);
      if (!got) return tl::unexpected(got.error());
      out = std::move(*got);
      return {};
    });
    if (r) return std::move(*out);
    if (!is(r.error(), api_error::store_conflict) || attempt == release_attempts) return tl::unexpected(r.error());
  }
}

class sql_release_store final : public release_store {
 public:
  explicit sql_release_store(std::shared_ptr<backend> db) : ex_(std::move(db)) {}

  result<std::optional<app_release>> record_publish(std::string_view ws, std::string_view app,
                                                    const release_request& req) override {
    return retried(ex_, [&](connection& c) -> result<std::optional<app_release>> {
      if (auto locked = lock_app_history(c, ws, app); !locked) return tl::unexpected(locked.error());
      auto build = c.exec("SELECT digest FROM app_previews WHERE workspace_id = ? AND app_id = ? AND scope = 'published'",
                          {v(ws), v(app)});
      if (!build) return tl::unexpected(build.error());
      if (build->data.empty()) return std::optional<app_release>();
      app_release r;
      r.workspace_id = ws;
      r.app_id = app;
      r.build_digest = to_text(build->data.front()[0]);
      r.published_by = req.published_by;
      r.published_at = req.published_at;
      r.via = req.via;
      r.review_id = req.review_id;
      auto approval = c.exec("SELECT hash, payload, approved_by, approved_at FROM gov_publications "
                             "WHERE workspace_id = ? AND app_id = ?", {v(ws), v(app)});
      if (!approval) return tl::unexpected(approval.error());
      if (!approval->data.empty()) {
        const auto& x = approval->data.front();
        r.approval = agents_approval{to_text(x[0]), to_text(x[1]), to_text(x[2]), to_int(x[3])};
      }
      auto files = published_files(c, ws, app);
      if (!files) return tl::unexpected(files.error());
      auto version = version_with(c, ws, app, *files, r.build_digest, req);
      if (!version) return tl::unexpected(version.error());
      r.version = *version;
      if (auto ins = insert_release(c, r); !ins) return tl::unexpected(ins.error());
      return std::optional<app_release>(std::move(r));
    });
  }

  result<std::vector<app_release>> list(std::string_view ws, std::string_view app, const release_page& page) override {
    auto rows = numbered_rows(ex_, "app_releases", release_columns, ws, app, page);
    if (!rows) return tl::unexpected(rows.error());
    std::vector<app_release> out;
    for (const auto& r : *rows) out.push_back(release_from(ws, app, r));
    return out;
  }

  result<std::optional<app_release>> get(std::string_view ws, std::string_view app, std::int64_t number) override {
    std::optional<app_release> out;
    auto r = ex_.in_transaction([&](connection& c) -> result<void> {
      auto got = release_in(c, ws, app, number);
      if (!got) return tl::unexpected(got.error());
      out = std::move(*got);
      return {};
    });
    if (!r) return tl::unexpected(r.error());
    return out;
  }

  result<rollback_outcome> roll_back(std::string_view ws, std::string_view app, std::int64_t number,
                                     const release_request& req, std::optional<app_release>& made) override {
    made.reset();
    auto out = retried(ex_, [&](connection& c) -> result<rollback_outcome> {
      if (auto locked = lock_app_history(c, ws, app); !locked) return tl::unexpected(locked.error());
      auto earlier = release_in(c, ws, app, number);
      if (!earlier) return tl::unexpected(earlier.error());
      if (!*earlier) return rollback_outcome::no_release;
      auto build = c.exec("SELECT 1 FROM preview_builds WHERE digest = ?", {v((*earlier)->build_digest)});
      if (!build) return tl::unexpected(build.error());
      if (build->data.empty()) return rollback_outcome::build_missing;
      auto files = version_files_in(c, ws, app, (*earlier)->version);
      if (!files) return tl::unexpected(files.error());
      if (!*files) return fail(api_error::store_corrupt, "the release's version is missing from the store");
      auto origin = c.exec("SELECT run_id, request FROM app_versions WHERE workspace_id = ? AND app_id = ? AND number = ?",
                           {v(ws), v(app), v((*earlier)->version)});
      if (!origin) return tl::unexpected(origin.error());
      version_origin made_by;
      if (!origin->data.empty()) made_by = {to_text(origin->data.front()[0]), to_text(origin->data.front()[1]), "", "", std::nullopt};
      app_release r = **earlier;
      r.published_by = req.published_by;
      r.published_at = req.published_at;
      r.via = release_via::rollback;
      r.review_id = req.review_id;
      r.rolled_back_from = (*earlier)->number;
      if (auto done = publish_exactly(c, r, **files, made_by, req.published_at); !done) return tl::unexpected(done.error());
      if (auto ins = insert_release(c, r); !ins) return tl::unexpected(ins.error());
      made = std::move(r);
      return rollback_outcome::rolled_back;
    });
    if (!out) made.reset();
    return out;
  }

 private:
  executor ex_;
};

}  // namespace

std::unique_ptr<release_store> make_release_store(std::shared_ptr<backend> db) {
  return std::make_unique<sql_release_store>(std::move(db));
}

}  // namespace platform::sql
