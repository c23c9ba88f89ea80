#pragma once
// Where an app's releases live (issue 35), beside its versions in the same store. Recording
// a publish reads what went live (the published snapshot, its approved payload, the published
// build) in one transaction, so a release is what viewers were shown, never what the caller
// thought it published. A rollback publishes an earlier release again in one transaction:
// source, approved payload and build together, then records itself as a release. Neither
// touches the draft, its approval or any app data. Failures as in store.hpp.
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "platform/app_release.hpp"
#include "platform/error.hpp"
#include "platform/version_store.hpp"

namespace platform {

using release_page = version_page;  // releases numbered below `before`, newest first

class release_store {
 public:
  virtual ~release_store() = default;

  // Records the app's published state as its next release. Its version is the newest version
  // with the published source; when none has it (the draft was edited after the last turn, as
  // a PATCH of agents.json does), the published source is recorded as a version first.
  // nullopt when the app has no published build (nothing to record).
  virtual result<std::optional<app_release>> record_publish(std::string_view workspace_id, std::string_view app_id,
                                                            const release_request& request) = 0;
  // Newest first.
  virtual result<std::vector<app_release>> list(std::string_view workspace_id, std::string_view app_id,
                                                const release_page& page) = 0;
  virtual result<std::optional<app_release>> get(std::string_view workspace_id, std::string_view app_id,
                                                 std::int64_t number) = 0;
  // Publishes release `number` again, exactly; `made` is the new release it records.
  virtual result<rollback_outcome> roll_back(std::string_view workspace_id, std::string_view app_id, std::int64_t number,
                                             const release_request& request, std::optional<app_release>& made) = 0;
};

}  // namespace platform
