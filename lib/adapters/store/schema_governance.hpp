#pragma once
// Migrations of the governance store (versions 200-299): source snapshots per app and scope,
// the governed approval record and the publication. Never edited once released.
#include <vector>

#include "schema.hpp"

namespace platform::sql {

inline const std::vector<migration>& governance_migrations() {
  static const std::vector<migration> all = {
      {200,
       {
           // One row per app and scope ('draft' | 'published'); agents_hash is the v1 hash of
           // the snapshot's agents.json (NULL: missing or not hashable), kept with the files so
           // approval and publish can be conditional statements.
           "CREATE TABLE gov_snapshots (workspace_id TEXT NOT NULL, app_id TEXT NOT NULL, scope TEXT NOT NULL, "
           "version BIGINT NOT NULL DEFAULT 0, agents_hash TEXT, updated_at BIGINT NOT NULL, "
           "PRIMARY KEY (workspace_id, app_id, scope))",
           "CREATE TABLE gov_snapshot_files (workspace_id TEXT NOT NULL, app_id TEXT NOT NULL, scope TEXT NOT NULL, "
           "path TEXT NOT NULL, content TEXT NOT NULL, PRIMARY KEY (workspace_id, app_id, scope, path))",
           "CREATE TABLE gov_approvals (workspace_id TEXT NOT NULL, app_id TEXT NOT NULL, hash TEXT NOT NULL, "
           "payload TEXT NOT NULL, approved_by TEXT NOT NULL, approved_at BIGINT NOT NULL, "
           "PRIMARY KEY (workspace_id, app_id))",
           "CREATE TABLE gov_publications (workspace_id TEXT NOT NULL, app_id TEXT NOT NULL, hash TEXT NOT NULL, "
           "payload TEXT NOT NULL, approved_by TEXT NOT NULL, approved_at BIGINT NOT NULL, "
           "published_by TEXT NOT NULL, published_at BIGINT NOT NULL, snapshot_version BIGINT NOT NULL, "
           "PRIMARY KEY (workspace_id, app_id))",
       }},
      {201,
       {
           // Publish reviews; `pending_key` is the app while pending and NULL after the
           // decision, so one pending review per app is a unique constraint.
           "CREATE TABLE gov_reviews (id TEXT PRIMARY KEY, workspace_id TEXT NOT NULL, app_id TEXT NOT NULL, "
           "status TEXT NOT NULL, requested_by TEXT NOT NULL, note TEXT NOT NULL DEFAULT '', "
           "draft_version BIGINT NOT NULL, decided_by TEXT NOT NULL DEFAULT '', decision_note TEXT NOT NULL DEFAULT '', "
           "created_at BIGINT NOT NULL, decided_at BIGINT NOT NULL DEFAULT 0, pending_key TEXT UNIQUE)",
           "CREATE INDEX gov_reviews_by_app ON gov_reviews (workspace_id, app_id, created_at)",
       }},
      {202,
       {
           // A rollback review (issue 35): the release it asks to publish again; NULL: a publish review.
           "ALTER TABLE gov_reviews ADD COLUMN rollback_to BIGINT",
       }},
  };
  return all;
}

}  // namespace platform::sql
