#pragma once
// platform-web's numbers for GET /metrics (metrics_routes.cpp; docs/operations.md, "Metrics"):
// one process-wide set of atomics, written where things happen (a turn's end, a chunk's
// append, a store or cache call) without a lock or an allocation. Gauges that other parts keep
// already (turns running, viewers on the hub) are read from them at scrape time instead.
#include <array>
#include <chrono>
#include <cstddef>
#include <utility>

#include "../common/server_metrics.hpp"

namespace platform::web {

// The store calls of a builder turn that are timed, a closed set (the label `op`).
enum class store_op : unsigned char { claim, set_active_stream, renew_lease, session_state, usage, version, end_turn };
inline constexpr std::size_t store_ops = 7;
inline constexpr std::array<std::string_view, store_ops> store_op_names{
    "claim", "set_active_stream", "renew_lease", "session_state", "usage", "version", "end_turn"};

// The cache store calls of a stream's producer (stream_writer.cpp), the label `op`.
enum class cache_op : unsigned char { append, put_head, complete };
inline constexpr std::size_t cache_ops = 3;
inline constexpr std::array<std::string_view, cache_ops> cache_op_names{"append", "put_head", "complete"};

// Which producer a stream has: a builder turn, or an app agent run's viewer pump (label `stream`).
enum class stream_kind : unsigned char { builder_turn, agent_run };
inline constexpr std::size_t stream_kinds = 2;
inline constexpr std::array<std::string_view, stream_kinds> stream_kind_names{"builder_turn", "agent_run"};

struct web_metrics {
  servers::by_runtime builder_turns_started;
  servers::by_runtime_outcome builder_turns_ended;
  servers::by_runtime agent_runs_started;
  servers::by_runtime_outcome agent_runs_ended;
  servers::gauge agent_run_pumps{0};      // app agent run streams this process produces now
  servers::gauge stream_followers{0};     // viewer responses following a stream on a thread of their own
  // A worker chunk's arrival to its events' append to the stream, per stream kind.
  std::array<servers::fast_histogram, stream_kinds> chunk_append{};
  // A chat POST's arrival to its turn's first worker chunk in the stream, per runtime.
  std::array<servers::slow_histogram, servers::runtime_slots> first_chunk{};
  std::array<servers::fast_histogram, store_ops> store{};
  std::array<servers::fast_histogram, cache_ops> cache{};
};

constinit inline web_metrics web_stats{};

// A call's result, its time observed in `h`.
template <class Histogram, class Call>
auto timed(Histogram& h, Call&& call) {
  auto since = std::chrono::steady_clock::now();
  auto r = call();
  h.observe_since(since);
  return r;
}

// A store call, timed as `op` (platform_web_store_seconds).
template <class Call>
auto timed_store(store_op op, Call&& call) {
  return timed(web_stats.store[static_cast<std::size_t>(op)], std::forward<Call>(call));
}

// A cache store call of a stream's producer, timed as `op` (platform_web_cache_seconds).
template <class Call>
auto timed_cache(cache_op op, Call&& call) {
  return timed(web_stats.cache[static_cast<std::size_t>(op)], std::forward<Call>(call));
}

}  // namespace platform::web
