#include "worker_metrics.hpp"

#include <string>
#include <vector>

#include "../common/request_checks.hpp"
#include "platform/metrics.hpp"
#include "worker_stats.hpp"

namespace platform::worker {

namespace {

std::vector<metric_family> worker_families(worker_app& app) {
  const worker_metrics& m = worker_stats;
  std::vector<metric_family> out;
  out.push_back(servers::runtime_family("platform_worker_builder_turns_started_total",
                                        "Builder turns whose runtime this worker started, by runtime.", m.builder_turns_started));
  out.push_back(servers::runtime_outcome_family(
      "platform_worker_builder_turns_ended_total",
      "Builder turns that ended on this worker, by runtime and outcome (completed: the runtime's result; stopped: a stop "
      "interrupted it; failed: anything else, the web server going away included).",
      m.builder_turns_ended));
  out.push_back(servers::runtime_family("platform_worker_agent_runs_started_total",
                                        "App agent runs this worker admitted and started, by runtime.", m.agent_runs_started));
  out.push_back(servers::runtime_outcome_family("platform_worker_agent_runs_ended_total",
                                                "App agent runs that ended on this worker, by runtime and outcome.",
                                                m.agent_runs_ended));
  out.push_back(servers::gauge_family("platform_worker_builder_turns_running", "Builder turns streaming on this worker now.",
                                      static_cast<double>(app.turns_running.load())));
  out.push_back(servers::gauge_family("platform_worker_agent_runs_running", "App agent runs running on this worker now.",
                                      static_cast<double>(app.agent_runs.running())));
  out.push_back(servers::gauge_family("platform_worker_draining", "1 while the worker is draining (it refuses new work), else 0.",
                                      app.draining.load() ? 1 : 0));
  auto starts = servers::counter_family("platform_worker_sandbox_starts_total",
                                        "Agent sandboxes (jails) opened for a runtime CLI, a build or an npm install.");
  starts.samples.push_back({{}, servers::value_of(m.sandbox_starts)});
  out.push_back(std::move(starts));
  auto failures = servers::counter_family("platform_worker_sandbox_failures_total",
                                          "Agent sandboxes that could not be opened, or not applied to their process.");
  failures.samples.push_back({{}, servers::value_of(m.sandbox_failures)});
  out.push_back(std::move(failures));
  auto open = servers::histogram_family<servers::fast_histogram>(
      "platform_worker_sandbox_open_seconds", "Opening one agent sandbox: its dirs, their ownership and its doors.", {});
  open.histograms.push_back(m.sandbox_open.snapshot({}));
  out.push_back(std::move(open));
  auto first = servers::histogram_family<servers::slow_histogram>(
      "platform_worker_turn_first_line_seconds", "A builder turn request's arrival to its runtime's first line, by runtime.",
      {"runtime"});
  servers::for_runtime_slots(
      [&](std::size_t i, const std::string& runtime) { first.histograms.push_back(m.first_line[i].snapshot({runtime})); });
  out.push_back(std::move(first));
  out.push_back(servers::error_family("platform_worker_errors_total"));
  return out;
}

}  // namespace

void handle_metrics(worker_app& app, httplib::Response& res) {
  auto text = write_exposition(worker_families(app));
  if (!text) return servers::send(res, text.error());
  res.set_header("Cache-Control", "no-store");
  res.set_content(std::move(*text), std::string(metrics_content_type));
}

}  // namespace platform::worker
