#include "chat_service.hpp"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "../common/json_fields.hpp"
#include "builder_prompt.hpp"  // builder_system_prompt, from prompts/builder.md
#include "events.hpp"
#include "governed_agents.hpp"
#include "http.hpp"
#include "platform/source_digest.hpp"
#include "platform/builder_run.hpp"
#include "platform/builder_turn.hpp"
#include "platform/run_capability.hpp"
#include "platform/user_stop.hpp"
#include "platform/runtime_registry_json.hpp"
#include "stream_writer.hpp"
#include "budgets.hpp"
#include "previews.hpp"
#include "web_metrics.hpp"

namespace platform::web {

using nlohmann::json;

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

struct chat_service::turn {
  turn_request req;
  std::chrono::steady_clock::time_point start_at, claimed_at;  // start() entered, and returned
  std::string claim_token;
  std::string stream_id;
  std::atomic<bool> claim_lost{false};
  std::atomic<bool> stop_requested{false};
  request_cancel worker_request;              // ends the worker stream at once on a stop
  std::atomic<const worker_client*> streaming_on{nullptr};  // the worker running it, once asked
  std::unique_ptr<stream_writer> writer;      // the stream's events into the cache store
  std::unique_ptr<subscription> stop_listener;  // the run's stop channel, while the turn runs
  run_spend spending;                         // its budget and ledger entry (budgets.hpp)
  std::optional<budget_stop> budget_stopped;  // a budget stopped it: why
};

replay_limits replay_window(const config& c) {
  replay_limits l;
  l.max_bytes = c.replay_max_bytes;
  l.max_chunks = c.replay_max_events;
  return l;
}

namespace {

// The worker request of a turn (docs/http-api.md, "POST /sessions/{appId}/messages").
std::string worker_body(const turn_request& r, const std::optional<builder_run_record>& run, const std::string& capability) {
  json body = {{"runId", r.key.run_id},
               {"runCapability", capability},
               {"workspaceId", r.key.workspace_id},
               {"appId", r.key.app_id},
               {"prompt", r.prompt},
               {"systemPrompt", builder_system_prompt},
               {"settings", json::parse(normalized_settings_to_json(r.settings))},
               {"sessionState", nullptr}};
  if (run) {
    auto it = run->runtime_session_states.find(r.settings.runtime_id);
    if (it != run->runtime_session_states.end()) {
      json state = servers::parse_json_within(it->second.state_json);
      if (!state.is_discarded()) body["sessionState"] = std::move(state);
      body["sessionCoversMessages"] = it->second.covered_messages;
    }
  }
  body["messages"] = servers::parse_json_or_null(r.messages_json);
  return compact_json(body);
}

// Makes the app's draft the worker's workspace (it had none, or a stale one).
bool restore_worker_workspace(const worker_client& worker, const std::string& app_id, const source_files& draft) {
  if (draft.empty()) return false;
  if (auto put = worker.put_source(app_id, draft); !put) {
    std::fprintf(stderr, "web: restoring the workspace of app=%s failed: %s\n", app_id.c_str(), code_c_str(put.error()));
    return false;
  }
  return true;
}

}  // namespace

std::string chat_service::turn_capability(const run_key& k) const {
  return run_capability(capability_key_, {run_kind::builder_turn, k.workspace_id, k.app_id, k.run_id});
}

std::string turn_message_id(const run_key& k, std::int64_t message_count) {
  return "msg-" + k.run_id + "-" + std::to_string(message_count);
}

namespace {

// Where a stop request for a run is published; the replica running its turn listens.
std::string stop_channel(const run_key& k) { return "stop:" + k.workspace_id + ":" + k.app_id + ":" + k.run_id; }

}  // namespace

chat_service::chat_service(const config& cfg, store& db, cache_store& cache, local_streams& local, append_batcher* batcher,
                           const worker_pool& workers, std::string capability_key)
    : cfg_(cfg),
      db_(db),
      cache_(cache),
      local_(local),
      batcher_(batcher),
      workers_(workers),
      capability_key_(std::move(capability_key)) {
  keeper_ = std::thread([this] { housekeeping(); });
}

chat_service::~chat_service() {
  std::unique_lock lock(mu_);
  stopping_ = true;
  cv_.notify_all();
  // Running turns finish on their own (the worker's stream ends); wait for them.
  cv_.wait(lock, [&] { return turns_.empty(); });
  lock.unlock();
  keeper_.join();
}

std::size_t chat_service::active_turns() const {
  std::lock_guard lock(mu_);
  return turns_.size();
}

result<turn_start> chat_service::start(turn_request request) {
  auto t = std::make_shared<turn>();
  t->start_at = std::chrono::steady_clock::now();
  t->claim_token = random_id();
  t->req = std::move(request);
  if (t->req.received == std::chrono::steady_clock::time_point{}) t->req.received = t->start_at;
  // A spent app or workspace budget refuses the turn before anything is claimed (409).
  auto admitted = admit_run(db_, {t->req.key.workspace_id, t->req.key.app_id, turn_message_id(t->req.key, t->req.message_count),
                                  t->req.key.run_id, budget_run_kind::builder_turn});
  if (!admitted) return tl::unexpected(admitted.error());
  t->spending = std::move(*admitted);
  std::int64_t now = now_ms();
  auto outcome = timed_store(store_op::claim, [&] {
    return db_.claim_builder_run(t->req.key,
                                 {t->req.message_count, t->claim_token, now, now + cfg_.lease.count(), t->req.messages_json});
  });
  if (!outcome) return tl::unexpected(outcome.error());
  if (*outcome != claim_outcome::claimed) return turn_start{*outcome, {}};
  publish_builder_event(cache_, "run.starting", t->req.key, run_status::streaming, t->req.run_reason);

  t->stream_id = random_id();
  t->writer = std::make_unique<stream_writer>(cache_, local_, batcher_, t->stream_id, replay_window(cfg_), cfg_.cache_outage_limit);
  auto registered = cache_.create(t->stream_id);
  if (registered) {
    auto set = timed_store(store_op::set_active_stream,
                           [&] { return db_.set_active_stream(t->req.key, t->claim_token, t->stream_id, now_ms()); });
    if (!set) registered = tl::unexpected(set.error());
  }
  if (!registered) {
    (void)db_.end_turn(t->req.key, t->claim_token, {run_status::failed, std::nullopt, 0, now_ms()});
    publish_builder_event(cache_, "run.failed", t->req.key, run_status::failed, t->req.run_reason);
    return tl::unexpected(registered.error());
  }
  // Held by the turn: a stop published from any replica reaches the one running it.
  std::weak_ptr<turn> weak = t;
  auto listener = cache_.subscribe(stop_channel(t->req.key), [weak](std::string_view, std::string_view) {
    if (auto held = weak.lock()) {
      held->stop_requested = true;
      // The runtime first, then the stream: the worker answers once the runtime is gone, so
      // the run ends (and the stop is answered) only after the spending stopped.
      if (const worker_client* w = held->streaming_on.load()) {
        if (auto r = w->stop_turn(held->req.key.app_id, held->req.key.run_id); !r) {
          std::fprintf(stderr, "web: stop app=%s run=%s: the worker did not stop it: %s\n", held->req.key.app_id.c_str(),
                       held->req.key.run_id.c_str(), code_c_str(r.error()));
        }
      }
      held->worker_request.cancel();
    }
  });
  if (listener) t->stop_listener = std::move(*listener);
  publish_builder_event(cache_, "run.stream_ready", t->req.key, run_status::streaming, t->req.run_reason);
  {
    std::lock_guard lock(mu_);
    turns_[t->stream_id] = t;
  }
  t->claimed_at = std::chrono::steady_clock::now();
  if (cfg_.trace) {
    std::fprintf(stderr, "web: turn start app=%s run=%s runtime=%s messages=%lld\n", t->req.key.app_id.c_str(),
                 t->req.key.run_id.c_str(), t->req.settings.runtime_id.c_str(), static_cast<long long>(t->req.message_count));
  }
  web_stats.builder_turns_started.add(t->req.settings.runtime_id);
  std::thread([this, t] { run(t); }).detach();
  return turn_start{claim_outcome::claimed, t->stream_id};
}

// The turn's stream as the turn thread writes it.
struct chat_service_turn_io {
  stream_writer& writer;
  std::atomic<bool>& claim_lost;
};

namespace {

// What builder_turn returns, into the turn's stream; a stream that cannot be written (the claim
// is lost, or the cache store stayed away past its limit) takes nothing more.
void write_step(chat_service_turn_io& io, builder_turn_output step) {
  for (auto event : step.events) {
    if (!io.claim_lost && !io.writer.append(event)) io.claim_lost = true;
  }
  if (step.head && !io.claim_lost) io.writer.put_head(std::move(*step.head));
}

}  // namespace

void chat_service::run(const std::shared_ptr<turn>& t) {
  const run_key& key = t->req.key;
  const auto started_at = std::chrono::steady_clock::now();
  // The message id is stable per turn: a replayed stream repeats it, so the client replaces,
  // not duplicates.
  builder_turn bt({turn_message_id(key, t->req.message_count), replay_window(cfg_)});
  chat_service_turn_io io{*t->writer, t->claim_lost};
  source_files draft_files;
  json body = worker_request(*t, draft_files);
  const worker_client* worker = nullptr;
  result<void> streamed = stream_turn(*t, bt, io, body, draft_files, worker);
  t->stop_listener.reset();
  builder_turn_end how;
  how.stop_requested = t->stop_requested.load();
  if (t->budget_stopped) {
    how.stop_code = std::string(budget_stop_code);
    how.stop_message = t->budget_stopped->message;
  }
  if (!streamed) {
    how.failure = streamed.error().message;
    how.failure_code = streamed.error().code;
  }
  how.stream_lost = t->claim_lost.load();
  write_step(io, bt.end(how));
  auto rec = bt.record(t->req.messages_json, t->req.message_count);
  bool ended = leave_behind(*t, rec, bt.usage(), *worker);
  // Counted before [DONE], so a viewer at the stream's end finds it counted. A turn whose claim
  // was lost did not end its run: the stale recovery failed it.
  using servers::run_outcome;
  web_stats.builder_turns_ended.add(t->req.settings.runtime_id, !ended                               ? run_outcome::failed
                                                                : rec.status == run_status::completed ? run_outcome::completed
                                                                : how.stop_requested                  ? run_outcome::stopped
                                                                                                      : run_outcome::failed);
  write_step(io, bt.done());
  if (!t->writer->finish()) {
    std::fprintf(stderr, "web: stream of run=%s not completed: the cache store stayed unreachable\n", key.run_id.c_str());
  }
  if (ended) {
    publish_builder_event(cache_, rec.status == run_status::completed ? "run.completed" : "run.failed", key, rec.status,
                          t->req.run_reason);
  }
  if (cfg_.trace) {
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started_at).count();
    std::fprintf(stderr, "web: turn end app=%s run=%s status=%s stopped=%d worker_failed=%d chunks=%zu lines=%zu ms=%lld\n",
                 key.app_id.c_str(), key.run_id.c_str(), std::string(to_string(rec.status)).c_str(), bt.stopped() ? 1 : 0,
                 rec.worker_failed ? 1 : 0, bt.chunks(), bt.messages(), static_cast<long long>(ms));
  }
  std::lock_guard lock(mu_);
  turns_.erase(t->stream_id);
  cv_.notify_all();
}

// The worker request of the turn, with what the worker checks its workspace against: whether
// the app has a draft, and its digest (a stale copy, left from when the app was on another
// worker, must not replace the draft after the turn). `draft_files` gets the draft, to write in
// when the worker asks for it.
json chat_service::worker_request(const turn& t, source_files& draft_files) {
  const run_key& key = t.req.key;
  auto run_record = db_.get_builder_run(key);
  json body = json::parse(worker_body(t.req, run_record ? *run_record : std::nullopt, turn_capability(key)));
  // After a restore the runtime's session still remembers the files it wrote since: say so.
  if (auto latest = db_.versions().list(key.workspace_id, key.app_id, {1, std::nullopt}); latest && !latest->empty() &&
                                                                                       latest->front().origin.restored_from) {
    body["prompt"] = restored_version_note(*latest->front().origin.restored_from) + t.req.prompt;
  }
  auto draft = db_.governance().head(key.workspace_id, key.app_id, source_scope::draft);
  body["hasDraft"] = draft && *draft;
  if (draft && *draft) {
    if (auto files = db_.governance().snapshot_files(key.workspace_id, key.app_id, source_scope::draft); files && !files->empty()) {
      draft_files = std::move(*files);
      body["draftDigest"] = source_digest(draft_files);
    }
  }
  return body;
}

// Streams the turn from the app's worker through the bridge into the turn's stream; one that
// cannot be reached or is draining did not start the turn, and the app's next worker takes it
// (docs/operations.md, "Several workers"). `worker` is the one that ran (or last refused) it.
result<void> chat_service::stream_turn(turn& t, builder_turn& bt, chat_service_turn_io& io, const json& body,
                                       const source_files& draft_files, const worker_client*& worker) {
  const run_key& key = t.req.key;
  // PLATFORM_CODEX_TRACE: one line per turn at its first text (ids and numbers only): the
  // route's work before the claim, the claim, the turn thread's work before the worker request,
  // the worker's time to its first text message, and that text's way into the replay buffer.
  std::optional<std::chrono::steady_clock::time_point> request_at;
  bool timing_reported = false;
  auto report_timing = [&](std::chrono::steady_clock::time_point text_at) {
    timing_reported = true;
    auto ms = [](auto from, auto to) { return std::chrono::duration<double, std::milli>(to - from).count(); };
    std::fprintf(stderr,
                 "web: turn timing app=%s run=%s runtime=%s post_to_claim_ms=%.2f claim_ms=%.2f claim_to_request_ms=%.2f "
                 "request_to_first_text_ms=%.2f first_text_to_buffer_ms=%.2f\n",
                 key.app_id.c_str(), key.run_id.c_str(), t.req.settings.runtime_id.c_str(), ms(t.req.received, t.start_at),
                 ms(t.start_at, t.claimed_at), ms(t.claimed_at, *request_at), ms(*request_at, text_at),
                 ms(text_at, std::chrono::steady_clock::now()));
  };
  std::string request = compact_json(body);
  bool first_chunk = true;  // GET /metrics: the POST's arrival to the first chunk in the stream
  auto stream = [&](const worker_client& w) {
    if (!request_at) request_at = std::chrono::steady_clock::now();
    t.streaming_on = &w;
    return w.stream_messages(key.app_id, request,
                             [&](std::string_view data) {
                               // After a stop, what the killed runtime's end says is not the turn's.
                               if (t.stop_requested.load()) return false;
                               std::optional<std::chrono::steady_clock::time_point> text_at;
                               if (cfg_.trace && !timing_reported && data.find(R"("type":"text_delta")") != std::string_view::npos) {
                                 text_at = std::chrono::steady_clock::now();
                               }
                               const auto arrived = std::chrono::steady_clock::now();
                               builder_turn_output step = bt.feed(data);
                               const bool appends = !step.events.empty();
                               write_step(io, std::move(step));
                               if (appends) {
                                 const auto appended = std::chrono::steady_clock::now();
                                 web_stats.chunk_append[static_cast<std::size_t>(stream_kind::builder_turn)].observe(appended - arrived);
                                 if (first_chunk) {
                                   first_chunk = false;
                                   web_stats.first_chunk[servers::runtime_slot(t.req.settings.runtime_id)].observe(appended - t.req.received);
                                 }
                               }
                               if (text_at) report_timing(*text_at);
                               if (auto so_far = bt.take_step_usage()) {
                                 if (auto stop = spend_step(db_, cache_, t.spending, *so_far)) stop_for_budget(t, w, std::move(*stop));
                               }
                               return !t.claim_lost.load() && !t.stop_requested.load();
                             }, &t.worker_request);
  };
  result<void> streamed;
  for (const worker_client* candidate : workers_.for_new_work(key.app_id)) {
    worker = candidate;
    streamed = stream(*worker);
    // A worker without this app's workspace (a new host, a wiped disk, an app that moved) or
    // with a stale one would build on the wrong files and the draft would be replaced after
    // the turn: give it the draft, then go on.
    if (!streamed && needs_workspace_restore(streamed.error()) && restore_worker_workspace(*worker, key.app_id, draft_files)) {
      streamed = stream(*worker);
    }
    if (streamed || !workers_.moves_on(*worker, streamed.error())) break;
  }
  return streamed;
}

// What the turn leaves behind: its session, usage, draft, preview and, above all, its record
// (status and messages). Each write waits out a database that is restarting (the store
// reconnects) for as long as the cache store's outage would be waited out, one deadline for
// all. True when this turn ended the run (the claim was still its own).
bool chat_service::leave_behind(turn& t, const builder_turn_record& rec, const std::optional<run_usage>& usage,
                                const worker_client& worker) {
  const run_key& key = t.req.key;
  const std::string capability = turn_capability(key);
  const auto store_deadline = std::chrono::steady_clock::now() + cfg_.cache_outage_limit;
  auto retried = [&](auto&& write_once) {
    auto r = write_once();
    while (!r && is(r.error(), api_error::store_unavailable) && std::chrono::steady_clock::now() < store_deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      r = write_once();
    }
    return r;
  };
  // A store call alone, each attempt timed as `op` (GET /metrics: platform_web_store_seconds);
  // the draft's and the preview's syncs read from the worker too, and are not.
  auto stored = [&](store_op op, auto&& write_once) { return retried([&] { return timed_store(op, write_once); }); };
  // The worker's closing line says what it left; only what it did not carry, or what changed,
  // is asked of the worker again.
  const auto& closing = rec.closing;
  if (!rec.worker_failed) {
    std::optional<std::string> state;
    if (closing && !closing->session_state_json.empty()) {
      if (closing->session_state_json != "null") state = closing->session_state_json;
    } else if (auto asked = worker.provider_session_state(key.app_id, key.run_id); asked && *asked) {
      state = std::move(**asked);
    }
    if (state) {
      (void)stored(store_op::session_state, [&] {
        return db_.save_provider_session_state(key, t.req.settings.runtime_id, {*state, rec.message_count});
      });
    }
  }
  if (usage) (void)stored(store_op::usage, [&] { return db_.add_usage(key, *usage); });
  settle_run(db_, cache_, t.spending, usage);
  // Before run.completed, so a client that reloads the agents on the event sees this turn's edits.
  source_files turn_files;
  bool have_files = false;
  if (!closing || closing->workspace_changed) {
    if (auto synced = retried([&] { return sync_draft_from_worker(db_, worker, key.workspace_id, key.app_id, now_ms(), capability, &turn_files); }); !synced) {
      std::fprintf(stderr, "web: draft snapshot app=%s not synced: %s\n", key.app_id.c_str(), code_c_str(synced.error()));
    } else {
      have_files = *synced;
    }
  }
  // The live preview moves to the build done_building just made, before run.completed tells
  // the page to look (spec "What the service does" 9).
  const std::string request = preview_request_label(t.req.prompt);
  std::optional<std::string> build;  // the build this turn made, once stored
  if (rec.preview_moved) {
    const preview_made_by made_by{key.run_id, request};
    const std::string known = closing ? closing->build_digest : std::string();
    if (auto shown = retried([&] { return sync_preview_from_worker(db_, worker, key.workspace_id, key.app_id, now_ms(), capability, made_by, known); }); !shown) {
      std::fprintf(stderr, "web: preview app=%s not stored: %s\n", key.app_id.c_str(), code_c_str(shown.error()));
    } else {
      build = *shown;
    }
  }
  // The turn's version (issue 35), with the build it made; a turn that changed nothing makes none.
  if (have_files) {
    const version_origin origin{key.run_id, request, t.req.settings.runtime_id, t.req.asked_by, std::nullopt};
    if (auto made = stored(store_op::version, [&] { return db_.versions().record(key.workspace_id, key.app_id, turn_files, origin, build, now_ms()); }); !made) {
      std::fprintf(stderr, "web: version of app=%s not recorded: %s\n", key.app_id.c_str(), code_c_str(made.error()));
    } else if (*made) {
      prune_versions(key);
    }
  }
  auto ended = stored(store_op::end_turn, [&] {
    return db_.end_turn(key, t.claim_token, {rec.status, rec.messages, rec.message_count, now_ms(), rec.stop_reason, rec.stop_message});
  });
  return ended && *ended;
}

// Retention after a turn's new version (never after a restore): a failure leaves the versions
// for the next turn to prune.
void chat_service::prune_versions(const run_key& key) {
  version_retention rule;
  if (cfg_.version_keep > 0) rule.keep_last = cfg_.version_keep;
  if (cfg_.version_max_age_days > 0) rule.max_age_ms = cfg_.version_max_age_days * 86400000LL;
  if (auto pruned = db_.versions().prune(key.workspace_id, key.app_id, rule, now_ms()); !pruned) {
    std::fprintf(stderr, "web: versions of app=%s not pruned: %s\n", key.app_id.c_str(), code_c_str(pruned.error()));
  }
}

// A budget reached mid-turn: the turn stops as a person's stop does (the runtime first, so
// the spending ends before the stream does), with the budget's reason.
void chat_service::stop_for_budget(turn& t, const worker_client& w, budget_stop stop) {
  if (t.stop_requested.exchange(true)) return;
  if (cfg_.trace) std::fprintf(stderr, "web: budget stop app=%s run=%s scope=%s\n", t.req.key.app_id.c_str(), t.req.key.run_id.c_str(),
                               std::string(to_string(stop.scope)).c_str());
  t.budget_stopped = std::move(stop);
  if (auto r = w.stop_turn(t.req.key.app_id, t.req.key.run_id); !r) {
    std::fprintf(stderr, "web: budget stop app=%s run=%s: the worker did not stop it: %s\n", t.req.key.app_id.c_str(),
                 t.req.key.run_id.c_str(), code_c_str(r.error()));
  }
  t.worker_request.cancel();
}

result<void> chat_service::request_stop(const run_key& key) {
  if (cfg_.trace) std::fprintf(stderr, "web: stop requested app=%s run=%s\n", key.app_id.c_str(), key.run_id.c_str());
  return cache_.publish(stop_channel(key), "stop");
}

void chat_service::housekeeping() {
  auto period = std::max(cfg_.lease / 3, std::chrono::milliseconds(100));
  std::unique_lock lock(mu_);
  while (!stopping_) {
    cv_.wait_for(lock, period, [&] { return stopping_; });
    if (stopping_) break;
    auto active = turns_;
    lock.unlock();
    std::int64_t now = now_ms();
    for (auto& [id, t] : active) {
      (void)t->writer->flush();  // events waiting out an outage go out even while the turn is quiet
      auto kept = timed_store(store_op::renew_lease, [&] { return db_.renew_lease(t->req.key, t->claim_token, now + cfg_.lease.count()); });
      if (kept && !*kept) t->claim_lost = true;  // stale recovery failed it meanwhile
    }
    auto expired = db_.fail_expired_claims(now);
    if (expired) {
      for (const auto& k : *expired) {
        // The event says what kind of run failed (a repair run's runReason), as a turn's own end does.
        auto run = db_.get_builder_run(k);
        std::string reason = run && *run ? (*run)->run_reason : std::string();
        publish_builder_event(cache_, "run.failed", k, run_status::failed, reason);
      }
    }
    lock.lock();
  }
}

}  // namespace platform::web
