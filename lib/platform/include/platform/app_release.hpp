#pragma once
// A release of an app (issue 35): what one publish made live, kept forever so it can be
// published again. It names the version whose source went live, the build the published page
// showed, the agents.json payload that was approved for it (with its approval), who published
// and when, and how: directly, through an approved review, or as a rollback to an earlier
// release. Releases are numbered 1, 2, 3… per app; a rollback is a new release with the earlier
// one's version, build and approved payload, so the list says what was live when.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "platform/governance_store.hpp"

namespace platform {

enum class release_via : unsigned char { publish, review, rollback };
inline std::string_view to_string(release_via v) {
  return v == release_via::publish ? "publish" : v == release_via::review ? "review" : "rollback";
}
std::optional<release_via> release_via_from(std::string_view text);

struct app_release {
  std::string workspace_id;
  std::string app_id;
  std::int64_t number = 0;
  std::int64_t version = 0;            // the app version whose source went live
  std::string build_digest;            // the published page's build (a release needs one)
  std::optional<agents_approval> approval;  // the approved payload it runs; none without agents.json
  std::string published_by;
  std::int64_t published_at = 0;
  release_via via = release_via::publish;
  std::string review_id;                      // via review: the review that was approved
  std::optional<std::int64_t> rolled_back_from;  // via rollback: the release published again
};

// How a publish is recorded: the rest is read from what went live, in the store.
struct release_request {
  std::string published_by;
  std::int64_t published_at = 0;
  release_via via = release_via::publish;
  std::string review_id;
};

enum class rollback_outcome : unsigned char {
  rolled_back,
  no_release,    // the app has no such release
  build_missing, // the release's build is no longer stored (it cannot be shown again)
};

}  // namespace platform
