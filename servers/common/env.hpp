#pragma once
// Reading the servers' settings from the environment: an unset or empty variable takes the
// default; a number outside its range is a clear `invalid_config` error at start-up.
#include <charconv>
#include <cstdlib>
#include <string>

#include "platform/api_error.hpp"
#include "platform/error.hpp"

namespace platform::servers {

inline std::string env(const char* name, std::string fallback = {}) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

inline result<long long> env_number(const char* name, long long fallback, long long min, long long max) {
  std::string v = env(name);
  if (v.empty()) return fallback;
  long long n = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || p != v.data() + v.size() || n < min || n > max) {
    return fail(api_error::invalid_config, std::string(name) + " must be a number from " + std::to_string(min) + " to " +
                                      std::to_string(max));
  }
  return n;
}

}  // namespace platform::servers
