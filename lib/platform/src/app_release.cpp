#include "platform/app_release.hpp"

namespace platform {

std::optional<release_via> release_via_from(std::string_view text) {
  for (auto via : {release_via::publish, release_via::review, release_via::rollback}) {
    if (to_string(via) == text) return via;
  }
  return std::nullopt;
}

}  // namespace platform
