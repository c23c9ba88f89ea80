#include "tool_repair.hpp"

#include <cstdio>

#include "chat_service.hpp"
#include "http.hpp"
#include "web_app.hpp"
#include "tool_shaping.hpp"
#include "../common/json_fields.hpp"
#include "platform/api_error.hpp"

namespace platform::web {

using nlohmann::json;

namespace {

constexpr std::string_view repair_reason = "app_tool_failure";

// The app's persisted runtime settings, or the registry default when they no longer validate
// (a repair must not fail because a model was retired).
result<normalized_settings> repair_settings(web_app& app, const app_record& a) {
  auto s = app_runtime_settings(app.runtimes, a);
  if (s) return s;
  return normalize_runtime_settings(*app.runtimes.get(), "runtime-a", std::nullopt, {});
}

// A new builder run whose first user message is the platform's prompt, started at once: the
// chat machinery claims it, streams it into a replay buffer and publishes run.starting /
// run.stream_ready with runReason, so the builder UI shows it like any run it resumes.
result<std::string> start_repair_run(web_app& app, const repair_request& r) {
  auto a = app.db.get_app(r.workspace_id, r.app_id);
  if (!a) return tl::unexpected(a.error());
  if (!*a) return fail(api_error::not_found, "no such app in this workspace");
  auto settings = repair_settings(app, **a);
  if (!settings) return tl::unexpected(settings.error());

  builder_run_record run;
  run.key = {r.workspace_id, r.app_id, "run_" + random_id(12)};
  run.run_reason = repair_reason;
  run.created_at = run.updated_at = now_ms();
  if (auto made = app.db.create_builder_run(run); !made) return tl::unexpected(made.error());

  std::string prompt = repair_prompt({r.source, r.tool_name, r.error_code, r.report_json});
  json messages = json::array({{{"id", "msg-repair-" + random_id(6)},
                                {"role", "user"},
                                {"parts", json::array({{{"type", "text"}, {"text", prompt}}})}}});
  auto started = app.chat.start({run.key, compact_json(messages), 1, prompt, *settings, std::string(repair_reason)});
  if (!started) return tl::unexpected(started.error());
  return run.key.run_id;
}

audit_event audit_of(const repair_request& r, std::string outcome, std::string builder_run_id) {
  json meta = r.metadata;
  meta["source"] = r.source;
  meta["errorCode"] = r.error_code;
  if (r.category) meta["errorCategory"] = std::string(to_string(*r.category));
  meta["reportSha256"] = sha256_hex(r.report_json);
  meta["reportBytes"] = r.report_json.size();
  return {"aud_" + random_id(10), r.workspace_id, r.app_id, "tool_failure_report", r.actor, r.tool_name,
          r.fingerprint, std::move(outcome), std::move(builder_run_id), compact_json(meta), now_ms()};
}

// The audit trail must not decide the reply: a failed write is logged (ids only).
void record(web_app& app, const audit_event& e) {
  if (auto done = app.db.audit().record(e); !done) {
    std::fprintf(stderr, "web: audit event app=%s outcome=%s not stored: %s\n", e.app_id.c_str(), e.outcome.c_str(),
                 code_c_str(done.error()));
  }
}

json refused(std::string status, std::string message) {
  return {{"ok", false}, {"status", std::move(status)}, {"error", std::move(message)}};
}

}  // namespace

result<json> request_repair(web_app& app, const repair_request& r) {
  if (owner_fixable(r.category)) {
    return refused("not_repairable",
                   "This failure is about credentials, permissions or integration configuration: the integration "
                   "owner fixes it in the integration settings, not the builder.");
  }
  auto admitted = app.db.audit().admit_repair({r.workspace_id, r.app_id, r.fingerprint, now_ms(),
                                               app.cfg.tool_repair_window.count(), app.cfg.tool_repair_max_runs});
  if (!admitted) return tl::unexpected(admitted.error());
  if (!*admitted) {
    record(app, audit_of(r, "loop_guard", ""));
    auto minutes = std::max<long long>(1, app.cfg.tool_repair_window.count() / 60000);
    return refused("loop_guard", "This failure already started " + std::to_string(app.cfg.tool_repair_max_runs) +
                                     " builder repair runs within " + std::to_string(minutes) +
                                     " minutes; no new repair run was started. Ask the builder directly.");
  }
  auto run_id = start_repair_run(app, r);
  if (!run_id) {
    record(app, audit_of(r, "repair_failed", ""));
    return tl::unexpected(run_id.error());
  }
  record(app, audit_of(r, "repair_started", *run_id));
  return json{{"ok", true}, {"status", "repair_started"}, {"builderRunId", *run_id}};
}

}  // namespace platform::web
