#pragma once
// App data migrations: versions 100-199. Documents are keyed by {workspace, app, scope,
// collection, id} so no lookup can cross an app or a scope; the per-collection row counts
// documents so the collection limit is one conditional upsert (race-safe on PostgreSQL too).
#include <vector>

#include "schema.hpp"

namespace platform::sql {

inline const std::vector<migration>& app_data_migrations() {
  static const std::vector<migration> all = {
      {100,
       {
           "CREATE TABLE app_data_documents (workspace_id TEXT NOT NULL, app_id TEXT NOT NULL, "
           "scope TEXT NOT NULL, collection TEXT NOT NULL, id TEXT NOT NULL, data TEXT NOT NULL, "
           "version BIGINT NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, "
           "PRIMARY KEY (workspace_id, app_id, scope, collection, id))",
           "CREATE INDEX app_data_documents_order ON app_data_documents "
           "(workspace_id, app_id, scope, collection, created_at, id)",
           "CREATE TABLE app_data_collections (workspace_id TEXT NOT NULL, app_id TEXT NOT NULL, "
           "scope TEXT NOT NULL, collection TEXT NOT NULL, doc_count BIGINT NOT NULL, "
           "PRIMARY KEY (workspace_id, app_id, scope, collection))",
       }},
  };
  return all;
}

}  // namespace platform::sql
