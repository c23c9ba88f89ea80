#include "metrics_routes.hpp"

#include <vector>

#include "http.hpp"
#include "platform/metrics.hpp"
#include "web_app.hpp"
#include "web_metrics.hpp"

namespace platform::web::metrics_routes {

namespace {

using servers::fast_histogram;
using servers::slow_histogram;

metric_family labelled_gauge(std::string name, std::string help, std::string label,
                             std::vector<std::pair<std::string, double>> values) {
  metric_family f{std::move(name), std::move(help), metric_kind::gauge, {std::move(label)}, {}, {}, {}};
  for (auto& [v, n] : values) f.samples.push_back({{std::move(v)}, n});
  return f;
}

template <class Histogram, std::size_t N, class Names>
metric_family histograms_by(std::string name, std::string help, std::string label, const std::array<Histogram, N>& h,
                            const Names& names) {
  auto f = servers::histogram_family<Histogram>(std::move(name), std::move(help), {std::move(label)});
  for (std::size_t i = 0; i < N; ++i) {
    if (!names[i].empty()) f.histograms.push_back(h[i].snapshot({std::string(names[i])}));
  }
  return f;
}

std::vector<metric_family> web_families(web_app& app) {
  const web_metrics& m = web_stats;
  std::vector<metric_family> out;
  out.push_back(servers::runtime_family("platform_web_builder_turns_started_total",
                                        "Builder turns this process claimed and started, by runtime.",
                                        m.builder_turns_started));
  out.push_back(servers::runtime_outcome_family(
      "platform_web_builder_turns_ended_total",
      "Builder turns this process ended, by runtime and outcome (completed, failed, stopped by a person or a budget).",
      m.builder_turns_ended));
  out.push_back(servers::runtime_family("platform_web_agent_runs_started_total",
                                        "App agent runs a worker accepted from this process, by runtime.", m.agent_runs_started));
  out.push_back(servers::runtime_outcome_family(
      "platform_web_agent_runs_ended_total",
      "App agent runs this process ended (the worker's completion, a failed start, a lost run, a stop), by the app's runtime and outcome.",
      m.agent_runs_ended));
  out.push_back(labelled_gauge("platform_web_live_streams", "Streams this process produces now: builder turns and app agent run viewer pumps.",
                               "stream",
                               {{"builder_turn", static_cast<double>(app.chat.active_turns())},
                                {"agent_run", static_cast<double>(m.agent_run_pumps.load())}}));
  out.push_back(labelled_gauge(
      "platform_web_stream_viewers",
      "Viewer responses following a stream now: on the viewer hub's event loop, or on a thread of their own (a chat POST's, an agent run's).",
      "follower",
      {{"hub", static_cast<double>(app.viewers ? app.viewers->viewers() : 0)},
       {"thread", static_cast<double>(m.stream_followers.load())}}));
  out.push_back(servers::gauge_family("platform_web_hub_followed_streams",
                                      "Streams the viewer hub follows now (one reader for all of a stream's viewers).",
                                      static_cast<double>(app.viewers ? app.viewers->followed_streams() : 0)));
  out.push_back(histograms_by("platform_web_chunk_append_seconds",
                              "A worker chunk's arrival to its events' append to the stream's replay buffer, by stream.", "stream",
                              m.chunk_append, stream_kind_names));
  out.push_back(histograms_by("platform_web_first_chunk_seconds",
                              "A chat POST's arrival to its builder turn's first chunk in the stream, by runtime.", "runtime",
                              m.first_chunk, servers::runtime_slot_names()));
  out.push_back(histograms_by("platform_web_store_seconds", "One call of a builder turn to the document store, by operation.", "op",
                              m.store, store_op_names));
  out.push_back(histograms_by("platform_web_cache_seconds",
                              "One call of a stream's producer to the cache store (replay buffers), by operation.", "op", m.cache,
                              cache_op_names));
  out.push_back(servers::error_family("platform_web_errors_total"));
  return out;
}

}  // namespace

void get_metrics(web_app& app, const route_call&, httplib::Response& res) {
  auto text = write_exposition(web_families(app));
  if (!text) return send(res, text.error());
  res.set_header("Cache-Control", "no-store");
  res.set_content(std::move(*text), std::string(metrics_content_type));
}

}  // namespace platform::web::metrics_routes
