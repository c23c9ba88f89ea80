#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "platform/metrics.hpp"

namespace metrics_test {

using namespace platform;

std::string written(const std::vector<metric_family>& families) {
  auto text = write_exposition(families);
  REQUIRE_MESSAGE(text.has_value(), (text ? std::string() : text.error().message));
  return *text;
}

std::string refusal(const std::vector<metric_family>& families) {
  auto text = write_exposition(families);
  REQUIRE(!text);
  CHECK(text.error().code == api_error::internal);
  return text.error().message;
}

TEST_CASE("metrics: a counter with labels, a gauge without, HELP and TYPE before the samples") {
  metric_family turns{"platform_web_builder_turns_total", "Builder turns ended, by runtime and outcome.",
                      metric_kind::counter, {"runtime", "outcome"}, {},
                      {{{"runtime-a", "completed"}, 3}, {{"runtime-b", "failed"}, 0}}, {}};
  metric_family live{"platform_web_live_streams", "Streams this process produces now.", metric_kind::gauge, {}, {}, {{{}, 2}}, {}};
  CHECK(written({turns, live}) ==
        "# HELP platform_web_builder_turns_total Builder turns ended, by runtime and outcome.\n"
        "# TYPE platform_web_builder_turns_total counter\n"
        "platform_web_builder_turns_total{runtime=\"runtime-a\",outcome=\"completed\"} 3\n"
        "platform_web_builder_turns_total{runtime=\"runtime-b\",outcome=\"failed\"} 0\n"
        "# HELP platform_web_live_streams Streams this process produces now.\n"
        "# TYPE platform_web_live_streams gauge\n"
        "platform_web_live_streams 2\n");
}

TEST_CASE("metrics: a histogram's buckets are running totals up to +Inf, then _sum and _count") {
  metric_family h{"platform_web_chunk_append_seconds", "Worker chunk to its append.", metric_kind::histogram,
                  {"stream"}, {0.001, 0.01, 0.1}, {}, {{{"builder_turn"}, {4, 0, 2, 1}, 0.5625}}};
  CHECK(written({h}) ==
        "# HELP platform_web_chunk_append_seconds Worker chunk to its append.\n"
        "# TYPE platform_web_chunk_append_seconds histogram\n"
        "platform_web_chunk_append_seconds_bucket{stream=\"builder_turn\",le=\"0.001\"} 4\n"
        "platform_web_chunk_append_seconds_bucket{stream=\"builder_turn\",le=\"0.01\"} 4\n"
        "platform_web_chunk_append_seconds_bucket{stream=\"builder_turn\",le=\"0.1\"} 6\n"
        "platform_web_chunk_append_seconds_bucket{stream=\"builder_turn\",le=\"+Inf\"} 7\n"
        "platform_web_chunk_append_seconds_sum{stream=\"builder_turn\"} 0.5625\n"
        "platform_web_chunk_append_seconds_count{stream=\"builder_turn\"} 7\n");
  // Without labels: le alone.
  metric_family bare{"x_seconds", "h", metric_kind::histogram, {}, {1}, {}, {{{}, {0, 0}, 0}}};
  CHECK(written({bare}) ==
        "# HELP x_seconds h\n# TYPE x_seconds histogram\n"
        "x_seconds_bucket{le=\"1\"} 0\nx_seconds_bucket{le=\"+Inf\"} 0\nx_seconds_sum 0\nx_seconds_count 0\n");
}

TEST_CASE("metrics: label values and HELP are escaped as the format says") {
  metric_family f{"m_total", "a \\ back\nslash \"quoted\"", metric_kind::counter, {"code"}, {},
                  {{{"a\"b\\c\nd"}, 1}}, {}};
  CHECK(written({f}) ==
        "# HELP m_total a \\\\ back\\nslash \"quoted\"\n"
        "# TYPE m_total counter\n"
        "m_total{code=\"a\\\"b\\\\c\\nd\"} 1\n");
}

TEST_CASE("metrics: values are the shortest round-tripping text, as Go's FormatFloat 'g'; NaN and infinities spelled out") {
  auto value = [](double v) {
    std::string s;
    append_metric_value(s, v);
    return s;
  };
  CHECK(value(0) == "0");
  CHECK(value(42) == "42");
  CHECK(value(0.1) == "0.1");
  CHECK(value(-2.5) == "-2.5");
  CHECK(value(1e21) == "1e+21");
  CHECK(value(1e20) == "100000000000000000000");
  CHECK(value(123456.789) == "123456.789");
  // Bucket bounds as Prometheus's clients write them: fixed down to 1e-4, then exponents.
  CHECK(value(0.0001) == "0.0001");
  CHECK(value(0.0005) == "0.0005");
  CHECK(value(0.00025) == "0.00025");
  CHECK(value(0.00001) == "1e-05");
  CHECK(value(-1.5e-7) == "-1.5e-07");
  CHECK(value(9007199254740992.0) == "9007199254740992");
  CHECK(value(std::numeric_limits<double>::quiet_NaN()) == "NaN");
  CHECK(value(std::numeric_limits<double>::infinity()) == "+Inf");
  CHECK(value(-std::numeric_limits<double>::infinity()) == "-Inf");
  CHECK(std::stod(value(0.1 + 0.2)) == 0.1 + 0.2);
}

TEST_CASE("metrics: names and label names as the format allows them") {
  for (const char* ok : {"a", "_a", "a:b", ":a", "platform_web_turns_total", "A9_"}) CHECK_MESSAGE(valid_metric_name(ok), ok);
  for (const char* bad : {"", "9a", "a-b", "a b", "a.b", "é"}) CHECK_MESSAGE(!valid_metric_name(bad), bad);
  for (const char* ok : {"a", "_a", "runtime", "A9_"}) CHECK_MESSAGE(valid_label_name(ok), ok);
  for (const char* bad : {"", "9a", "a:b", "__name__", "__x", "a-b"}) CHECK_MESSAGE(!valid_label_name(bad), bad);
}

TEST_CASE("metrics: what the format cannot carry is the caller's bug, refused whole") {
  auto counter = [](std::string name, std::vector<std::string> labels, std::vector<metric_sample> samples) {
    return metric_family{std::move(name), "h", metric_kind::counter, std::move(labels), {}, std::move(samples), {}};
  };
  CHECK(refusal({counter("bad-name", {}, {})}).find("not a metric name") != std::string::npos);
  CHECK(refusal({counter("a_total", {"__x"}, {})}).find("not a label name") != std::string::npos);
  CHECK(refusal({counter("a_total", {"x", "x"}, {})}).find("twice") != std::string::npos);
  CHECK(refusal({counter("a_total", {"x"}, {{{"1", "2"}, 1}})}).find("do not match") != std::string::npos);
  CHECK(refusal({counter("a_total", {"x"}, {{{"1"}, 1}, {{"1"}, 2}})}).find("one label set") != std::string::npos);
  CHECK(refusal({counter("a_total", {}, {{{}, -1}})}).find("negative") != std::string::npos);
  CHECK(refusal({counter("a_total", {}, {{{}, std::nan("")}})}).find("negative") != std::string::npos);
  CHECK(refusal({counter("a_total", {}, {}), counter("a_total", {}, {})}).find("two families") != std::string::npos);
  auto histogram = [](std::vector<std::string> labels, std::vector<double> bounds, std::vector<std::uint64_t> counts) {
    std::vector<std::string> values(labels.size(), "v");
    return metric_family{"h_seconds", "h", metric_kind::histogram, std::move(labels), std::move(bounds), {},
                         {{std::move(values), std::move(counts), 0}}};
  };
  CHECK(refusal({histogram({"le"}, {1}, {0, 0})}).find("le") != std::string::npos);
  CHECK(refusal({histogram({}, {2, 1}, {0, 0, 0})}).find("increase") != std::string::npos);
  CHECK(refusal({histogram({}, {1, 1}, {0, 0, 0})}).find("increase") != std::string::npos);
  CHECK(refusal({histogram({}, {std::numeric_limits<double>::infinity()}, {0, 0})}).find("finite") != std::string::npos);
  CHECK(refusal({histogram({}, {1, 2}, {0, 0})}).find("buckets do not match") != std::string::npos);
  metric_family gauge_with_buckets{"g", "h", metric_kind::gauge, {}, {1}, {}, {}};
  CHECK(refusal({gauge_with_buckets}).find("only a histogram") != std::string::npos);
  // A gauge may go below zero; an empty family is only its HELP and TYPE.
  metric_family negative{"g", "h", metric_kind::gauge, {}, {}, {{{}, -3}}, {}};
  CHECK(written({negative, counter("c_total", {"x"}, {})}) ==
        "# HELP g h\n# TYPE g gauge\ng -3\n# HELP c_total h\n# TYPE c_total counter\n");
}

TEST_CASE("metrics: bucket_index puts a value in the first bucket whose bound it does not exceed") {
  constexpr std::array<double, 3> bounds{0.001, 0.01, 0.1};
  static_assert(bucket_index(bounds, 0.0005) == 0);
  CHECK(bucket_index(bounds, 0) == 0);
  CHECK(bucket_index(bounds, 0.001) == 0);  // le: less or equal
  CHECK(bucket_index(bounds, 0.0011) == 1);
  CHECK(bucket_index(bounds, 0.1) == 2);
  CHECK(bucket_index(bounds, 7) == 3);  // +Inf
  CHECK(bucket_index({}, 7) == 0);
}

}  // namespace metrics_test
