#include "platform/version_retention.hpp"

#include <algorithm>

namespace platform {

std::vector<std::int64_t> prunable_versions(std::vector<version_stamp> versions, const std::set<std::int64_t>& released,
                                            const version_retention& rule, std::int64_t now) {
  std::vector<std::int64_t> out;
  if (rule.keeps_all() || versions.empty()) return out;
  std::sort(versions.begin(), versions.end(), [](const auto& a, const auto& b) { return a.number > b.number; });
  for (std::size_t rank = 1; rank < versions.size(); ++rank) {  // rank 0: the latest, always kept
    const auto& v = versions[rank];
    if (released.contains(v.number)) continue;
    const bool past_count = rule.keep_last && static_cast<std::int64_t>(rank) >= *rule.keep_last;
    const bool too_old = rule.max_age_ms && now - v.created_at > *rule.max_age_ms;
    if (past_count || too_old) out.push_back(v.number);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace platform
