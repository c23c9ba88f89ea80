#pragma once
// A version of an app (issue 35): the source a builder turn left, the build it made if any,
// and the turn itself (run, request, runtime, who asked, when). Versions are numbered 1, 2, 3…
// per app and never rewritten: a restore records a new version with an earlier content. Files
// are stored once by their content's digest, so a version costs what changed, not the size of
// the workspace; a version holds a manifest of path → digest.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace platform {

using version_manifest = std::map<std::string, std::string>;  // path -> "sha256:<hex>" of its content

// "sha256:<hex>" of one file's content.
std::string version_blob_digest(std::string_view content);

// What a version is about, as the turn that made it tells it.
struct version_origin {
  std::string run_id;        // the builder run whose turn made it; empty for a restore's
  std::string request;       // the person's request, first line (preview_request_label)
  std::string runtime_id;
  std::string asked_by;      // the user id of who sent the turn (or who restored)
  std::optional<std::int64_t> restored_from;  // a restore: the version whose content it brings back
};

struct version_changes {
  std::int64_t added = 0;
  std::int64_t removed = 0;
  std::int64_t modified = 0;
  [[nodiscard]] bool none() const { return added == 0 && removed == 0 && modified == 0; }
};

// Of `to` against `from` (the version before it; empty for the first).
version_changes compare_manifests(const version_manifest& from, const version_manifest& to);

// What the builder's next turn is told after a restore (issue 35: its session does not know the
// files changed under it), put before the person's message while the app's latest version is
// a restore: "the user restored version N".
std::string restored_version_note(std::int64_t restored_from);

struct app_version {
  std::string workspace_id;
  std::string app_id;
  std::int64_t number = 0;
  std::int64_t created_at = 0;
  version_origin origin;
  std::string source_digest;              // source_digest() of its files
  std::optional<std::string> build_digest;  // the preview build it had, when one succeeded
  std::int64_t file_count = 0;
  std::int64_t total_bytes = 0;
  version_changes changes;                // against the version before it
  version_manifest manifest;              // empty in lists
  std::map<std::string, std::int64_t> sizes;  // path -> bytes, with the manifest
};

}  // namespace platform
