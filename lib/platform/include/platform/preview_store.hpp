#pragma once
// The live preview's builds (spec "What the service does" 9, "done_building ... triggers a live
// preview"): the output of each successful done_building, stored by its digest so any web
// replica serves it and it outlives the worker's session, and per app the build its draft
// preview shows, and the one its published page shows (promoted on publish, with the published
// source). A digest names its files forever (it is a hash over paths and contents), so a build is
// written once and never changes; an app's preview moves to a newer digest.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/error.hpp"
#include "platform/governance_store.hpp"

namespace platform {

struct preview_file {
  std::string path;   // relative to the build's root, '/'-separated
  std::string bytes;  // the file's content (any bytes)
};

// Which builder turn made a build (issue 34: the preview header names it): its run and the
// request it answered, in the person's own words (the first line, at most 200 bytes).
struct preview_made_by {
  std::string run_id;   // empty: not known (a build stored before this was recorded)
  std::string request;
};

struct app_preview {
  std::string digest;      // "sha256:<hex>"
  std::int64_t updated_at = 0;
  preview_made_by made_by;  // published: the draft's, as it was when published
};

// Failures as in store.hpp: store_unavailable, store_corrupt, store_invalid.
class preview_store {
 public:
  virtual ~preview_store() = default;

  // Stores a build's files under `digest`; a digest already stored is left as it is.
  virtual result<void> put_build(std::string_view digest, const std::vector<preview_file>& files, std::int64_t now) = 0;
  [[nodiscard]] virtual result<bool> has_build(std::string_view digest) = 0;
  // One file of a build; nullopt when the build or the path is unknown.
  virtual result<std::optional<std::string>> file(std::string_view digest, std::string_view path) = 0;
  // The build an app's preview shows in `scope`: draft = the latest successful done_building.
  virtual result<void> set_app_preview(std::string_view workspace_id, std::string_view app_id, source_scope scope,
                                       std::string_view digest, std::int64_t now, const preview_made_by& made_by = {}) = 0;
  virtual result<std::optional<app_preview>> app_preview_of(std::string_view workspace_id, std::string_view app_id,
                                                            source_scope scope) = 0;
  // Publishing: the published page shows the draft's current build from now on. False when
  // the app has no draft build.
  virtual result<bool> publish_preview(std::string_view workspace_id, std::string_view app_id, std::int64_t now) = 0;
};

}  // namespace platform
