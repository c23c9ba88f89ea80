// The rules for an app's npm packages (platform/app_packages.hpp): add_packages specs, the app's
// package.json and package-lock.json, and the installed tree against the lock.
#include <doctest/doctest.h>

#include <string>

#include "platform/api_error.hpp"
#include "platform/app_packages.hpp"

namespace app_packages_test {

using namespace platform;

namespace {

// The error code of a spec, or "ok:<name>|<version>".
std::string spec(std::string_view s) {
  auto p = parse_package_pin(s);
  return p ? "ok:" + p->name + "|" + p->version : std::string(platform::code_name(p.error()));
}

std::string codes(const violations& v) {
  std::string out;
  for (const auto& p : v) out += (out.empty() ? "" : ",") + p.path + "=" + p.code;
  return out;
}

const std::set<std::string, std::less<>> platform_packages{"react", "react-dom", "vite", "typescript", "@types/react"};
const std::set<std::string, std::less<>> registry{"registry.npmjs.org"};

constexpr const char* good_lock = R"({
  "name": "app", "version": "0.0.0", "lockfileVersion": 3, "requires": true,
  "packages": {
    "": {"name": "app", "version": "0.0.0", "dependencies": {"clsx": "2.1.1", "react": "19.3.1"}},
    "node_modules/clsx": {"version": "2.1.1", "resolved": "https://registry.npmjs.org/clsx/-/clsx-2.1.1.tgz",
                          "integrity": "sha512-abc", "license": "MIT"},
    "node_modules/react": {"version": "19.3.1", "integrity": "sha512-def"},
    "node_modules/@scope/native-linux-x64": {"version": "1.0.0", "integrity": "sha512-x", "optional": true,
                                             "os": ["linux"], "cpu": ["x64"]},
    "node_modules/@scope/native-darwin-arm64": {"version": "1.0.0", "integrity": "sha512-y", "optional": true,
                                                "os": ["darwin"], "cpu": ["arm64"]},
    "node_modules/@scope/native-darwin-arm64/node_modules/helper": {"version": "1.0.0", "integrity": "sha512-z"},
    "node_modules/wasm-fallback": {"version": "1.0.0", "integrity": "sha512-w", "optional": true},
    "node_modules/react/node_modules/loose": {"version": "0.1.0-beta.2", "integrity": "sha512-l"}
  }
})";

}  // namespace

TEST_CASE("a spec is a valid name and one exact version") {
  CHECK(spec("clsx@2.1.1") == "ok:clsx|2.1.1");
  CHECK(spec("@radix-ui/react-dialog@1.1.15") == "ok:@radix-ui/react-dialog|1.1.15");
  CHECK(spec("@types/lodash.debounce@4.0.9") == "ok:@types/lodash.debounce|4.0.9");
  CHECK(spec("date-fns@4.1.0-beta.1") == "ok:date-fns|4.1.0-beta.1");
  CHECK(spec("x@0.0.0-rc.0.alpha-1") == "ok:x|0.0.0-rc.0.alpha-1");
  CHECK(spec("under_score@1.0.0") == "ok:under_score|1.0.0");
}

TEST_CASE("ranges, tags and partial versions are not exact") {
  for (const char* s : {"clsx@^2.1.1", "clsx@~2.1.1", "clsx@>=2", "clsx@latest", "clsx@next", "clsx@2.1", "clsx@2",
                        "clsx@2.1.x", "clsx@*", "clsx@v2.1.1", "clsx@=2.1.1", "clsx@2.1.1||3.0.0", "clsx@02.1.1",
                        "clsx@2.01.1", "clsx@2.1.1-", "clsx@2.1.1-01", "clsx@2.1.1-a..b", "clsx@2.1.1+build.5",
                        "clsx@1234567890123456.0.0", "@scope/x@1.0.0-", "clsx@2.1.1-beta_1"}) {
    CAPTURE(s);
    CHECK(spec(s) == "not_exact_version");
  }
  auto e = parse_package_pin("clsx@^2.1.1");
  CHECK(e.error().message.find("exact version") != std::string::npos);
  CHECK(parse_package_pin("clsx@2.1.1+b").error().message.find("build metadata") != std::string::npos);
}

TEST_CASE("URLs, tarballs, paths, git, file, link, workspace and aliases are other sources") {
  for (const char* s : {"https://example.com/x.tgz", "http://registry.example/x", "git+https://github.com/a/b.git",
                        "git+ssh://git@github.com/a/b.git", "git://github.com/a/b", "github:lukeed/clsx",
                        "lukeed/clsx", "lukeed/clsx#v2.1.1", "file:../lib", "link:../lib", "./local", "../up",
                        "/abs/path", "~/home", "x.tgz", "pkg.tar.gz", "clsx@npm:other@1.0.0", "clsx@github:lukeed/clsx",
                        "clsx@file:../x", "clsx@link:../x", "clsx@workspace:*", "clsx@https://x.example/c.tgz",
                        "clsx@git+https://github.com/lukeed/clsx.git", "clsx@lukeed/clsx", "clsx@1.0.0#x",
                        "@scope/x@file:../x", "gitlab:a/b", "bitbucket:a/b", "gist:abc", "npm:clsx@2.1.1",
                        "workspace:x"}) {
    CAPTURE(s);
    CHECK(spec(s) == "unsupported_source");
  }
}

TEST_CASE("names follow npm's rules and cannot act as paths") {
  for (const char* s : {"Clsx@1.0.0", ".hidden@1.0.0", "_private@1.0.0", "@scope@1.0.0", "@/x@1.0.0", "@scope/@1.0.0",
                        "@Scope/x@1.0.0", "@scope/.x@1.0.0", "@scope/x/y@1.0.0", "a!b@1.0.0", "a~b@1.0.0",
                        "node_modules@1.0.0", "favicon.ico@1.0.0", "@1.0.0", "@@1.0.0", "@.@1.0.0"}) {
    CAPTURE(s);
    CHECK(spec(s) == "invalid_name");
  }
  CHECK(valid_package_name(std::string(214, 'a')));
  CHECK_FALSE(valid_package_name(std::string(215, 'a')));
  CHECK_FALSE(valid_package_name("@scope/.."));
  CHECK_FALSE(valid_package_name(".."));
}

TEST_CASE("a spec without a version, and text that is no spec") {
  CHECK(spec("clsx") == "missing_version");
  CHECK(spec("clsx@") == "missing_version");
  CHECK(spec("@types/node") == "missing_version");
  CHECK(parse_package_pin("clsx").error().message.find("clsx@1.2.3") != std::string::npos);
  CHECK(spec("") == "invalid_spec");
  CHECK(spec("clsx @2.1.1") == "invalid_spec");
  CHECK(spec("clsx@2.1.1\n") == "invalid_spec");
  CHECK(spec("cl\xc3\xa9@1.0.0") == "invalid_spec");
  CHECK(spec(std::string(301, 'a')) == "invalid_spec");
}

TEST_CASE("a request holds 1 to 10 distinct packages, none of the platform's") {
  auto ok = check_package_request({"clsx@2.1.1", "@radix-ui/react-dialog@1.1.15"}, platform_packages);
  CHECK(ok.problems.empty());
  REQUIRE(ok.pins.size() == 2);
  CHECK(ok.pins[1] == package_pin{"@radix-ui/react-dialog", "1.1.15"});
  CHECK(ok.pins[0].text() == "clsx@2.1.1");

  CHECK(codes(check_package_request({}, platform_packages).problems) == "packages=no_packages");
  std::vector<std::string> eleven(11, "clsx@2.1.1");
  CHECK(codes(check_package_request(eleven, platform_packages).problems) == "packages=too_many_packages");

  auto bad = check_package_request({"clsx@^2.1.1", "https://example.com/x.tgz", "react@19.0.0", "clsx@2.1.1",
                                    "clsx@2.1.0", "@types/react@19.3.0", "left-pad"},
                                   platform_packages);
  CHECK(codes(bad.problems) ==
        "packages[0]=not_exact_version,packages[1]=unsupported_source,packages[2]=platform_package,"
        "packages[4]=duplicate_package,packages[5]=platform_package,packages[6]=missing_version");
  REQUIRE(bad.pins.size() == 1);
  CHECK(bad.pins[0].text() == "clsx@2.1.1");
  CHECK(bad.problems[2].message.find("platform's own packages") != std::string::npos);
}

TEST_CASE("an app's package.json: exact registry versions only, no fields that pull code from elsewhere") {
  auto ok = read_app_manifest(R"({"name":"app","scripts":{"build":"vite build"},
    "dependencies":{"clsx":"2.1.1","react":"19.3.1"},"devDependencies":{"vite":"8.3.8"}})");
  REQUIRE(ok.manifest);
  CHECK(ok.manifest->dependencies.at("clsx") == "2.1.1");
  CHECK(ok.manifest->dev_dependencies.at("vite") == "8.3.8");
  CHECK(ok.manifest->names().size() == 3);

  auto bad = read_app_manifest(R"({"dependencies":{"a":"^1.0.0","b":"file:../b","c":"git+https://x.example/c.git",
    "Bad":"1.0.0","d":"npm:e@1.0.0","f":1,"g":"1.0.0"},"devDependencies":{"g":"1.0.0"},
    "overrides":{"a":"1.0.0"},"workspaces":["x"],"optionalDependencies":{}})");
  CHECK_FALSE(bad.manifest);
  CHECK(codes(bad.problems) ==
        "optionalDependencies=unsupported_field,overrides=unsupported_field,workspaces=unsupported_field,"
        "dependencies.Bad=invalid_name,dependencies.a=not_exact_version,dependencies.b=unsupported_source,"
        "dependencies.c=unsupported_source,dependencies.d=unsupported_source,dependencies.f=not_exact_version,"
        "devDependencies.g=duplicate_package");
  CHECK(codes(read_app_manifest("[1]").problems) == "=invalid_json");
  CHECK(codes(read_app_manifest("{").problems) == "=invalid_json");
  CHECK(codes(read_app_manifest(R"({"dependencies":[]})").problems) == "dependencies=invalid_json");
  CHECK(codes(read_app_manifest(std::string(70, '[') + std::string(70, ']')).problems) == "=invalid_json");
}

TEST_CASE("the platform's packages follow the template in the manifest add_packages installs") {
  auto out = manifest_with_platform_pins(
      R"({"name":"app","dependencies":{"clsx":"2.1.1","react":"18.0.0"},"devDependencies":{"react-dom":"18.0.0"},"private":true})",
      R"({"dependencies":{"react":"19.3.1","react-dom":"19.3.1"},"devDependencies":{"vite":"8.3.8"}})");
  REQUIRE(out);
  auto m = read_app_manifest(*out);
  REQUIRE(m.manifest);
  CHECK(m.manifest->dependencies == std::map<std::string, std::string>{{"clsx", "2.1.1"}, {"react", "19.3.1"}, {"react-dom", "19.3.1"}});
  CHECK(m.manifest->dev_dependencies == std::map<std::string, std::string>{{"vite", "8.3.8"}});
  CHECK(out->find("\"name\": \"app\"") < out->find("\"private\""));  // member order kept
  CHECK(out->back() == '\n');
  CHECK(manifest_with_platform_pins("nope", "{}").error().code == platform::api_error::invalid_json);
}

TEST_CASE("a lock installs only registry packages with integrity, to node_modules paths") {
  auto m = read_app_manifest(R"({"dependencies":{"clsx":"2.1.1","react":"19.3.1"}})");
  REQUIRE(m.manifest);
  CHECK(codes(check_app_lock(good_lock, &*m.manifest, registry)) == "");
  CHECK(codes(check_app_lock(good_lock, nullptr, registry)) == "");

  auto other = read_app_manifest(R"({"dependencies":{"clsx":"2.1.0","react":"19.3.1","left-pad":"1.3.0"}})");
  CHECK(codes(check_app_lock(good_lock, &*other.manifest, registry)) ==
        "packages[\"\"].dependencies=lock_out_of_sync,packages[\"node_modules/left-pad\"]=lock_out_of_sync");

  auto bad = check_app_lock(R"({"lockfileVersion":3,"packages":{"":{},
    "node_modules/../../etc":{"version":"1.0.0","integrity":"sha512-a"},
    "node_modules/a/../../b":{"version":"1.0.0","integrity":"sha512-a"},
    "lib/x":{"version":"1.0.0","integrity":"sha512-a"},
    "node_modules/@s":{"version":"1.0.0","integrity":"sha512-a"},
    "node_modules/linked":{"link":true,"resolved":"../x"},
    "node_modules/evil":{"version":"1.0.0","resolved":"https://evil.example/x.tgz","integrity":"sha512-a"},
    "node_modules/cred":{"version":"1.0.0","resolved":"https://u:p@registry.npmjs.org/x.tgz","integrity":"sha512-a"},
    "node_modules/git":{"version":"1.0.0","resolved":"git+ssh://git@github.com/a/b.git","integrity":"sha512-a"},
    "node_modules/range":{"version":"^1.0.0","integrity":"sha512-a"},
    "node_modules/noint":{"version":"1.0.0"},
    "node_modules/bundled":{"version":"1.0.0","inBundle":true},
    "node_modules/odd":{"version":1,"integrity":false,"optional":"yes"}}})",
                            nullptr, registry);
  CHECK(codes(bad) ==
        "packages[\"lib/x\"]=invalid_lock_path,packages[\"node_modules/../../etc\"]=invalid_lock_path,"
        "packages[\"node_modules/@s\"]=invalid_lock_path,packages[\"node_modules/a/../../b\"]=invalid_lock_path,"
        "packages[\"node_modules/cred\"]=unsupported_source,packages[\"node_modules/evil\"]=unsupported_source,"
        "packages[\"node_modules/git\"]=unsupported_source,packages[\"node_modules/linked\"]=unsupported_source,"
        "packages[\"node_modules/noint\"]=unpinned_package,packages[\"node_modules/odd\"]=not_exact_version,"
        "packages[\"node_modules/odd\"]=unpinned_package,packages[\"node_modules/range\"]=not_exact_version");
  CHECK(codes(check_app_lock(R"({"lockfileVersion":1,"packages":{}})", nullptr, registry)) == "lockfileVersion=invalid_json");
  CHECK(codes(check_app_lock(R"({"lockfileVersion":3})", nullptr, registry)) == "=invalid_json");
  CHECK(codes(check_app_lock("not json", nullptr, registry)) == "=invalid_json");
  // A mirror the worker is configured with is a registry too.
  CHECK(codes(check_app_lock(R"({"lockfileVersion":3,"packages":{"node_modules/a":{"version":"1.0.0",
    "resolved":"https://npm.mirror.example/a/-/a-1.0.0.tgz","integrity":"sha512-a"}}})",
                             nullptr, {"registry.npmjs.org", "npm.mirror.example"})) == "");
}

TEST_CASE("the installed tree is what the lock pins for this platform, nothing more") {
  std::map<std::string, std::string> tree{{"node_modules/clsx", "2.1.1"},
                                          {"node_modules/react", "19.3.1"},
                                          {"node_modules/react/node_modules/loose", "0.1.0-beta.2"},
                                          {"node_modules/@scope/native-linux-x64", "1.0.0"}};
  npm_platform linux;
  CHECK(codes(compare_installed_tree(good_lock, tree, linux)) == "");  // the wasm fallback may be missing

  auto missing = tree;
  missing.erase("node_modules/clsx");
  missing.erase("node_modules/@scope/native-linux-x64");
  missing["node_modules/react"] = "19.3.0";
  missing["node_modules/extra"] = "1.0.0";
  CHECK(codes(compare_installed_tree(good_lock, missing, linux)) ==
        "packages[\"node_modules/@scope/native-linux-x64\"]=not_installed,packages[\"node_modules/clsx\"]=not_installed,"
        "packages[\"node_modules/react\"]=wrong_version,packages[\"node_modules/extra\"]=not_pinned");

  // On another platform the other binding is expected, and the Linux one must not be there.
  npm_platform mac{"darwin", "arm64", ""};
  auto on_mac = tree;
  on_mac.erase("node_modules/@scope/native-linux-x64");
  on_mac["node_modules/@scope/native-darwin-arm64"] = "1.0.0";
  on_mac["node_modules/@scope/native-darwin-arm64/node_modules/helper"] = "1.0.0";
  CHECK(codes(compare_installed_tree(good_lock, on_mac, mac)) == "");
  CHECK(codes(compare_installed_tree(good_lock, tree, mac)) ==
        "packages[\"node_modules/@scope/native-darwin-arm64\"]=not_installed,"
        "packages[\"node_modules/@scope/native-darwin-arm64/node_modules/helper\"]=not_installed,"
        "packages[\"node_modules/@scope/native-linux-x64\"]=not_pinned");

  CHECK(codes(compare_installed_tree(R"({"packages":{"node_modules/only-mac":{"version":"1.0.0","os":["darwin"]}}})",
                                     {}, linux)) == "packages[\"node_modules/only-mac\"]=not_for_platform");
  CHECK(codes(compare_installed_tree("[]", {}, linux)) == "=invalid_json");
}

}  // namespace app_packages_test
