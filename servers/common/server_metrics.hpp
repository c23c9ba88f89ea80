#pragma once
// The numbers behind both servers' GET /metrics (docs/operations.md, "Metrics"): counters,
// gauges and fixed-bucket histograms of atomics, written on the hot path without a lock or an
// allocation, and turned into the core's metric families (platform/metrics.hpp) per scrape.
// Their labels come from closed sets only: the registry's runtime ids, an outcome, an
// api_error code; never an id, a prompt or a message.
#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "platform/api_error.hpp"
#include "platform/metrics.hpp"
#include "platform/runtime_registry.hpp"
#include "error_counts.hpp"

namespace platform::servers {

// ---- closed label sets

// The runtimes of the registry, in its order, then "other" (an id it does not know: never
// expected, since settings are normalized against it). Up to 7 runtimes get a slot of their
// own.
inline constexpr std::size_t runtime_slots = 8;
inline const std::array<std::string, runtime_slots>& runtime_slot_names() {
  static const std::array<std::string, runtime_slots> names = [] {
    std::array<std::string, runtime_slots> n{};
    auto registry = builtin_runtime_registry();
    std::size_t i = 0;
    for (const auto& r : registry.runtimes()) {
      if (i + 1 == runtime_slots) break;
      n[i++] = r.id;
    }
    n[runtime_slots - 1] = "other";
    return n;
  }();
  return names;
}
inline std::size_t runtime_slot(std::string_view runtime_id) {
  const auto& names = runtime_slot_names();
  for (std::size_t i = 0; i + 1 < runtime_slots; ++i) {
    if (!names[i].empty() && names[i] == runtime_id) return i;
  }
  return runtime_slots - 1;
}

// How a turn or a run ended: its result, a failure, or a person's (or a budget's) stop.
enum class run_outcome : unsigned char { completed, failed, stopped };
inline constexpr std::size_t run_outcomes = 3;
inline constexpr std::array<std::string_view, run_outcomes> run_outcome_names{"completed", "failed", "stopped"};

// ---- counters and gauges

using counter = std::atomic<std::uint64_t>;
using gauge = std::atomic<std::int64_t>;

// Increments on construction, decrements on destruction: a gauge of what is alive.
class gauge_hold {
 public:
  explicit gauge_hold(gauge& g) : g_(&g) { g_->fetch_add(1, std::memory_order_relaxed); }
  ~gauge_hold() {
    if (g_) g_->fetch_sub(1, std::memory_order_relaxed);
  }
  gauge_hold(gauge_hold&& o) noexcept : g_(o.g_) { o.g_ = nullptr; }
  gauge_hold(const gauge_hold&) = delete;
  gauge_hold& operator=(const gauge_hold&) = delete;
  gauge_hold& operator=(gauge_hold&&) = delete;

 private:
  gauge* g_;
};

struct by_runtime {
  std::array<counter, runtime_slots> n{};
  void add(std::string_view runtime_id) { n[runtime_slot(runtime_id)].fetch_add(1, std::memory_order_relaxed); }
};

struct by_runtime_outcome {
  std::array<std::array<counter, run_outcomes>, runtime_slots> n{};
  void add(std::string_view runtime_id, run_outcome o) {
    n[runtime_slot(runtime_id)][static_cast<std::size_t>(o)].fetch_add(1, std::memory_order_relaxed);
  }
};

// ---- histograms of durations

// Bucket bounds in seconds. Fast: a chunk's way into the replay buffer, one store or cache
// call (100 µs to 10 s). Slow: a turn's first chunk, a sandbox's start (10 ms to 2 min).
inline constexpr std::array<double, 14> fast_buckets{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
                                                     0.025,  0.05,    0.1,    0.25,  0.5,    1,     10};
inline constexpr std::array<double, 14> slow_buckets{0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120};

template <const auto& Bounds>
class duration_histogram {
 public:
  static constexpr std::span<const double> bounds() { return Bounds; }

  void observe(std::chrono::steady_clock::duration d) {
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
    if (ns < 0) ns = 0;
    buckets_[bucket_index(Bounds, static_cast<double>(ns) * 1e-9)].fetch_add(1, std::memory_order_relaxed);
    sum_ns_.fetch_add(static_cast<std::uint64_t>(ns), std::memory_order_relaxed);
  }
  void observe_since(std::chrono::steady_clock::time_point start) { observe(std::chrono::steady_clock::now() - start); }

  [[nodiscard]] histogram_sample snapshot(std::vector<std::string> label_values) const {
    histogram_sample s{std::move(label_values), {}, 0};
    s.bucket_counts.reserve(buckets_.size());
    for (const auto& b : buckets_) s.bucket_counts.push_back(b.load(std::memory_order_relaxed));
    s.sum = static_cast<double>(sum_ns_.load(std::memory_order_relaxed)) * 1e-9;
    return s;
  }

 private:
  std::array<counter, Bounds.size() + 1> buckets_{};
  counter sum_ns_{0};
};
using fast_histogram = duration_histogram<fast_buckets>;
using slow_histogram = duration_histogram<slow_buckets>;

// ---- families, per scrape

inline metric_family counter_family(std::string name, std::string help, std::vector<std::string> labels = {}) {
  return metric_family{std::move(name), std::move(help), metric_kind::counter, std::move(labels), {}, {}, {}};
}
inline metric_family gauge_family(std::string name, std::string help, double value) {
  return metric_family{std::move(name), std::move(help), metric_kind::gauge, {}, {}, {{{}, value}}, {}};
}
template <class Histogram>
metric_family histogram_family(std::string name, std::string help, std::vector<std::string> labels) {
  auto b = Histogram::bounds();
  return metric_family{std::move(name), std::move(help), metric_kind::histogram, std::move(labels),
                       std::vector<double>(b.begin(), b.end()), {}, {}};
}
inline double value_of(const counter& c) { return static_cast<double>(c.load(std::memory_order_relaxed)); }

// Every runtime of the registry, and "other" when it counted something.
template <class Row>
void for_runtime_slots(Row&& row) {
  const auto& names = runtime_slot_names();
  for (std::size_t i = 0; i < runtime_slots; ++i) {
    if (!names[i].empty()) row(i, names[i]);
  }
}

inline metric_family runtime_family(std::string name, std::string help, const by_runtime& c) {
  auto f = counter_family(std::move(name), std::move(help), {"runtime"});
  for_runtime_slots([&](std::size_t i, const std::string& runtime) {
    double v = value_of(c.n[i]);
    if (i + 1 < runtime_slots || v > 0) f.samples.push_back({{runtime}, v});
  });
  return f;
}

inline metric_family runtime_outcome_family(std::string name, std::string help, const by_runtime_outcome& c) {
  auto f = counter_family(std::move(name), std::move(help), {"runtime", "outcome"});
  for_runtime_slots([&](std::size_t i, const std::string& runtime) {
    for (std::size_t o = 0; o < run_outcomes; ++o) {
      double v = value_of(c.n[i][o]);
      if (i + 1 < runtime_slots || v > 0) f.samples.push_back({{runtime, std::string(run_outcome_names[o])}, v});
    }
  });
  return f;
}

// The codes replied at least once since the start.
inline metric_family error_family(std::string name) {
  auto f = counter_family(std::move(name), "Error replies sent, by the api_error code of their body (a peer's unknown code: peer_failure).",
                          {"code"});
  for (std::size_t i = 0; i < api_error_rows; ++i) {
    double v = value_of(error_replies[i]);
    if (v > 0) f.samples.push_back({{std::string(code_of(static_cast<api_error>(i)))}, v});
  }
  return f;
}

}  // namespace platform::servers
