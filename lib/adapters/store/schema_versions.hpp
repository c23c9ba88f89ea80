#pragma once
// App versions (issue 35; versions 800-899). A file's content is stored once by its digest in
// version_blobs, whatever version or app it belongs to. A version's files are kept as what
// changed against the version before it (digest NULL: removed), and in full every 32nd
// version (`full`), so a version costs its changes and a manifest is read from at most 32 rows
// sets, never the whole history. Releases (801) name a version and a build.
#include <vector>

#include "schema.hpp"

namespace platform::sql {

inline const std::vector<migration>& version_migrations() {
  static const std::vector<migration> all = {
      {800,
       {
           "CREATE TABLE version_blobs (digest TEXT PRIMARY KEY, content TEXT NOT NULL, bytes BIGINT NOT NULL)",
           "CREATE TABLE app_versions (workspace_id TEXT NOT NULL, app_id TEXT NOT NULL, number BIGINT NOT NULL, "
           "created_at BIGINT NOT NULL, run_id TEXT NOT NULL, request TEXT NOT NULL, runtime_id TEXT NOT NULL, "
           "asked_by TEXT NOT NULL, restored_from BIGINT, source_digest TEXT NOT NULL, build_digest TEXT, "
           "file_count BIGINT NOT NULL, total_bytes BIGINT NOT NULL, added BIGINT NOT NULL, removed BIGINT NOT NULL, "
           "modified BIGINT NOT NULL, full_manifest BIGINT NOT NULL, PRIMARY KEY (workspace_id, app_id, number))",
           "CREATE TABLE app_version_files (workspace_id TEXT NOT NULL, app_id TEXT NOT NULL, number BIGINT NOT NULL, "
           "path TEXT NOT NULL, digest TEXT, bytes BIGINT NOT NULL, PRIMARY KEY (workspace_id, app_id, number, path))",
       }},
      {801,
       {
           // Releases: what each publish made live, numbered per app. approval_hash NULL: the
           // app had no agents.json (nothing approved). rolled_back_from: the release a
           // rollback published again.
           "CREATE TABLE app_releases (workspace_id TEXT NOT NULL, app_id TEXT NOT NULL, number BIGINT NOT NULL, "
           "version_number BIGINT NOT NULL, build_digest TEXT NOT NULL, approval_hash TEXT, approval_payload TEXT, "
           "approved_by TEXT, approved_at BIGINT, published_by TEXT NOT NULL, published_at BIGINT NOT NULL, "
           "via TEXT NOT NULL, review_id TEXT NOT NULL, rolled_back_from BIGINT, "
           "PRIMARY KEY (workspace_id, app_id, number))",
       }},
  };
  return all;
}

}  // namespace platform::sql
