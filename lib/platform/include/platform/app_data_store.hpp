#pragma once
// App data (spec "App data document"): collections of JSON documents per app, in two scopes
// kept strictly apart — `published` for the published app, `draft` for the draft preview and
// draft app-agent runs. The web server and the app-data internal route talk to this
// interface; the SQL implementation lives beside the core store and passes its test suite.
//
// A document is {id, data, version, createdAt, updatedAt}: `data` is a JSON object, `version`
// starts at 1 and grows by one with every write, so clients order live change events and
// writers can ask for optimistic concurrency (expected version → version_conflict).
// Updates are RFC 7396 JSON merge patches: nested objects merge deeply, `null` removes a
// member, arrays and scalars replace. The merge is computed here in C++ and written with one
// conditional UPDATE on the version it was computed from, so two writers never lose a change.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/error.hpp"

namespace platform {

enum class data_scope : unsigned char { draft, published };
std::string_view to_string(data_scope s);
std::optional<data_scope> data_scope_from(std::string_view s);

// One collection of one app in one scope. Ids are never matched by collection name alone.
struct collection_ref {
  std::string workspace_id;
  std::string app_id;
  data_scope scope = data_scope::published;
  std::string collection;
};

struct app_document {
  std::string id;
  std::string data_json = "{}";  // a JSON object, compact
  std::int64_t version = 0;
  std::int64_t created_at = 0;
  std::int64_t updated_at = 0;
};

// Configurable bounds of the stored data (the web reads them from its environment).
struct app_data_limits {
  std::size_t max_document_bytes = 256 * 1024;     // compact JSON of `data`
  std::int64_t max_documents_per_collection = 10000;
  static constexpr int max_depth = 64;              // nesting of `data`
  static constexpr int max_page = 200;              // list limit
};

// One write. `doc_id`: insert — the new id (the caller generates it: the store has no
// randomness); update/remove — the target. `data_json`: insert — the data; update — the merge
// patch; remove — unused.
struct data_write {
  std::string doc_id;
  std::string data_json;
  std::optional<std::int64_t> expected_version;
  std::int64_t now = 0;
  app_data_limits limits;
};

// Oldest first ((createdAt, id) order); `cursor` is the opaque nextCursor of the previous page.
struct page_request {
  int limit = 50;
  std::string cursor;
};

struct document_page {
  std::vector<app_document> documents;
  std::optional<std::string> next_cursor;  // nullopt on the last page
};

// Errors beyond the store's (store_unavailable, store_conflict, store_corrupt):
//   invalid_collection, invalid_document_id, invalid_data, invalid_cursor  (bad input)
//   document_too_large                                                        (over the size limit)
//   data_not_found                                                            (no such document)
//   version_conflict (expected version differs, or the retries of a contended update ran out)
//   collection_full  (max_documents_per_collection reached)
class app_data_store {
 public:
  virtual ~app_data_store() = default;
  virtual result<app_document> insert(const collection_ref& c, const data_write& w) = 0;
  virtual result<app_document> update(const collection_ref& c, const data_write& w) = 0;
  // Returns the removed document with the version of the removal (its last version + 1).
  virtual result<app_document> remove(const collection_ref& c, const data_write& w) = 0;
  virtual result<std::optional<app_document>> get(const collection_ref& c, std::string_view doc_id) = 0;
  virtual result<document_page> list(const collection_ref& c, const page_request& page) = 0;
};

// ---- pure rules shared by the store, the web routes and the internal route -------------------

// [A-Za-z][A-Za-z0-9_-]{0,63}: safe in paths, channels and logs.
bool valid_collection_name(std::string_view name);
// [A-Za-z0-9_-]{1,128}, the path id grammar.
bool valid_document_id(std::string_view id);

// `text` as compact JSON when it is an object within the limits, else invalid_data or
// document_too_large.
result<std::string> normalize_document(std::string_view text, const app_data_limits& limits);
// RFC 7396 merge of the object `patch` into the object `current`, within the limits.
result<std::string> merge_document(std::string_view current, std::string_view patch, const app_data_limits& limits);

// The cursor after `doc`, and its parts back (nullopt when malformed).
std::string page_cursor(const app_document& doc);
struct page_position {
  std::int64_t created_at = 0;
  std::string id;
};
std::optional<page_position> parse_page_cursor(std::string_view cursor);

// {"id","data","version","createdAt","updatedAt"}
std::string document_to_json(const app_document& doc);

}  // namespace platform
