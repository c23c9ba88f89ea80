#pragma once
// Metrics as values, and Prometheus's text exposition format 0.0.4 for them: the body of both
// servers' GET /metrics (docs/operations.md, "Metrics"). A family is a counter, a gauge or a
// histogram with a fixed list of label names; each sample gives one value per name (labels
// come from closed sets: runtime ids, outcomes, error codes, never an id or a text). A
// histogram has fixed bucket bounds, and each of its samples counts per bucket.
//
// Sans-I/O: the servers keep the numbers themselves (atomics, bucket_index below on the hot
// path) and make these values from a snapshot on each scrape.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "platform/error.hpp"

namespace platform {

enum class metric_kind : unsigned char { counter, gauge, histogram };

// The format's name for the kind: "counter", "gauge", "histogram".
std::string_view to_string(metric_kind k);

// A counter's or a gauge's value for one label set.
struct metric_sample {
  std::vector<std::string> label_values;  // one per family label name, in its order
  double value = 0;
};

// A histogram's counts for one label set.
struct histogram_sample {
  std::vector<std::string> label_values;
  // Per bucket, not cumulative: one per bound (values <= it and > the bound before), then one
  // for values above the last bound (the +Inf bucket). The text's _bucket lines are the
  // running totals of these, and _count their sum.
  std::vector<std::uint64_t> bucket_counts;
  double sum = 0;
};

struct metric_family {
  std::string name;  // [a-zA-Z_:][a-zA-Z0-9_:]*; counters end in _total
  std::string help;  // one line for HELP (escaped as the format says)
  metric_kind kind = metric_kind::counter;
  std::vector<std::string> label_names;  // [a-zA-Z_][a-zA-Z0-9_]*, not __*, and not `le` for histograms
  std::vector<double> bounds;            // histograms: the buckets' upper bounds, finite and increasing
  std::vector<metric_sample> samples;        // counters and gauges
  std::vector<histogram_sample> histograms;  // histograms
};

// The Content-Type of the text.
inline constexpr std::string_view metrics_content_type = "text/plain; version=0.0.4; charset=utf-8";

bool valid_metric_name(std::string_view name);
bool valid_label_name(std::string_view name);

// The exposition text: per family a HELP and a TYPE line, then its samples (a histogram's as
// name_bucket{...,le="<bound>"} lines up to le="+Inf", name_sum and name_count), each line
// ending in "\n". Error `internal` (a bug of the caller's) when a name or label name is not
// valid, two families share a name, a sample's label values do not match the label names or
// repeat another's, a bucket list does not match the bounds, a counter is negative or not a
// number, or the bounds are not finite and increasing.
result<std::string> write_exposition(std::span<const metric_family> families);

// The pieces, as the format spells them. A label value: \ " and line feed escaped.
void append_label_value(std::string& out, std::string_view value);
// A HELP text: \ and line feed escaped.
void append_help_text(std::string& out, std::string_view help);
// A value: the shortest text that reads back as the same double, as Go's FormatFloat 'g'
// writes it (fixed notation for exponents -4 to 20: "0.0005", "1e-05", "1e+21"); NaN, +Inf, -Inf.
void append_metric_value(std::string& out, double value);

// The bucket `value` falls into: the first bound it does not exceed, else bounds.size() (the
// +Inf bucket). For the hot path: no allocation, no lock.
constexpr std::size_t bucket_index(std::span<const double> bounds, double value) {
  std::size_t i = 0;
  while (i < bounds.size() && value > bounds[i]) ++i;
  return i;
}

}  // namespace platform
