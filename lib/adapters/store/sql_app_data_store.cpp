// platform::app_data_store over the SQL surface. Every change is one conditional statement:
// the collection's document count is an upsert guarded by the limit, an update writes only
// over the version its merge was computed from, a remove deletes only the expected version.
#include "sql_app_data_store.hpp"

#include "sql_util.hpp"
#include "platform/api_error.hpp"

namespace platform {
namespace {

using sql::params;
using sql::to_int;
using sql::to_text;
using sql::v;

// Contended updates without an expected version merge again onto the newer document; a
// collection hot enough to lose this many times in a row answers version_conflict.
constexpr int max_update_attempts = 8;

constexpr std::string_view collection_match =
    " WHERE workspace_id = ? AND app_id = ? AND scope = ? AND collection = ?";
constexpr std::string_view document_match =
    " WHERE workspace_id = ? AND app_id = ? AND scope = ? AND collection = ? AND id = ?";
constexpr std::string_view document_columns = "id, data, version, created_at, updated_at";

params collection_params(const collection_ref& c) {
  return {v(c.workspace_id), v(c.app_id), v(to_string(c.scope)), v(c.collection)};
}

params document_params(const collection_ref& c, std::string_view id) {
  auto p = collection_params(c);
  p.push_back(v(id));
  return p;
}

params concat(params head, const params& tail) {
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

std::string text(std::initializer_list<std::string_view> parts) {
  std::string s;
  for (auto p : parts) s.append(p);
  return s;
}

app_document document_from_row(const sql::row& r) {
  return {to_text(r[0]), to_text(r[1]), to_int(r[2]), to_int(r[3]), to_int(r[4])};
}

result<void> check_ref(const collection_ref& c) {
  if (!valid_collection_name(c.collection)) {
    return fail(api_error::invalid_collection, "a collection name is a letter followed by up to 63 letters, digits, _ or -");
  }
  return {};
}

result<void> check_target(const collection_ref& c, std::string_view doc_id) {
  if (auto r = check_ref(c); !r) return r;
  if (!valid_document_id(doc_id)) return fail(api_error::invalid_document_id, "a document id is 1 to 128 of A-Z a-z 0-9 _ -");
  return {};
}

error not_found() { return {api_error::data_not_found, "no such document in this collection"}; }

error conflict(std::int64_t expected, std::int64_t actual) {
  return {api_error::version_conflict, "the document is at version " + std::to_string(actual) + ", not " +
                                  std::to_string(expected) + "; read it again and retry"};
}

class sql_app_data_store final : public app_data_store {
 public:
  explicit sql_app_data_store(std::shared_ptr<sql::backend> db) : ex_(std::move(db)) {}

  result<app_document> insert(const collection_ref& c, const data_write& w) override {
    if (auto r = check_target(c, w.doc_id); !r) return tl::unexpected(r.error());
    auto data = normalize_document(w.data_json, w.limits);
    if (!data) return tl::unexpected(data.error());
    app_document doc{w.doc_id, std::move(*data), 1, w.now, w.now};
    auto r = ex_.in_transaction([&](sql::connection& t) -> result<void> {
      if (auto counted = count_one_more(t, c, w.limits); !counted) return counted;
      auto made = t.exec(
          "INSERT INTO app_data_documents (workspace_id, app_id, scope, collection, id, data, version, created_at, "
          "updated_at) VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?)",
          concat(document_params(c, doc.id), {v(doc.data_json), v(w.now), v(w.now)}));
      if (!made) return tl::unexpected(made.error());
      return {};
    });
    if (!r) return tl::unexpected(r.error());
    return doc;
  }

  result<app_document> update(const collection_ref& c, const data_write& w) override {
    if (auto r = check_target(c, w.doc_id); !r) return tl::unexpected(r.error());
    if (auto p = normalize_document(w.data_json, w.limits); !p) return tl::unexpected(p.error());
    for (int attempt = 0; attempt < max_update_attempts; ++attempt) {
      auto current = get(c, w.doc_id);
      if (!current) return tl::unexpected(current.error());
      if (!*current) return tl::unexpected(not_found());
      if (w.expected_version && *w.expected_version != (*current)->version) {
        return tl::unexpected(conflict(*w.expected_version, (*current)->version));
      }
      auto merged = merge_document((*current)->data_json, w.data_json, w.limits);
      if (!merged) return tl::unexpected(merged.error());
      auto written = ex_.exec_changes(
          text({"UPDATE app_data_documents SET data = ?, version = version + 1, updated_at = ?", document_match,
                " AND version = ?"}),
          concat({v(*merged), v(w.now)}, concat(document_params(c, w.doc_id), {v((*current)->version)})));
      if (!written) return tl::unexpected(written.error());
      if (*written == 1) {
        return app_document{w.doc_id, std::move(*merged), (*current)->version + 1, (*current)->created_at, w.now};
      }
      // Another writer got there first: the next round re-reads (and with an expected
      // version, reports the conflict).
    }
    return fail(api_error::version_conflict, "the document kept changing while this update was merged; retry");
  }

  result<app_document> remove(const collection_ref& c, const data_write& w) override {
    if (auto r = check_target(c, w.doc_id); !r) return tl::unexpected(r.error());
    app_document removed;
    auto r = ex_.in_transaction([&](sql::connection& t) -> result<void> {
      std::string statement = text({"DELETE FROM app_data_documents", document_match});
      params p = document_params(c, w.doc_id);
      if (w.expected_version) {
        statement += " AND version = ?";
        p.push_back(v(*w.expected_version));
      }
      statement += text({" RETURNING ", document_columns});
      auto gone = t.exec(statement, p);
      if (!gone) return tl::unexpected(gone.error());
      if (gone->data.empty()) return explain_missing(t, c, w);
      removed = document_from_row(gone->data.front());
      auto counted = t.exec(text({"UPDATE app_data_collections SET doc_count = doc_count - 1", collection_match}),
                            collection_params(c));
      if (!counted) return tl::unexpected(counted.error());
      return {};
    });
    if (!r) return tl::unexpected(r.error());
    removed.version += 1;  // the removal is a write of its own
    removed.updated_at = w.now;
    return removed;
  }

  result<std::optional<app_document>> get(const collection_ref& c, std::string_view doc_id) override {
    if (auto r = check_target(c, doc_id); !r) return tl::unexpected(r.error());
    auto rows = ex_.query(text({"SELECT ", document_columns, " FROM app_data_documents", document_match}),
                          document_params(c, doc_id));
    if (!rows) return tl::unexpected(rows.error());
    if (rows->empty()) return std::optional<app_document>();
    return std::optional<app_document>(document_from_row(rows->front()));
  }

  result<document_page> list(const collection_ref& c, const page_request& page) override {
    if (auto r = check_ref(c); !r) return tl::unexpected(r.error());
    if (page.limit < 1 || page.limit > app_data_limits::max_page) {
      return fail(api_error::invalid_data, "limit must be from 1 to " + std::to_string(app_data_limits::max_page));
    }
    std::string statement = text({"SELECT ", document_columns, " FROM app_data_documents", collection_match});
    params p = collection_params(c);
    if (!page.cursor.empty()) {
      auto at = parse_page_cursor(page.cursor);
      if (!at) return fail(api_error::invalid_cursor, "cursor must be a nextCursor this route returned");
      statement += " AND (created_at > ? OR (created_at = ? AND id > ?))";
      p.insert(p.end(), {v(at->created_at), v(at->created_at), v(at->id)});
    }
    // One row more than asked tells whether another page follows.
    statement += " ORDER BY created_at, id LIMIT ?";
    p.push_back(v(std::int64_t{page.limit} + 1));
    auto rows = ex_.query(statement, p);
    if (!rows) return tl::unexpected(rows.error());
    document_page out;
    for (const auto& r : *rows) {
      if (out.documents.size() == static_cast<std::size_t>(page.limit)) {
        out.next_cursor = page_cursor(out.documents.back());
        break;
      }
      out.documents.push_back(document_from_row(r));
    }
    return out;
  }

 private:
  // Takes one place in the collection, or collection_full: the WHERE of the upsert is the
  // limit check, so concurrent inserts serialize on the collection's row.
  static result<void> count_one_more(sql::connection& t, const collection_ref& c, const app_data_limits& limits) {
    auto counted = t.exec(
        "INSERT INTO app_data_collections (workspace_id, app_id, scope, collection, doc_count) VALUES (?, ?, ?, ?, 1) "
        "ON CONFLICT (workspace_id, app_id, scope, collection) DO UPDATE SET "
        "doc_count = app_data_collections.doc_count + 1 WHERE app_data_collections.doc_count < ? RETURNING doc_count",
        concat(collection_params(c), {v(limits.max_documents_per_collection)}));
    if (!counted) return tl::unexpected(counted.error());
    if (counted->data.empty() || to_int(counted->data.front()[0]) > limits.max_documents_per_collection) {
      return fail(api_error::collection_full, "the collection holds its maximum of " +
                                         std::to_string(limits.max_documents_per_collection) + " documents");
    }
    return {};
  }

  // Why a guarded DELETE matched nothing: no document, or another version.
  static result<void> explain_missing(sql::connection& t, const collection_ref& c, const data_write& w) {
    auto now = t.exec(text({"SELECT version FROM app_data_documents", document_match}), document_params(c, w.doc_id));
    if (!now) return tl::unexpected(now.error());
    if (now->data.empty() || !w.expected_version) return tl::unexpected(not_found());
    return tl::unexpected(conflict(*w.expected_version, to_int(now->data.front()[0])));
  }

  sql::executor ex_;
};

}  // namespace

std::unique_ptr<app_data_store> sql::make_app_data_store(std::shared_ptr<sql::backend> db) {
  return std::make_unique<sql_app_data_store>(std::move(db));
}

}  // namespace platform
