#pragma once
// Where an app's versions live (issue 35): content-addressed file blobs shared by every
// version and app, and per app its numbered versions. Any replica and any fresh worker can
// serve them, as the preview builds. Failures as in store.hpp.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/app_version.hpp"
#include "platform/error.hpp"
#include "platform/governance_store.hpp"
#include "platform/version_retention.hpp"

namespace platform {

struct version_page {
  std::int64_t limit = 50;
  std::optional<std::int64_t> before;  // versions numbered below this (the list's cursor)
};

class version_store {
 public:
  virtual ~version_store() = default;

  // Records `files` as the app's next version unless they are the latest version's content
  // already (nullopt then: nothing changed). A version of a restore is always recorded. Blobs
  // not stored yet are stored; two replicas recording at once get consecutive numbers.
  virtual result<std::optional<app_version>> record(std::string_view workspace_id, std::string_view app_id,
                                                    const source_files& files, const version_origin& origin,
                                                    const std::optional<std::string>& build_digest, std::int64_t now) = 0;
  // Newest first, without manifests.
  virtual result<std::vector<app_version>> list(std::string_view workspace_id, std::string_view app_id,
                                                const version_page& page) = 0;
  // One version with its manifest; nullopt when the app has no such version.
  virtual result<std::optional<app_version>> get(std::string_view workspace_id, std::string_view app_id,
                                                 std::int64_t number) = 0;
  virtual result<std::optional<app_version>> latest(std::string_view workspace_id, std::string_view app_id) = 0;
  // One stored file content by its digest.
  virtual result<std::optional<std::string>> blob(std::string_view digest) = 0;
  // Deletes the versions `rule` prunes (version_retention.hpp) in one transaction, the later
  // ones staying whole, and the file contents no version holds any more; the numbers pruned.
  virtual result<std::vector<std::int64_t>> prune(std::string_view workspace_id, std::string_view app_id,
                                                  const version_retention& rule, std::int64_t now) = 0;
  // Every file of a version (the restore's content); nullopt without that version.
  virtual result<std::optional<source_files>> files(std::string_view workspace_id, std::string_view app_id,
                                                    std::int64_t number) = 0;
};

}  // namespace platform
