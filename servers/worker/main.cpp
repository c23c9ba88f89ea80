// platform-worker: runs agent sessions for the web server (spec "Worker endpoints"). Glue:
// configuration, the server's limits and guard, the route table (worker_routes.cpp). No
// database access; sessions live in memory.
#include <httplib.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "../common/env.hpp"
#include "../common/find_upwards.hpp"
#include "../common/http_server.hpp"
#include "../common/listen.hpp"
#include "../common/request_checks.hpp"
#include "platform/runtime_registry.hpp"
#include "agent_sandbox.hpp"
#include "worker_app.hpp"
#include "worker_http.hpp"
#include "worker_routes.hpp"

namespace {

using namespace platform::worker;

platform::servers::http_server* running = nullptr;
platform::servers::http_server* broker_listener = nullptr;
void on_signal(int) {
  if (running) running->halt();
  if (broker_listener) broker_listener->halt();
}

// platform-sandbox-relay beside the installed worker, else in the build tree's servers/sandbox.
std::string sandbox_relay_path(const char* argv0) {
  std::filesystem::path exe = platform::servers::executable_path(argv0);
  auto beside = exe.parent_path() / "platform-sandbox-relay";
  std::error_code ec;
  if (std::filesystem::exists(beside, ec)) return beside.string();
  return (exe.parent_path().parent_path() / "sandbox" / "platform-sandbox-relay").string();
}

}  // namespace

int main(int, char** argv) {
  auto cfg = config_from_env(platform::servers::executable_path(argv[0]));
  if (!cfg) {
    std::fprintf(stderr, "platform-worker: %s\n", cfg.error().message.c_str());
    return 2;
  }
  // Fail closed: a worker whose agents cannot be jailed runs none (docs/security.md).
  std::string relay = platform::servers::env("PLATFORM_SANDBOX_RELAY", sandbox_relay_path(argv[0]));
  auto sandbox = agent_sandbox::create(*cfg, relay);
  if (!sandbox) {
    std::fprintf(stderr, "platform-worker: the agent sandbox does not work, so no agent can run: %s\n",
                 sandbox.error().message.c_str());
    return 2;
  }
  cfg->sandbox = *sandbox;
  std::fprintf(stderr, "platform-worker: agent sandbox: %s\n", cfg->sandbox->describe().c_str());
  session_table sessions(cfg->session_ttl);
  broker brk(*cfg);
  worker_registry registry(*cfg, platform::builtin_runtime_registry());
  platform::servers::http_server server;
  // One thread per connection: turn and agent-run streams are long-lived, and a client that
  // sends its request slowly holds a thread until a read waits longer than the read timeout;
  // the pool is sized so that neither starves the rest (docs/operations.md, "Slow clients").
  server.new_task_queue = [] { return new httplib::ThreadPool(1024); };
  server.set_read_timeout(10, 0);
  server.set_keep_alive_timeout(2);
  server.set_write_timeout(30, 0);
  server.set_payload_max_length(body_limits.max_bytes);
  agent_run_table agent_runs(cfg->max_agent_runs, cfg->agent_run_retention);
  worker_app app{*cfg, sessions, registry, brk, agent_runs};
  // No browser has any business here (the web server and the runtimes' MCP clients are the
  // only callers), and without a token only loopback host names are answered.
  platform::request_guard_policy guard;
  guard.browser_callers = false;
  guard.loopback_hosts_only = cfg->internal_token.empty();
  guard.max_body_bytes = body_limits.max_bytes;
  register_routes(server, app, guard);
  // The broker's own listener, where the sandboxes' broker doors lead: /mcp/* and nothing else
  // of the worker's, so a jailed runtime cannot reach a worker route whatever it sends.
  platform::servers::http_server broker_server;
  broker_server.new_task_queue = [] { return new httplib::ThreadPool(256); };
  broker_server.set_read_timeout(10, 0);
  broker_server.set_payload_max_length(body_limits.max_bytes);
  register_routes(broker_server, app, guard, route_set::runtimes);
  int broker_port = platform::servers::bind_deep(broker_server, "127.0.0.1", 0);
  if (broker_port < 0) {
    std::fprintf(stderr, "platform-worker: cannot listen for the sandboxes' broker doors\n");
    return 1;
  }
  cfg->sandbox->set_broker_port(broker_port);
  std::thread broker_thread([&broker_server] { broker_server.listen_after_bind(); });
  broker_listener = &broker_server;
  running = &server;
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  std::signal(SIGPIPE, SIG_IGN);
  int port = platform::servers::bind_deep(server, cfg->host, cfg->port);
  if (port < 0) {
    std::fprintf(stderr, "platform-worker: cannot listen on %s:%d\n", cfg->host.c_str(), cfg->port);
    return 1;
  }
  // Runtimes run on this host: they reach the broker over loopback whatever address we bind.
  bool any = cfg->host == "0.0.0.0" || cfg->host == "::";
  cfg->broker_base_url = "http://" + std::string(any ? "127.0.0.1" : cfg->host) + ":" + std::to_string(port);
  std::printf("platform-worker listening on http://%s:%d\n", cfg->host.c_str(), port);
  std::fflush(stdout);
  bool ok = server.listen_after_bind();
  running = nullptr;
  broker_server.halt();
  broker_thread.join();
  return ok ? 0 : 1;
}
