#pragma once
// The provider credentials the worker hands to its runtimes (spec "Authentication" 7): the ones
// set in its environment at start, plus keys a person entered on the local onboarding screen
// (kept in the data dir, mode 0600, so a restart keeps them). Values never leave this object
// except into the environment of the runtime that needs them; callers learn only whether a key
// is set.
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "platform/error.hpp"

namespace platform::worker {

class provider_keys {
 public:
  // `environment` holds NAME=value pairs read at start; `file` is where entered keys live
  // (empty: entered keys are kept in memory only).
  provider_keys(std::vector<std::string> environment, std::string file);

  // Keys a person may enter on the onboarding screen, and which runtime each serves.
  static bool settable(std::string_view name);

  // Stores an entered key (replacing one from the environment). Errors: `unknown_key`,
  // `invalid_key` (empty, over 4 KiB, or not one printable ASCII token), `store_failed`.
  result<void> set(std::string_view name, std::string_view value);
  [[nodiscard]] bool has(std::string_view name) const;
  // NAME=value for each of `names` that is set, for one runtime process's environment.
  [[nodiscard]] std::vector<std::string> env(std::initializer_list<std::string_view> names) const;
  // Every NAME=value (runtime-c, whose catalog providers each read their own variable).
  [[nodiscard]] std::vector<std::string> all_env() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::string, std::less<>> values_;
  std::map<std::string, std::string, std::less<>> entered_;
  std::string file_;
};

}  // namespace platform::worker
