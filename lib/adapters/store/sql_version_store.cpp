// platform::version_store over sql_util's executor. One version is one transaction: its blobs,
// its row and its file rows. Its number is the app's latest + 1; replicas recording at once
// take turns per app (an advisory lock on PostgreSQL), and one that still collides on the
// primary key records again on top of the other's.
#include "sql_version_store.hpp"

#include <algorithm>
#include <set>

#include "platform/api_error.hpp"
#include "platform/source_digest.hpp"
#include "sql_util.hpp"
#include "sql_version_rows.hpp"

namespace platform::sql {
namespace {

constexpr std::int64_t version_full_every = 32;
constexpr int version_record_attempts = 5;

constexpr std::string_view version_summary_columns =
    "number, created_at, run_id, request, runtime_id, asked_by, restored_from, source_digest, build_digest, file_count, "
    "total_bytes, added, removed, modified";

app_version version_summary_from(std::string_view ws, std::string_view app, const row& r) {
  app_version out;
  out.workspace_id = ws;
  out.app_id = app;
  out.number = to_int(r[0]);
  out.created_at = to_int(r[1]);
  out.origin = {to_text(r[2]), to_text(r[3]), to_text(r[4]), to_text(r[5]),
                r[6] ? std::optional<std::int64_t>(to_int(r[6])) : std::nullopt};
  out.source_digest = to_text(r[7]);
  out.build_digest = r[8];
  out.file_count = to_int(r[9]);
  out.total_bytes = to_int(r[10]);
  out.changes = {to_int(r[11]), to_int(r[12]), to_int(r[13])};
  return out;
}

}  // namespace

// Version `number`'s files: its nearest full manifest at or below it, then each later delta.
result<sized_manifest> version_manifest_of(connection& c, std::string_view ws, std::string_view app, std::int64_t number) {
  auto base = c.exec("SELECT MAX(number) FROM app_versions WHERE workspace_id = ? AND app_id = ? AND number <= ? AND full_manifest = 1",
                     {v(ws), v(app), v(number)});
  if (!base) return tl::unexpected(base.error());
  std::int64_t from = base->data.empty() || !base->data.front()[0] ? 1 : to_int(base->data.front()[0]);
  auto rows = c.exec(
      "SELECT number, path, digest, bytes FROM app_version_files WHERE workspace_id = ? AND app_id = ? AND number >= ? "
      "AND number <= ? ORDER BY number",
      {v(ws), v(app), v(from), v(number)});
  if (!rows) return tl::unexpected(rows.error());
  sized_manifest m;
  for (const auto& r : rows->data) {
    if (r[2]) m[to_text(r[1])] = {to_text(r[2]), to_int(r[3])};
    else m.erase(to_text(r[1]));
  }
  return m;
}

namespace {

version_manifest version_digests_of(const sized_manifest& m) {
  version_manifest out;
  for (const auto& [path, e] : m) out[path] = e.digest;
  return out;
}

}  // namespace

result<std::optional<source_files>> version_files_in(connection& c, std::string_view ws, std::string_view app,
                                                     std::int64_t number) {
  auto known = c.exec("SELECT 1 FROM app_versions WHERE workspace_id = ? AND app_id = ? AND number = ?",
                      {v(ws), v(app), v(number)});
  if (!known) return tl::unexpected(known.error());
  if (known->data.empty()) return std::optional<source_files>();
  auto m = version_manifest_of(c, ws, app, number);
  if (!m) return tl::unexpected(m.error());
  source_files out;
  for (const auto& [path, e] : *m) {
    auto content = c.exec("SELECT content FROM version_blobs WHERE digest = ?", {v(e.digest)});
    if (!content) return tl::unexpected(content.error());
    if (content->data.empty()) return fail(api_error::store_corrupt, "a version's file is missing from the store");
    out[path] = to_text(content->data.front()[0]);
  }
  return std::optional<source_files>(std::move(out));
}

result<std::vector<row>> numbered_rows(executor& ex, std::string_view table, std::string_view columns, std::string_view ws,
                                       std::string_view app, const version_page& page) {
  std::string q = "SELECT " + std::string(columns) + " FROM " + std::string(table) + " WHERE workspace_id = ? AND app_id = ?";
  params p{v(ws), v(app)};
  if (page.before) {
    q += " AND number < ?";
    p.push_back(v(*page.before));
  }
  q += " ORDER BY number DESC LIMIT ?";
  p.push_back(v(std::max<std::int64_t>(1, page.limit)));
  return ex.query(q, p);
}

result<void> lock_blob_collection(connection& c, bool exclusive) {
  // Recording a version takes this shared, pruning exclusive: a blob one app's turn is about to
  // name (inserted "if missing", so possibly already there) is never collected under it.
  if (c.kind() != dialect::postgres) return {};
  auto lock = c.exec(exclusive ? "SELECT pg_advisory_xact_lock(hashtext('version_blobs'))"
                               : "SELECT pg_advisory_xact_lock_shared(hashtext('version_blobs'))", {});
  if (!lock) return tl::unexpected(lock.error());
  return {};
}

result<void> lock_app_history(connection& c, std::string_view ws, std::string_view app) {
  // Writers of one app take turns on PostgreSQL (SQLite has one writer anyway): each reads the
  // latest version or release the other just wrote, rather than colliding on its number.
  if (c.kind() != dialect::postgres) return {};
  auto lock = c.exec("SELECT pg_advisory_xact_lock(hashtext(?))", {v(std::string(ws) + "/" + std::string(app))});
  if (!lock) return tl::unexpected(lock.error());
  return {};
}

result<std::optional<app_version>> record_version_in(connection& c, std::string_view ws, std::string_view app,
                                                     const source_files& files, const version_origin& origin,
                                                     const std::optional<std::string>& build_digest, std::int64_t now) {
  sized_manifest next;
  std::int64_t total = 0;
  for (const auto& [path, content] : files) {
    next[path] = {version_blob_digest(content), static_cast<std::int64_t>(content.size())};
    total += static_cast<std::int64_t>(content.size());
  }
  const std::string digest = source_digest(files);
  if (auto locked = lock_app_history(c, ws, app); !locked) return tl::unexpected(locked.error());
  if (auto gc = lock_blob_collection(c, false); !gc) return tl::unexpected(gc.error());
  auto top = c.exec("SELECT MAX(number) FROM app_versions WHERE workspace_id = ? AND app_id = ?", {v(ws), v(app)});
  if (!top) return tl::unexpected(top.error());
  std::int64_t latest = top->data.empty() || !top->data.front()[0] ? 0 : to_int(top->data.front()[0]);
  sized_manifest before;
  if (latest > 0) {
    auto last = c.exec("SELECT source_digest FROM app_versions WHERE workspace_id = ? AND app_id = ? AND number = ?",
                       {v(ws), v(app), v(latest)});
    if (!last) return tl::unexpected(last.error());
    if (!origin.restored_from && !last->data.empty() && to_text(last->data.front()[0]) == digest) return std::optional<app_version>();
    auto m = version_manifest_of(c, ws, app, latest);
    if (!m) return tl::unexpected(m.error());
    before = std::move(*m);
  }
  const std::int64_t number = latest + 1;
  const bool full = number % version_full_every == 1;
  app_version out;
  out.workspace_id = ws;
  out.app_id = app;
  out.number = number;
  out.created_at = now;
  out.origin = origin;
  out.source_digest = digest;
  out.build_digest = build_digest;
  out.file_count = static_cast<std::int64_t>(files.size());
  out.total_bytes = total;
  out.changes = compare_manifests(version_digests_of(before), version_digests_of(next));
  auto row = c.exec(
      "INSERT INTO app_versions (workspace_id, app_id, number, created_at, run_id, request, runtime_id, asked_by, "
      "restored_from, source_digest, build_digest, file_count, total_bytes, added, removed, modified, full_manifest) "
      // A NULL goes as text on PostgreSQL: the cast keeps the column's type.
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, CAST(? AS BIGINT), ?, ?, ?, ?, ?, ?, ?, ?)",
      {v(ws), v(app), v(number), v(now), v(origin.run_id), v(origin.request), v(origin.runtime_id), v(origin.asked_by),
       origin.restored_from ? v(*origin.restored_from) : value::null(), v(digest), value::of(build_digest),
       v(out.file_count), v(total), v(out.changes.added), v(out.changes.removed), v(out.changes.modified),
       v(std::int64_t{full ? 1 : 0})});
  if (!row) return tl::unexpected(row.error());
  for (const auto& [path, e] : next) {
    auto was = before.find(path);
    bool changed = was == before.end() || was->second.digest != e.digest;
    if (changed) {
      auto blob = c.exec("INSERT INTO version_blobs (digest, content, bytes) VALUES (?, ?, ?) ON CONFLICT (digest) DO NOTHING",
                         {v(e.digest), v(files.at(path)), v(e.bytes)});
      if (!blob) return tl::unexpected(blob.error());
    }
    if (!full && !changed) continue;
    auto f = c.exec("INSERT INTO app_version_files (workspace_id, app_id, number, path, digest, bytes) VALUES (?, ?, ?, ?, ?, ?)",
                    {v(ws), v(app), v(number), v(path), v(e.digest), v(e.bytes)});
    if (!f) return tl::unexpected(f.error());
  }
  if (!full) {
    for (const auto& [path, e] : before) {
      if (next.contains(path)) continue;
      auto gone = c.exec(
          "INSERT INTO app_version_files (workspace_id, app_id, number, path, digest, bytes) VALUES (?, ?, ?, ?, NULL, 0)",
          {v(ws), v(app), v(number), v(path)});
      if (!gone) return tl::unexpected(gone.error());
    }
  }
  return std::optional<app_version>(std::move(out));
}

namespace {

class sql_version_store final : public version_store {
 public:
  explicit sql_version_store(std::shared_ptr<backend> db) : ex_(std::move(db)) {}

  result<std::optional<app_version>> record(std::string_view ws, std::string_view app, const source_files& files,
                                            const version_origin& origin, const std::optional<std::string>& build_digest,
                                            std::int64_t now) override {
    for (int attempt = 1;; ++attempt) {
      std::optional<app_version> made;
      auto r = ex_.in_transaction([&](connection& c) -> result<void> {
        auto v = record_version_in(c, ws, app, files, origin, build_digest, now);
        if (!v) return tl::unexpected(v.error());
        made = std::move(*v);
        return {};
      });
      if (r) return made;
      if (!is(r.error(), api_error::store_conflict) || attempt == version_record_attempts) return tl::unexpected(r.error());
    }
  }

  result<std::vector<app_version>> list(std::string_view ws, std::string_view app, const version_page& page) override {
    auto rows = numbered_rows(ex_, "app_versions", version_summary_columns, ws, app, page);
    if (!rows) return tl::unexpected(rows.error());
    std::vector<app_version> out;
    for (const auto& r : *rows) out.push_back(version_summary_from(ws, app, r));
    return out;
  }

  result<std::optional<app_version>> get(std::string_view ws, std::string_view app, std::int64_t number) override {
    std::optional<app_version> out;
    auto r = ex_.in_transaction([&](connection& c) -> result<void> {
      auto rows = c.exec("SELECT " + std::string(version_summary_columns) + " FROM app_versions WHERE workspace_id = ? AND app_id = ? AND number = ?",
                         {v(ws), v(app), v(number)});
      if (!rows) return tl::unexpected(rows.error());
      if (rows->data.empty()) return {};
      out = version_summary_from(ws, app, rows->data.front());
      auto m = version_manifest_of(c, ws, app, number);
      if (!m) return tl::unexpected(m.error());
      for (const auto& [path, e] : *m) {
        out->manifest[path] = e.digest;
        out->sizes[path] = e.bytes;
      }
      return {};
    });
    if (!r) return tl::unexpected(r.error());
    return out;
  }

  result<std::optional<app_version>> latest(std::string_view ws, std::string_view app) override {
    auto top = list(ws, app, {1, std::nullopt});
    if (!top) return tl::unexpected(top.error());
    if (top->empty()) return std::optional<app_version>();
    return get(ws, app, top->front().number);
  }

  result<std::optional<std::string>> blob(std::string_view digest) override {
    auto rows = ex_.query("SELECT content FROM version_blobs WHERE digest = ?", {v(digest)});
    if (!rows) return tl::unexpected(rows.error());
    if (rows->empty()) return std::optional<std::string>();
    return std::optional<std::string>(to_text(rows->front()[0]));
  }

  result<std::vector<std::int64_t>> prune(std::string_view ws, std::string_view app, const version_retention& rule,
                                          std::int64_t now) override {
    std::vector<std::int64_t> pruned;
    if (rule.keeps_all()) return pruned;
    auto r = ex_.in_transaction([&](connection& c) -> result<void> {
      if (auto locked = lock_app_history(c, ws, app); !locked) return tl::unexpected(locked.error());
      if (auto gc = lock_blob_collection(c, true); !gc) return tl::unexpected(gc.error());
      const params key{v(ws), v(app)};
      auto rows = c.exec("SELECT number, created_at FROM app_versions WHERE workspace_id = ? AND app_id = ? ORDER BY number", key);
      if (!rows) return tl::unexpected(rows.error());
      std::vector<version_stamp> stamps;
      for (const auto& x : rows->data) stamps.push_back({to_int(x[0]), to_int(x[1])});
      auto named = c.exec("SELECT DISTINCT version_number FROM app_releases WHERE workspace_id = ? AND app_id = ?", key);
      if (!named) return tl::unexpected(named.error());
      std::set<std::int64_t> released;
      for (const auto& x : named->data) released.insert(to_int(x[0]));
      pruned = prunable_versions(stamps, released, rule, now);
      if (pruned.empty()) return {};
      const std::set<std::int64_t> gone(pruned.begin(), pruned.end());
      // The first kept version after each pruned run is written whole first: the later ones
      // read their manifests from it rather than through deltas that are about to go.
      for (std::size_t i = 0; i + 1 < stamps.size(); ++i) {
        const std::int64_t kept = stamps[i + 1].number;
        if (!gone.contains(stamps[i].number) || gone.contains(kept)) continue;
        auto m = version_manifest_of(c, ws, app, kept);
        if (!m) return tl::unexpected(m.error());
        auto old = c.exec("DELETE FROM app_version_files WHERE workspace_id = ? AND app_id = ? AND number = ?", {v(ws), v(app), v(kept)});
        if (!old) return tl::unexpected(old.error());
        for (const auto& [path, e] : *m) {
          auto f = c.exec("INSERT INTO app_version_files (workspace_id, app_id, number, path, digest, bytes) VALUES (?, ?, ?, ?, ?, ?)",
                          {v(ws), v(app), v(kept), v(path), v(e.digest), v(e.bytes)});
          if (!f) return tl::unexpected(f.error());
        }
        auto whole = c.exec("UPDATE app_versions SET full_manifest = 1 WHERE workspace_id = ? AND app_id = ? AND number = ?",
                            {v(ws), v(app), v(kept)});
        if (!whole) return tl::unexpected(whole.error());
      }
      for (std::int64_t n : pruned) {
        for (std::string_view table : {"app_version_files", "app_versions"}) {
          auto d = c.exec("DELETE FROM " + std::string(table) + " WHERE workspace_id = ? AND app_id = ? AND number = ?", {v(ws), v(app), v(n)});
          if (!d) return tl::unexpected(d.error());
        }
      }
      auto blobs = c.exec("DELETE FROM version_blobs WHERE NOT EXISTS (SELECT 1 FROM app_version_files f WHERE f.digest = version_blobs.digest)", {});
      if (!blobs) return tl::unexpected(blobs.error());
      return {};
    });
    if (!r) return tl::unexpected(r.error());
    return pruned;
  }

  result<std::optional<source_files>> files(std::string_view ws, std::string_view app, std::int64_t number) override {
    std::optional<source_files> out;
    auto r = ex_.in_transaction([&](connection& c) -> result<void> {
      auto f = version_files_in(c, ws, app, number);
      if (!f) return tl::unexpected(f.error());
      out = std::move(*f);
      return {};
    });
    if (!r) return tl::unexpected(r.error());
    return out;
  }

 private:
  executor ex_;
};

}  // namespace

std::unique_ptr<version_store> make_version_store(std::shared_ptr<backend> db) {
  return std::make_unique<sql_version_store>(std::move(db));
}

}  // namespace platform::sql
