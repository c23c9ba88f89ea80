// The agent sandbox's rules: what a jail mounts, which doors it gets, and the requests it
// refuses before any process starts.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "platform/api_error.hpp"
#include "platform/sandbox_jail.hpp"

namespace sandbox_jail_test {

using namespace platform;

sandbox_request turn() {
  sandbox_request r;
  r.identity = {61001, 61001};
  r.workspace = "/srv/data/workspaces/app-a";
  r.home = "/srv/data/sandboxes/t1/home";
  r.tmp = "/srv/data/sandboxes/t1/tmp";
  r.doors_dir = "/srv/data/sandboxes/t1/doors";
  r.read_only = {"/opt/runtimes", "/opt/template/node_modules"};
  r.node_modules = "/opt/template/node_modules";
  r.egress = {sandbox_egress::provider, sandbox_egress::broker};
  r.placeholder = "platform-sandbox-placeholder-0123456789";
  r.env = {"PATH=/usr/bin:/bin", "HOME=" + r.home, "ANTHROPIC_API_KEY=" + r.placeholder};
  r.cwd = r.workspace;
  return r;
}

const sandbox_mount* mount_at(const sandbox_jail& j, const std::string& target) {
  auto it = std::find_if(j.mounts.begin(), j.mounts.end(), [&](const sandbox_mount& m) { return m.target == target; });
  return it == j.mounts.end() ? nullptr : &*it;
}

TEST_CASE("sandbox_jail: the workspace, home and tmp are the only writable mounts") {
  auto j = jail_for(turn());
  REQUIRE(j);
  std::vector<std::string> writable;
  for (const auto& m : j->mounts) {
    if (m.kind == sandbox_mount_kind::bind) writable.push_back(m.target);
  }
  CHECK(writable == std::vector<std::string>{"/srv/data/sandboxes/t1/home", "/srv/data/sandboxes/t1/tmp",
                                             "/srv/data/workspaces/app-a"});
  for (auto dir : sandbox_system_dirs()) {
    REQUIRE(mount_at(*j, std::string(dir)));
    CHECK(mount_at(*j, std::string(dir))->kind == sandbox_mount_kind::ro_bind_if_exists);
  }
  CHECK(mount_at(*j, "/proc")->kind == sandbox_mount_kind::proc);
  CHECK(mount_at(*j, "/tmp")->kind == sandbox_mount_kind::tmpfs);
  CHECK(mount_at(*j, "/opt/runtimes")->kind == sandbox_mount_kind::ro_bind);
}

TEST_CASE("sandbox_jail: node_modules is mounted read-only over the workspace's, after the workspace") {
  auto j = jail_for(turn());
  REQUIRE(j);
  auto ws = std::find_if(j->mounts.begin(), j->mounts.end(), [](const auto& m) { return m.target == "/srv/data/workspaces/app-a"; });
  auto nm = std::find_if(j->mounts.begin(), j->mounts.end(),
                         [](const auto& m) { return m.target == "/srv/data/workspaces/app-a/node_modules"; });
  REQUIRE(nm != j->mounts.end());
  CHECK(nm->kind == sandbox_mount_kind::ro_bind);
  CHECK(nm->source == "/opt/template/node_modules");
  CHECK(ws < nm);  // a later mount covers an earlier one
}

TEST_CASE("sandbox_jail: one door per egress, on its fixed port, through the read-only doors mount") {
  auto r = turn();
  r.egress.push_back(sandbox_egress::provider);
  auto j = jail_for(r);
  REQUIRE(j);
  REQUIRE(j->doors.size() == 2);
  CHECK(j->doors[0].port == sandbox_door_port(sandbox_egress::provider));
  CHECK(j->doors[0].socket == "/run/platform-egress/provider.sock");
  CHECK(j->doors[1].socket == "/run/platform-egress/broker.sock");
  CHECK(mount_at(*j, "/run/platform-egress")->kind == sandbox_mount_kind::ro_bind);
  CHECK(sandbox_door_url(sandbox_egress::broker) == "http://127.0.0.1:47802");
  r.egress.clear();
  auto closed = jail_for(r);
  REQUIRE(closed);
  CHECK(closed->doors.empty());
  CHECK(mount_at(*closed, "/run/platform-egress") == nullptr);
}

TEST_CASE("sandbox_jail: a read-only tree that holds a workspace, home or the doors is refused") {
  for (std::string ro : {"/srv/data", "/srv/data/workspaces", "/srv/data/sandboxes", "/srv"}) {
    auto r = turn();
    r.read_only.push_back(ro);
    auto j = jail_for(r);
    REQUIRE_FALSE(j);
    CHECK(j.error().code == platform::api_error::sandbox_invalid);
  }
  auto r = turn();
  r.read_only.push_back("/");
  CHECK_FALSE(jail_for(r));
  r = turn();
  r.read_only.push_back("/srv/data/workspaces-other");  // a sibling by prefix only is fine
  CHECK(jail_for(r));
}

TEST_CASE("sandbox_jail: root, unnormalized paths, a home under tmp and a cwd outside are refused") {
  auto r = turn();
  r.identity.uid = 0;
  CHECK_FALSE(jail_for(r));
  r = turn();
  r.identity.gid = 0;
  CHECK_FALSE(jail_for(r));
  for (std::string bad : {"relative/ws", "/srv/data/../etc", "/srv/./data", "/srv//data", "/srv/data/", "", "/"}) {
    r = turn();
    r.workspace = bad;
    CAPTURE(bad);
    CHECK_FALSE(jail_for(r));
  }
  r = turn();
  r.home = r.tmp + "/home";
  CHECK_FALSE(jail_for(r));
  r = turn();
  r.tmp = r.workspace + "/tmp";
  CHECK_FALSE(jail_for(r));
  r = turn();
  r.cwd = "/srv/data/workspaces/app-b";
  CHECK_FALSE(jail_for(r));
  r = turn();
  r.cwd = r.workspace + "/src";
  CHECK(jail_for(r));
}

TEST_CASE("sandbox_jail: credentials and platform settings never enter, but the placeholder does") {
  const std::string ph = "platform-sandbox-placeholder-0123456789";
  for (const std::string& e : std::vector<std::string>{"ANTHROPIC_API_KEY=sk-real", "OPENAI_API_KEY=sk-real", "CODEX_API_KEY=x",
                        "CLAUDE_CODE_OAUTH_TOKEN=tok", "INTERNAL_API_TOKEN=" + ph, "PLATFORM_DATA_DIR=/srv/data",
                        "PLATFORM_DATABASE_URL=postgres://x", "REDIS_URL=redis://x", "DATABASE_URL=x",
                        "GITHUB_TOKEN=ghp", "MY_SECRET=x", "PGPASSWORD=x", "AWS_ACCESS_KEY_ID=x", "api_key=x",
                        "NOEQUALS", "=x", "BAD-NAME=x",
                                                               "CLAUDE_CODE_API_KEY_FILE_DESCRIPTOR=sk-1"}) {
    CAPTURE(e);
    CHECK_FALSE(sandbox_env_allowed(e, ph));
  }
  for (const std::string& e : std::vector<std::string>{"PATH=/usr/bin", "HOME=/h", "LANG=C.UTF-8", "ANTHROPIC_API_KEY=" + ph, "OPENAI_API_KEY=" + ph,
                        "ANTHROPIC_BASE_URL=http://127.0.0.1:47801",
                                                              "CLAUDE_CODE_API_KEY_FILE_DESCRIPTOR=3"}) {
    CAPTURE(e);
    CHECK(sandbox_env_allowed(e, ph));
  }
  CHECK_FALSE(sandbox_env_allowed("ANTHROPIC_API_KEY=", ""));  // no placeholder: no credential at all
  auto r = turn();
  r.env.push_back("OPENAI_API_KEY=sk-live-123");
  auto j = jail_for(r);
  REQUIRE_FALSE(j);
  CHECK(j.error().message.find("OPENAI_API_KEY") != std::string::npos);
  CHECK(j.error().message.find("sk-live") == std::string::npos);  // the name, never the value
}

TEST_CASE("sandbox_jail: the turn's broker token passes in its own variable only") {
  auto r = turn();
  r.env.push_back("PLATFORM_BROKER_TOKEN=" + std::string(64, 'a'));
  CHECK_FALSE(jail_for(r));
  r.broker_token_var = "PLATFORM_BROKER_TOKEN";
  CHECK(jail_for(r));
  r.env.push_back("PLATFORM_BROKER_TOKEN_X=1");
  CHECK_FALSE(jail_for(r));
  r = turn();
  r.env.push_back("INTERNAL_API_TOKEN=x");
  r.broker_token_var = "INTERNAL_API_TOKEN";  // not a way to let any secret in
  CHECK_FALSE(jail_for(r));
}

TEST_CASE("sandbox_jail: a test may open one wall at a time, by name") {
  auto o = parse_sandbox_openings("files,network");
  REQUIRE(o);
  CHECK(o->files);
  CHECK(o->network);
  CHECK_FALSE(o->processes);
  CHECK(o->any());
  CHECK_FALSE(parse_sandbox_openings("")->any());
  CHECK_FALSE(parse_sandbox_openings("everything"));
  auto r = turn();
  r.open.files = true;
  r.open.processes = true;
  auto j = jail_for(r);
  REQUIRE(j);
  REQUIRE(mount_at(*j, "/srv/data"));  // every app's workspace, the data dir beside them
  CHECK(mount_at(*j, "/srv/data")->kind == sandbox_mount_kind::bind);
  CHECK(mount_at(*j, "/proc")->kind == sandbox_mount_kind::bind);
  CHECK_FALSE(mount_at(*jail_for(turn()), "/srv/data"));
}

TEST_CASE("sandbox_jail: a path is within another by whole segments") {
  CHECK(sandbox_path_within("/a/b", "/a"));
  CHECK(sandbox_path_within("/a", "/a"));
  CHECK(sandbox_path_within("/a", "/"));
  CHECK_FALSE(sandbox_path_within("/ab", "/a"));
  CHECK_FALSE(sandbox_path_within("/a", "/a/b"));
}

TEST_CASE("sandbox_jail: an app's identity is stable, never 0, and within its range") {
  auto a = sandbox_identity_for("app-a", 61000, 1000);
  CHECK(a.uid == sandbox_identity_for("app-a", 61000, 1000).uid);
  CHECK(a.uid == a.gid);
  CHECK(a.uid >= 61000);
  CHECK(a.uid < 62000);
  int distinct = 0;
  for (int i = 0; i < 50; ++i) {
    distinct += sandbox_identity_for("app-" + std::to_string(i), 61000, 1000).uid != a.uid;
  }
  CHECK(distinct >= 45);
}

}  // namespace sandbox_jail_test
