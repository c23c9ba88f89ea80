// platform::preview_store over sql_util's executor. A build is written in one transaction with
// its files, guarded by its digest row, so replicas storing the same build at once store it once.
#include "sql_preview_store.hpp"

#include "platform/api_error.hpp"
#include "platform/base64.hpp"
#include "sql_util.hpp"

namespace platform::sql {
namespace {

class sql_preview_store final : public preview_store {
 public:
  explicit sql_preview_store(std::shared_ptr<backend> db) : ex_(std::move(db)) {}

  result<void> put_build(std::string_view digest, const std::vector<preview_file>& files, std::int64_t now) override {
    if (digest.empty() || files.empty()) return fail(api_error::store_invalid, "a preview build needs a digest and files");
    std::int64_t total = 0;
    for (const auto& f : files) total += static_cast<std::int64_t>(f.bytes.size());
    return ex_.in_transaction([&](connection& c) -> result<void> {
      auto head = c.exec("INSERT INTO preview_builds (digest, file_count, total_bytes, created_at) VALUES (?, ?, ?, ?) "
                         "ON CONFLICT (digest) DO NOTHING",
                         {v(digest), v(static_cast<std::int64_t>(files.size())), v(total), v(now)});
      if (!head) return tl::unexpected(head.error());
      if (head->changes == 0) return {};  // stored before: a digest's files never change
      for (const auto& f : files) {
        auto put = c.exec("INSERT INTO preview_files (digest, path, content_base64) VALUES (?, ?, ?)",
                          {v(digest), v(f.path), v(base64_encode(f.bytes))});
        if (!put) return tl::unexpected(put.error());
      }
      return {};
    });
  }

  result<bool> has_build(std::string_view digest) override {
    auto rows = ex_.query("SELECT 1 FROM preview_builds WHERE digest = ?", {v(digest)});
    if (!rows) return tl::unexpected(rows.error());
    return !rows->empty();
  }

  result<std::optional<std::string>> file(std::string_view digest, std::string_view path) override {
    auto rows = ex_.query("SELECT content_base64 FROM preview_files WHERE digest = ? AND path = ?", {v(digest), v(path)});
    if (!rows) return tl::unexpected(rows.error());
    if (rows->empty()) return std::optional<std::string>();
    auto bytes = base64_decode(to_text(rows->front()[0]));
    if (!bytes) return fail(api_error::store_corrupt, "a preview file is not base64");
    return std::optional<std::string>(std::move(*bytes));
  }

  result<void> set_app_preview(std::string_view ws, std::string_view app, source_scope scope, std::string_view digest,
                               std::int64_t now, const preview_made_by& made_by) override {
    return ex_.write(
        "INSERT INTO app_previews (workspace_id, app_id, scope, digest, updated_at, made_by_run, made_by_request) "
        "VALUES (?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (workspace_id, app_id, scope) DO UPDATE SET digest = excluded.digest, updated_at = excluded.updated_at, "
        "made_by_run = excluded.made_by_run, made_by_request = excluded.made_by_request",
        {v(ws), v(app), v(to_string(scope)), v(digest), v(now), v(made_by.run_id), v(made_by.request)});
  }

  result<bool> publish_preview(std::string_view ws, std::string_view app, std::int64_t now) override {
    // One statement: the published row takes whatever the draft row holds at this moment.
    auto changed = ex_.exec_changes(
        "INSERT INTO app_previews (workspace_id, app_id, scope, digest, updated_at, made_by_run, made_by_request) "
        "SELECT workspace_id, app_id, 'published', digest, ?, made_by_run, made_by_request FROM app_previews "
        "WHERE workspace_id = ? AND app_id = ? AND scope = 'draft' "
        "ON CONFLICT (workspace_id, app_id, scope) DO UPDATE SET digest = excluded.digest, updated_at = excluded.updated_at, "
        "made_by_run = excluded.made_by_run, made_by_request = excluded.made_by_request",
        {v(now), v(ws), v(app)});
    if (!changed) return tl::unexpected(changed.error());
    return *changed > 0;
  }

  result<std::optional<app_preview>> app_preview_of(std::string_view ws, std::string_view app, source_scope scope) override {
    auto rows = ex_.query(
        "SELECT digest, updated_at, made_by_run, made_by_request FROM app_previews "
        "WHERE workspace_id = ? AND app_id = ? AND scope = ?",
        {v(ws), v(app), v(to_string(scope))});
    if (!rows) return tl::unexpected(rows.error());
    if (rows->empty()) return std::optional<app_preview>();
    const auto& r = rows->front();
    return std::optional<app_preview>(app_preview{to_text(r[0]), to_int(r[1]), {to_text(r[2]), to_text(r[3])}});
  }

 private:
  executor ex_;
};

}  // namespace

std::unique_ptr<preview_store> make_preview_store(std::shared_ptr<backend> db) {
  return std::make_unique<sql_preview_store>(std::move(db));
}

}  // namespace platform::sql
