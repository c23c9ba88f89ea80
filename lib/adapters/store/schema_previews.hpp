#pragma once
// Preview builds and each app's current preview (versions 700-799). Never edited once released.
// File contents are base64 text: the common dialect has no portable binary column type.
#include <vector>

#include "schema.hpp"

namespace platform::sql {

inline const std::vector<migration>& preview_migrations() {
  static const std::vector<migration> all = {
      {700,
       {
           "CREATE TABLE preview_builds (digest TEXT PRIMARY KEY, file_count BIGINT NOT NULL, "
           "total_bytes BIGINT NOT NULL, created_at BIGINT NOT NULL)",
           "CREATE TABLE preview_files (digest TEXT NOT NULL, path TEXT NOT NULL, content_base64 TEXT NOT NULL, "
           "PRIMARY KEY (digest, path))",
           "CREATE TABLE app_previews (workspace_id TEXT NOT NULL, app_id TEXT NOT NULL, scope TEXT NOT NULL, "
           "digest TEXT NOT NULL, updated_at BIGINT NOT NULL, PRIMARY KEY (workspace_id, app_id, scope))",
       }},
      // The turn that made the build: its run and the request it answered (preview_made_by).
      {701,
       {
           "ALTER TABLE app_previews ADD COLUMN made_by_run TEXT NOT NULL DEFAULT ''",
           "ALTER TABLE app_previews ADD COLUMN made_by_request TEXT NOT NULL DEFAULT ''",
       }},
  };
  return all;
}

}  // namespace platform::sql
