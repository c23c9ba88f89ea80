#pragma once
// The npm packages an app may have beyond the platform's own (the builder's add_packages tool,
// docs/app-runtime.md "npm packages"): exact versions from the registry, nothing else. Pure
// rules over text; the worker runs npm and reads the disk (servers/worker/app_packages.cpp).
//
//   add_packages {"packages": ["clsx@2.1.1", "@radix-ui/react-dialog@1.1.15"]}
//
// A spec is `name@version` with a valid npm package name (lowercase, `@scope/name` allowed) and
// an exact semantic version (`x.y.z`, optionally `-prerelease`). Ranges, tags, URLs, git, file,
// link, workspace specs and `npm:` aliases are refused, and so are the packages the app template
// pins (react, vite, typescript, ...): their versions are the platform's.
#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "platform/error.hpp"

namespace platform {

struct package_pin {
  std::string name;     // "clsx", "@types/lodash"
  std::string version;  // "2.1.1"
  [[nodiscard]] std::string text() const { return name + "@" + version; }
  friend bool operator==(const package_pin&, const package_pin&) = default;
};

inline constexpr std::size_t max_packages_per_call = 10;
inline constexpr std::size_t max_package_name_bytes = 214;  // npm's own limit
inline constexpr std::size_t max_package_spec_bytes = 300;

// npm's rules for a new package name: at most 214 bytes, lowercase letters, digits, '-', '.'
// and '_', not starting with '.' or '_'; `@scope/name` with both parts of that form. Nothing
// that could act as a path (no '/', '..' segment or leading dot outside the scope separator).
bool valid_package_name(std::string_view name) noexcept;

// An exact semantic version: MAJOR.MINOR.PATCH without leading zeros, each at most 15 digits,
// optionally `-` and dot-separated prerelease identifiers ([0-9A-Za-z-], numeric ones without
// leading zeros). No `v` or `=` prefix, no build metadata (npm ignores it), at most 64 bytes.
bool exact_version(std::string_view version) noexcept;

// One `name@version` spec. Error codes, a closed set:
//   invalid_spec        not a spec: empty, longer than 300 bytes, spaces, control or non-ASCII bytes
//   unsupported_source  a URL, a tarball, a path, git/github/file/link/workspace specs, an `npm:`
//                       alias, or a `user/repo` shorthand: only registry versions are installed
//   invalid_name        the name breaks npm's naming rules
//   missing_version     no version (`clsx`, `clsx@`)
//   not_exact_version   a range, a tag or a partial version (`^2.1.1`, `latest`, `2.1`, `2.1.x`)
result<package_pin> parse_package_pin(std::string_view spec);

// The add_packages request: 1 to 10 specs (`no_packages`, `too_many_packages` at path
// `packages`), each parsed (the codes above at `packages[i]`), none of the platform's packages
// (`platform_package`), no package twice (`duplicate_package`). `pins` holds the valid ones in
// order; the request is accepted only when `problems` is empty.
struct package_request {
  std::vector<package_pin> pins;
  violations problems;
};
package_request check_package_request(const std::vector<std::string>& specs,
                                      const std::set<std::string, std::less<>>& platform_packages);

// ---- an app's package.json and package-lock.json ----

// The dependencies of an app's package.json: name -> exact version, `dependencies` and
// `devDependencies` apart.
struct app_manifest {
  std::map<std::string, std::string> dependencies;
  std::map<std::string, std::string> dev_dependencies;
  [[nodiscard]] std::set<std::string, std::less<>> names() const;
};

// package.json as npm may install it for an app: a JSON object whose `dependencies` and
// `devDependencies` are objects of valid names to exact versions (the spec codes above, at
// `dependencies.NAME`), no package in both (`duplicate_package`), and none of the fields that
// pull code from elsewhere or rewrite the tree (`optionalDependencies`, `peerDependencies`,
// `bundleDependencies`, `bundledDependencies`, `overrides`, `workspaces`, `resolutions`:
// `unsupported_field`). Not JSON or not an object: `invalid_json`.
struct manifest_report {
  std::optional<app_manifest> manifest;
  violations problems;
};
manifest_report read_app_manifest(std::string_view package_json);

// The app's package.json with every package the template pins set to the template's version,
// in the same dependency field the template has it (what add_packages installs: the platform's
// packages follow the template). Other members keep their order. Errors: `invalid_json`.
result<std::string> manifest_with_platform_pins(std::string_view app_package_json,
                                                std::string_view template_package_json);

// package-lock.json as npm may install it for an app. Codes at `packages["KEY"]`:
//   invalid_json        not JSON, not an object, no `packages` object, lockfileVersion not 2 or 3
//   invalid_lock_path   a key that is not node_modules/NAME(/node_modules/NAME)* with valid names
//   unsupported_source  `link`, or `resolved` that is not https://HOST/... on an allowed registry host
//   not_exact_version   a `version` that is not exact
//   unpinned_package    no `integrity` (bundled packages excepted)
//   lock_out_of_sync    (with `manifest`) the root entry's dependencies differ from package.json's,
//                       or a dependency has no entry at node_modules/NAME
violations check_app_lock(std::string_view lock_json, const app_manifest* manifest,
                          const std::set<std::string, std::less<>>& registry_hosts);

// Where npm installs: process.platform, process.arch, and the libc family on Linux.
struct npm_platform {
  std::string os = "linux";
  std::string cpu = "x64";
  std::string libc = "glibc";  // "glibc", "musl", or empty off Linux
};

// The installed tree (lock-style key "node_modules/a/node_modules/b" -> the version in its
// package.json, empty when unreadable) against what the lock pins for `platform`, the way
// scripts/npm-pinned-install.mjs checks the project's own trees: every package pinned for this
// platform is installed at its version (`not_installed`, `wrong_version`; a missing optional
// package is accepted unless it is made for this very platform), nothing is installed that the
// lock does not pin (`not_pinned`), and no package the lock requires is made for another
// platform only (`not_for_platform`). A lock that is not JSON: `invalid_json`.
violations compare_installed_tree(std::string_view lock_json, const std::map<std::string, std::string>& installed,
                                  const npm_platform& platform);

}  // namespace platform
