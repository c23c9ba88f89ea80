#pragma once
// Which versions of an app retention prunes (issue 35; docs/versions.md "Retention"): those
// past the newest `keep_last`, and those older than `max_age_ms`, but never the latest version
// and never a version a release names (a rollback must always find its source). Pruning runs
// after a builder turn records a version, never because of a restore. Sans-I/O: the app's
// versions and the time in, the numbers to prune out.
#include <cstdint>
#include <optional>
#include <set>
#include <vector>

namespace platform {

struct version_retention {
  std::optional<std::int64_t> keep_last;   // nullopt: no count limit
  std::optional<std::int64_t> max_age_ms;  // nullopt: no age limit
  [[nodiscard]] bool keeps_all() const { return !keep_last && !max_age_ms; }
};

struct version_stamp {
  std::int64_t number = 0;
  std::int64_t created_at = 0;
};

// `versions` in any order; `released`: the numbers releases name. Ascending numbers to prune.
std::vector<std::int64_t> prunable_versions(std::vector<version_stamp> versions, const std::set<std::int64_t>& released,
                                            const version_retention& rule, std::int64_t now);

}  // namespace platform
