#pragma once
// The version tables' steps that the version store and the release store share, each inside
// the caller's transaction: an app's history lock, a version's files, recording a version.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/app_version.hpp"
#include "platform/version_store.hpp"
#include "platform/governance_store.hpp"
#include "sql.hpp"

namespace platform::sql {

struct version_manifest_entry {
  std::string digest;
  std::int64_t bytes = 0;
};
using sized_manifest = std::map<std::string, version_manifest_entry>;

// Versions and releases of one app are written one writer at a time (PostgreSQL's advisory
// lock for the transaction; SQLite has one writer anyway).
result<void> lock_app_history(connection& c, std::string_view ws, std::string_view app);
// The collection of unreferenced file contents (version_blobs) against the writers that may
// name one: recording takes it shared, pruning and deleting an app exclusive.
result<void> lock_blob_collection(connection& c, bool exclusive);
// Version `number`'s files as digests and sizes (empty when there is no such version).
result<sized_manifest> version_manifest_of(connection& c, std::string_view ws, std::string_view app, std::int64_t number);
// Version `number`'s files with their contents; nullopt without that version.
result<std::optional<source_files>> version_files_in(connection& c, std::string_view ws, std::string_view app,
                                                     std::int64_t number);
// version_store::record's work, under lock_app_history (taken here).
result<std::optional<app_version>> record_version_in(connection& c, std::string_view ws, std::string_view app,
                                                     const source_files& files, const version_origin& origin,
                                                     const std::optional<std::string>& build_digest, std::int64_t now);

class executor;
// One page of an app's numbered rows of `table` (app_versions, app_releases), newest first.
result<std::vector<row>> numbered_rows(executor& ex, std::string_view table, std::string_view columns, std::string_view ws,
                                       std::string_view app, const version_page& page);

}  // namespace platform::sql
