// platform-web: the browser-facing HTTP API. Glue: configuration, adapters, routes.
#include <httplib.h>
#include <malloc.h>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>

#include "../common/find_upwards.hpp"
#include "../common/listen.hpp"
#include "../common/request_checks.hpp"
#include "adapters/cache_store.hpp"
#include "adapters/sql_store.hpp"
#include "agent_runs.hpp"
#include "append_batcher.hpp"
#include "auth.hpp"
#include "chat_service.hpp"
#include "http.hpp"
#include "previews.hpp"
#include "web_app.hpp"
#include "web_routes.hpp"
#include "secrets_key.hpp"
#include "tool_execution.hpp"
#include "viewer_hub.hpp"
#include "routine_scheduler.hpp"
#include "routines.hpp"
#include "web_config.hpp"
#include "../common/http_server.hpp"

namespace {

platform::servers::http_server* running = nullptr;

void on_signal(int) {
  if (running) running->halt();
}

std::unique_ptr<platform::cache_store> open_cache(const platform::web::config& cfg) {
  platform::replay_limits limits = platform::web::replay_window(cfg);
  if (cfg.redis_url.empty()) {
    platform::memory_cache_options m;
    m.replay.limits = limits;
    return platform::make_memory_cache_store(m);
  }
  platform::redis_cache_options o;
  o.url = cfg.redis_url;
  o.limits = limits;
  auto c = platform::make_redis_cache_store(o);
  if (!c) {
    std::fprintf(stderr, "platform-web: %s\n", c.error().message.c_str());
    return nullptr;
  }
  return std::move(*c);
}

// The routines' now: the system clock, or (PLATFORM_ROUTINE_CLOCK_FILE, for tests) the Unix ms
// a file holds, so a test moves time instead of waiting for it.
platform::web::routine_scheduler::clock_fn routine_clock(const platform::web::config& cfg) {
  if (cfg.routine_clock_file.empty()) return [] { return platform::web::now_ms(); };
  return [file = cfg.routine_clock_file] {
    std::ifstream in(file);
    long long ms = 0;
    if (!(in >> ms)) return platform::web::now_ms();
    return static_cast<std::int64_t>(ms);
  };
}

// cpp-httplib listens with a backlog of 5 and one pool thread per connection: a burst of
// reconnecting viewers needs a deep backlog and a pool sized for long-lived streams.
bool listen_deep(httplib::Server& server, const std::string& host, int port, platform::web::web_app& app,
                 std::optional<platform::web::routine_scheduler>& routines) {
  int bound = platform::servers::bind_deep(server, host, port);
  if (bound < 0) return false;
  app.self_origin = "http://" + std::string(host == "0.0.0.0" || host == "::" ? "127.0.0.1" : host) + ":" + std::to_string(bound);
  // Once the callbacks' origin is known: the routines' scheduler (every replica runs one; the
  // store gives each tick to one of them).
  app.routine_now = routine_clock(app.cfg);
  routines.emplace(app.db, app.routine_now, &platform::web::first_tick,
                   [&app](const platform::routine_record& r, const std::string& run_id) {
                     return platform::web::start_routine_run(app, r, run_id, platform::routine_trigger::schedule,
                                                             r.schedule ? r.schedule->prompt : std::string());
                   });
  routines->run_every(app.cfg.routine_tick);
  std::printf("platform-web listening on http://%s:%d\n", host.c_str(), bound);
  std::fflush(stdout);
  return server.listen_after_bind();
}

}  // namespace

int main(int, char** argv) {
  using namespace platform::web;
  // One pool thread per viewer stream: glibc's per-thread arenas would keep megabytes of
  // mostly idle heap each; two arenas hold 2,000 viewers in far less memory.
  mallopt(M_ARENA_MAX, 2);
  // A resumed backlog passes through a few megabyte-sized buffers; from the heap they are
  // reused, from mmap every resume pays page faults for them again.
  mallopt(M_MMAP_THRESHOLD, 8 << 20);
  mallopt(M_TRIM_THRESHOLD, 32 << 20);
  auto cfg = config_from_env(platform::servers::executable_path(argv[0]));
  if (!cfg) {
    std::fprintf(stderr, "platform-web: %s\n", cfg.error().message.c_str());
    return 2;
  }
  auto db = platform::open_store(cfg->database_url, cfg->data_dir);
  if (!db) {
    std::fprintf(stderr, "platform-web: %s\n", db.error().message.c_str());
    return 1;
  }
  std::string preview_key;
  std::string capability_key;
  std::string webhook_key;
  if (auto key = load_secrets_key(*cfg); key) {
    (*db)->integrations().install_secrets_key(*key);
    preview_key = derive_preview_key(*key);
    capability_key = derive_run_capability_key(*key);
    webhook_key = derive_webhook_key(*key);
  } else {
    std::fprintf(stderr, "platform-web: %s\n", key.error().message.c_str());
    return 2;
  }
  auto cache = open_cache(*cfg);
  if (!cache) return 1;
  authenticator auth(*cfg, **db);
  if (cfg->auth == auth_mode::none) {
    if (auto r = auth.bootstrap_local(); !r) {
      std::fprintf(stderr, "platform-web: %s\n", r.error().message.c_str());
      return 1;
    }
  }
  worker_pool workers(cfg->worker_urls, cfg->internal_token, cfg->worker_probe);
  runtime_catalog runtimes(workers, platform::builtin_runtime_registry());
  runtimes.refresh_soon();  // the worker lists runtime-c's models slowly: before anyone asks
  // One push path from a turn's append to its viewers here (local_streams.hpp).
  local_streams local;
  local_first_cache followed(*cache, local);
  // With Redis every write is a round trip: the streams' events go in batches, off the turns'
  // threads (append_batcher.hpp). Before chat and app, so it outlives every writer.
  std::optional<append_batcher> batcher;
  if (!cfg->redis_url.empty()) batcher.emplace(*cache);
  append_batcher* batches = batcher ? &*batcher : nullptr;
  chat_service chat(*cfg, **db, followed, local, batches, workers, capability_key);
  web_app app{*cfg, **db, followed, local, batches, workers, runtimes, auth, chat, preview_key, capability_key, webhook_key};
  agent_run_recovery recovery(app);
  // After app, so it stops (and its followers stop asking app's store) before app goes.
  viewer_hub viewers(followed);
  app.viewers = &viewers;
  auto tools = tool_runner::create(*cfg);
  if (!tools) {
    std::fprintf(stderr, "platform-web: HTTP executor: %s: %s\n", code_c_str(tools.error()), tools.error().message.c_str());
    return 2;
  }
  app.tools = tools->get();

  platform::servers::http_server server;
  server.new_task_queue = [] { return new httplib::ThreadPool(2100); };
  server.set_keep_alive_max_count(100);
  // cpp-httplib also waits this long for a new connection's first request; a client busy
  // opening hundreds of connections at once may take longer than 2 s to send it.
  server.set_keep_alive_timeout(5);
  server.set_read_timeout(10, 0);  // a client silent this long mid-request is dropped
  server.set_write_timeout(30, 0);
  server.set_payload_max_length(cfg->max_body_bytes + 1);
  platform::servers::set_error_replies(server, "no such route");
  server.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    send(res, platform::api_error::internal, "the server failed on this request");
  });
  auto get_routes = register_routes(server, app);
  platform::request_guard_policy guard;
  guard.loopback_hosts_only = cfg->auth == auth_mode::none;
  guard.trusted_origins = cfg->public_origins;
  guard.max_body_bytes = cfg->max_body_bytes;
  server.set_pre_routing_handler([&get_routes, &guard, &app](const httplib::Request& req, httplib::Response& res) {
    // A preview origin serves its app's files and nothing else, before any API routing.
    return serve_preview_host(app, req, res) || platform::servers::refused_by_guard(req, res, guard) ||
                   get_routes(req, res)
               ? httplib::Server::HandlerResponse::Handled
               : httplib::Server::HandlerResponse::Unhandled;
  });

  running = &server;
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::signal(SIGPIPE, SIG_IGN);
  std::optional<routine_scheduler> routines;
  bool ok = listen_deep(server, cfg->host, cfg->port, app, routines);
  running = nullptr;
  return ok ? 0 : 1;
}
