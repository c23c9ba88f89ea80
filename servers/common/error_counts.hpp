#pragma once
// Error replies by code, for GET /metrics (server_metrics.hpp): send() (request_checks.hpp),
// the one way a route refuses, counts each reply here. One atomic per code, no lock.
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "platform/api_error.hpp"

namespace platform::servers {

// Every refusal a route writes goes through send() (request_checks.hpp), which counts it here
// by its row: a peer's code outside the set counts as peer_failure. api_error's last row is
// `internal` (api_error.cpp's table is built to end there).
inline constexpr std::size_t api_error_rows = static_cast<std::size_t>(api_error::internal) + 1;
constinit inline std::array<std::atomic<std::uint64_t>, api_error_rows> error_replies{};
inline void count_error_reply(api_error code) {
  auto i = static_cast<std::size_t>(code);
  if (i < api_error_rows) error_replies[i].fetch_add(1, std::memory_order_relaxed);
}

}  // namespace platform::servers
