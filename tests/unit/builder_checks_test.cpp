// The pure parts of the worker's builder tools (servers/worker/builder_checks.cpp): what
// done_building tells the model about a command's output and about the build output, and what
// list_app_integration_keys lets through.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include "builder_checks.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace platform::worker;

namespace {

struct temp_dir {
  fs::path path;
  temp_dir() {
    std::random_device rd;
    path = fs::temp_directory_path() / ("builder-checks-" + std::to_string(rd()));
    fs::create_directories(path);
  }
  ~temp_dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  void write(const std::string& rel, const std::string& text) const {
    fs::create_directories((path / rel).parent_path());
    std::ofstream(path / rel, std::ios::binary) << text;
  }
};

const char* vite_index = R"(<!doctype html>
<html lang="en">
  <head>
    <meta charset="UTF-8" />
    <link rel="icon" type="image/svg+xml" href="https://cdn.example/icon.svg" />
    <script type="module" crossorigin src="./assets/index-ab12.js"></script>
    <link rel="stylesheet" crossorigin href="/assets/index-cd34.css?v=1">
  </head>
  <body><div id="root"></div></body>
</html>
)";

bool has_problem(const artifact_report& r, const std::string& part) {
  for (const auto& p : r.problems) {
    if (p.find(part) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("output_tail keeps short output verbatim") {
  output_tail t(100);
  t.append_line("src/App.tsx(3,7): error TS2322: Type 'string' is not assignable to type 'number'.");
  t.append_line("done\r");
  CHECK_FALSE(t.truncated());
  CHECK(t.text() == "src/App.tsx(3,7): error TS2322: Type 'string' is not assignable to type 'number'.\ndone\n");
}

TEST_CASE("output_tail keeps the end of long output and says so") {
  output_tail t(64);
  for (int i = 0; i < 1000; ++i) t.append_line("line " + std::to_string(i));
  REQUIRE(t.truncated());
  std::string text = t.text();
  CHECK(text.rfind("[output truncated: the first ", 0) == 0);
  CHECK(text.find(std::to_string(t.total_bytes()) + " bytes are not shown]") != std::string::npos);
  CHECK(text.size() < 64 + 100);
  CHECK(text.substr(text.size() - 9) == "line 999\n");
}

TEST_CASE("output_tail cuts at a character boundary") {
  output_tail t(10);
  t.append_line("ééééééééééééééé");  // two bytes each
  std::string text = t.text();
  std::string kept = text.substr(text.find('\n') + 1);
  CHECK((static_cast<unsigned char>(kept[0]) & 0xC0) != 0x80);
  CHECK(kept.size() <= 10);
}

TEST_CASE("terminal colour codes are removed") {
  CHECK(strip_ansi("\x1b[31merror\x1b[39m: \x1b[1mbad\x1b[22m") == "error: bad");
  CHECK(strip_ansi("\x1b]8;;https://x\x07link\x1b]8;;\x07") == "link");
  output_tail t(100);
  t.append_line("\x1b[32m✓\x1b[39m built");
  CHECK(t.text() == "✓ built\n");
}

TEST_CASE("local asset references of a Vite index.html") {
  auto refs = local_asset_refs(vite_index);
  REQUIRE(refs.size() == 2);
  CHECK(refs[0].tag == "script");
  CHECK(refs[0].url == "./assets/index-ab12.js");
  CHECK(refs[1].tag == "link");
  CHECK(refs[1].url == "/assets/index-cd34.css");
}

TEST_CASE("comments, inline scripts, anchors and remote URLs are not assets") {
  auto refs = local_asset_refs(R"(<!-- <script src="old.js"></script> -->
<a href="/about">About</a>
<script>const s = '<img src="fake.png">';</script>
<img src=logo.png alt=x>
<script src="data:text/javascript,1"></script>
<SCRIPT SRC='//cdn.example/x.js'></SCRIPT>
<source src="media/clip.mp4#t=1">)");
  REQUIRE(refs.size() == 2);
  CHECK(refs[0].tag == "img");
  CHECK(refs[0].url == "logo.png");
  CHECK(refs[1].url == "media/clip.mp4");
}

TEST_CASE("malformed markup ends the scan instead of looping") {
  CHECK(local_asset_refs("<script src=").empty());
  CHECK(local_asset_refs("<script src=\"a.js").size() == 1);
  CHECK(local_asset_refs("<<<<= = =>").empty());
  CHECK(local_asset_refs("<!-- never closed <script src=a.js>").empty());
}

TEST_CASE("a complete build output passes, with its files and a digest") {
  temp_dir d;
  d.write("index.html", vite_index);
  d.write("assets/index-ab12.js", "console.log(1)");
  d.write("assets/index-cd34.css", "body{}");
  auto r = check_build_output(d.path);
  CHECK(r.ok());
  REQUIRE(r.files.size() == 3);
  CHECK(r.files[0].path == "assets/index-ab12.js");
  CHECK(r.files[2].path == "index.html");
  CHECK(r.total_bytes == std::string(vite_index).size() + 14 + 6);
  CHECK(r.digest.rfind("sha256:", 0) == 0);
  CHECK(r.digest.size() == 7 + 64);

  d.write("assets/index-ab12.js", "console.log(2)");
  CHECK(check_build_output(d.path).digest != r.digest);
}

TEST_CASE("a missing or empty entry page fails") {
  temp_dir d;
  CHECK(has_problem(check_build_output(d.path), "dist/index.html is missing"));
  d.write("index.html", "");
  CHECK(has_problem(check_build_output(d.path), "dist/index.html is empty"));
}

TEST_CASE("missing, empty and escaping assets fail; so does a page without a script") {
  temp_dir d;
  d.write("index.html", vite_index);
  d.write("assets/index-ab12.js", "");
  auto r = check_build_output(d.path);
  CHECK(has_problem(r, "\"./assets/index-ab12.js\", which is empty"));
  CHECK(has_problem(r, "\"/assets/index-cd34.css\", which the build did not produce"));

  d.write("index.html", R"(<script type="module" src="../secret.js"></script>)");
  CHECK(has_problem(check_build_output(d.path), "outside the build output"));

  d.write("index.html", "<html><body>static</body></html>");
  CHECK(has_problem(check_build_output(d.path), "loads no script"));
}

TEST_CASE("integration metadata keeps names and drops secret values") {
  json reply = json::parse(R"([{
    "name": "Acme", "domain": "api.acme.example", "keySlug": "default", "keyName": "Acme key",
    "configured": true, "scopes": ["read"], "tokenUrl": "https://acme.example/token",
    "secrets": [{"name": "ACME_KEY", "label": "API key", "configured": true, "value": "s3cr3t-value"}],
    "missingSecrets": ["ACME_SIGNING"],
    "apiKey": "abc", "accessToken": "t", "clientSecret": "c", "password": "p",
    "note": "Bearer abc.def", "owner": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig",
    "permissionGroups": [{"name": "read", "permissions": ["items:read"]}]
  }])");
  json out = metadata_only(reply);
  REQUIRE(out.size() == 1);
  const json& e = out[0];
  CHECK(e["name"] == "Acme");
  CHECK(e["keySlug"] == "default");
  CHECK(e["keyName"] == "Acme key");
  CHECK(e["tokenUrl"] == "https://acme.example/token");
  CHECK(e["secrets"][0] == json({{"name", "ACME_KEY"}, {"label", "API key"}, {"configured", true}}));
  CHECK(e["missingSecrets"] == json({"ACME_SIGNING"}));
  CHECK(e["permissionGroups"][0]["permissions"][0] == "items:read");
  for (const char* gone : {"apiKey", "accessToken", "clientSecret", "password", "note", "owner"}) {
    CHECK_MESSAGE(!e.contains(gone), gone);
  }
  CHECK(metadata_only(reply).dump().find("s3cr3t") == std::string::npos);
}

TEST_CASE("a secrets map of name to value keeps no value") {
  json out = metadata_only(json::parse(R"({"secrets": {"ACME": "plain-value", "OTHER": {"configured": true}, "SET": true}})"));
  CHECK(out == json::parse(R"({"secrets": {"OTHER": {"configured": true}, "SET": true}})"));
}

TEST_CASE("credential-shaped strings") {
  CHECK(looks_like_secret_value("Bearer abc"));
  CHECK(looks_like_secret_value("  basic dXNlcjpwYXNz"));
  CHECK(looks_like_secret_value("-----BEGIN PRIVATE KEY-----"));
  CHECK(looks_like_secret_value("sk-proj-0123456789abcdef"));
  CHECK(looks_like_secret_value("ghp_0123456789abcdefghij"));
  CHECK(looks_like_secret_value("AKIAABCDEFGHIJKLMNOP"));
  CHECK_FALSE(looks_like_secret_value("api.acme.example"));
  CHECK_FALSE(looks_like_secret_value("sk-"));
  CHECK_FALSE(looks_like_secret_value("Acme key"));
}

// ---- done_building's two commands (build_runner.cpp), with stand-in tools ----

#include <chrono>
#include <cstdlib>

#include "build_runner.hpp"

namespace {

// A workspace whose "tsc" and "vite" are small node scripts doing what a test needs.
void fake_tools(const temp_dir& d, const std::string& tsc_js, const std::string& vite_js) {
  d.write("node_modules/typescript/bin/tsc", tsc_js);
  d.write("node_modules/vite/bin/vite.js", vite_js);
  d.write("tsconfig.json", "{}");
}

}  // namespace

TEST_CASE("both checks run at once, in a minimal environment, with their output combined") {
  if (find_node().empty()) return;  // no node: nothing to run the stand-ins with
  temp_dir d;
  fake_tools(d,
             "console.log('tsc args ' + process.argv.slice(2).join(' '));"
             "console.error('to stderr');"
             "process.exit(2);",
             "const keys = Object.keys(process.env).sort().join(',');"
             "console.log('env ' + keys);"
             "console.log('home ' + (process.env.HOME !== require('os').userInfo().homedir));");
  ::setenv("INTERNAL_API_TOKEN", "never-passed-on", 1);
  auto r = run_build_checks(d.path.string());
  ::unsetenv("INTERNAL_API_TOKEN");
  REQUIRE(r);
  CHECK_FALSE(r->typecheck.ok);
  CHECK(r->typecheck.exit_code == 2);
  CHECK(r->typecheck.output == "tsc args --noEmit -p .\nto stderr\n");
  CHECK(r->build.ok);
  INFO(r->build.output);  // the shell that merges the streams adds PWD
  CHECK(r->build.output.find("env CI,FORCE_COLOR,HOME,LANG,NO_COLOR,PATH,PWD,TMPDIR\n") != std::string::npos);
  CHECK(r->build.output.find("home true") != std::string::npos);
}

TEST_CASE("a check past its time limit is killed with its whole process group") {
  if (find_node().empty()) return;
  temp_dir d;
  // The grandchild holds stdout too: the read only ends when the group is gone.
  fake_tools(d,
             "require('child_process').spawn('sleep', ['60'], {stdio: 'inherit'});"
             "console.log('started'); setTimeout(() => {}, 60000);",
             "for (let i = 0; i < 5000; i++) console.log('line ' + i);");
  build_limits limits;
  limits.typecheck = std::chrono::seconds(1);
  limits.output_tail_bytes = 256;
  auto begun = std::chrono::steady_clock::now();
  auto r = run_build_checks(d.path.string(), limits);
  REQUIRE(r);
  CHECK(std::chrono::steady_clock::now() - begun < std::chrono::seconds(20));
  CHECK(r->typecheck.timed_out);
  CHECK_FALSE(r->typecheck.ok);
  CHECK(r->typecheck.output == "started\n[stopped: no result within 1 s]\n");
  CHECK(r->build.ok);
  CHECK(r->build.truncated);
  CHECK(r->build.output.rfind("[output truncated: the first ", 0) == 0);
  CHECK(r->build.output.size() < 256 + 100);
  CHECK(r->build.output.find("line 4999\n") != std::string::npos);
}

TEST_CASE("a workspace without its tools is reported, not run") {
  temp_dir d;
  auto r = run_build_checks(d.path.string());
  REQUIRE_FALSE(r);
  CHECK(r.error().code == (find_node().empty() ? platform::api_error::node_unavailable : platform::api_error::workspace_incomplete));
}
