#include "platform/app_packages.hpp"

#include <algorithm>
#include <array>

#include <nlohmann/json.hpp>

#include "bounded_json.hpp"
#include "platform/api_error.hpp"
#include "platform/ascii.hpp"
#include "text_split.hpp"

namespace platform {
namespace {

using nlohmann::json;
using ojson = nlohmann::ordered_json;

constexpr std::size_t max_version_bytes = 64;
constexpr std::size_t max_numeric_digits = 15;  // below 2^53: npm reads them as JS numbers
constexpr std::size_t max_problems = 50;
constexpr json_limits manifest_limits{.max_depth = 64, .max_bytes = 1u << 20};
constexpr json_limits lock_limits{.max_depth = 64, .max_bytes = 16u << 20};

bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// One part of a name (the whole unscoped name, or a scope or the name after it).
bool valid_name_part(std::string_view p) {
  if (p.empty() || p.front() == '.' || p.front() == '_') return false;
  return std::all_of(p.begin(), p.end(), [](char c) { return lower_alnum(c) || c == '-' || c == '.' || c == '_'; });
}

bool digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), is_ascii_digit);
}

// "0" or a number without a leading zero, short enough to stay exact as a JS number.
bool numeric_identifier(std::string_view s) {
  return digits(s) && s.size() <= max_numeric_digits && (s.size() == 1 || s.front() != '0');
}

bool prerelease_identifier(std::string_view s) {
  if (s.empty()) return false;
  if (digits(s)) return numeric_identifier(s);
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
  });
}

bool starts_with_any(std::string_view s, std::initializer_list<std::string_view> prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(), [s](std::string_view p) { return istarts_with(s, p); });
}

// A spec or version that names another source than the registry.
bool other_source(std::string_view s) {
  if (starts_with_any(s, {"git+", "git:", "git@", "github:", "gitlab:", "bitbucket:", "gist:", "file:", "link:",
                          "workspace:", "npm:", "http:", "https:", "/", "./", "../", "~/", "~\\", "\\"})) {
    return true;
  }
  if (s.find("://") != std::string_view::npos) return true;
  return iends_with(s, ".tgz") || iends_with(s, ".tar.gz") || iends_with(s, ".tar");
}

// What is wrong with `version` as an app dependency's version, as a (code, reason) pair.
std::optional<std::pair<api_error, std::string>> version_problem(std::string_view version) {
  if (version.empty()) return std::pair<api_error, std::string>{api_error::missing_version, "has no version"};
  if (other_source(version) || version.find_first_of(":/#\\") != std::string_view::npos) {
    return std::pair<api_error, std::string>{
        api_error::unsupported_source, "is not a registry version: URLs, git, file, link, workspace specs and npm: aliases "
                              "are not installed"};
  }
  if (!exact_version(version)) {
    std::string why = version.find('+') != std::string_view::npos
                          ? "has build metadata (\"+...\"), which npm ignores: give the plain version"
                          : "is not an exact version: give one version like 2.1.1 (no ranges such as ^ or ~, no "
                            "tags such as latest, no partial versions)";
    return std::pair<api_error, std::string>{api_error::not_exact_version, why};
  }
  return std::nullopt;
}

std::string shown(std::string_view s) {
  std::string out = "\"";
  out.append(s.substr(0, 80));
  if (s.size() > 80) out += "...";
  return out + "\"";
}

bool printable_ascii(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    auto b = static_cast<unsigned char>(c);
    return b > 0x20 && b < 0x7f;
  });
}

void add(violations& out, std::string path, std::string code, std::string message) {
  if (out.size() < max_problems) out.push_back(violation{std::move(path), std::move(code), std::move(message)});
}

// A lock key: node_modules/NAME(/node_modules/NAME)* with valid names.
bool valid_lock_path(std::string_view key) {
  constexpr std::string_view nm = "node_modules";
  auto parts = split_fields(key, '/');
  std::size_t i = 0;
  while (i < parts.size()) {
    if (parts[i] != nm || i + 1 >= parts.size()) return false;
    std::string name(parts[i + 1]);
    i += 2;
    if (name.starts_with('@')) {
      if (i >= parts.size()) return false;
      name += "/";
      name += parts[i++];
    }
    if (!valid_package_name(name)) return false;
  }
  return !parts.empty();
}

std::string url_host(std::string_view url) {
  url.remove_prefix(std::string_view("https://").size());
  return ascii_lower(url.substr(0, url.find('/')));
}

bool string_member(const json& o, const char* key) { return o.contains(key) && o[key].is_string(); }

// Members read from a lock anyone could have edited: a wrong type is false or empty, never a throw.
bool flag(const json& o, const char* key) { return o.contains(key) && o[key].is_boolean() && o[key].get<bool>(); }
std::string text_member(const json& o, const char* key) { return string_member(o, key) ? o[key].get<std::string>() : std::string(); }

std::map<std::string, std::string> string_map(const json& o, const char* key) {
  std::map<std::string, std::string> out;
  if (!o.contains(key) || !o[key].is_object()) return out;
  for (const auto& [k, v] : o[key].items()) out[k] = v.is_string() ? v.get<std::string>() : std::string("(not a string)");
  return out;
}

// npm's rule for os/cpu/libc lists: "!x" excludes x, plain entries are the allowed set.
bool list_allows(const json& entry, const char* field, const std::string& value) {
  if (!entry.contains(field) || !entry[field].is_array() || entry[field].empty()) return true;
  bool any_plain = false, listed = false;
  for (const auto& v : entry[field]) {
    if (!v.is_string()) continue;
    const auto& s = v.get_ref<const std::string&>();
    if (s == "!" + value) return false;
    if (!s.starts_with('!')) {
      any_plain = true;
      if (s == value || s == "any") listed = true;
    }
  }
  return !any_plain || listed;
}

bool platform_specific(const json& entry) {
  constexpr std::array<const char*, 3> fields{"os", "cpu", "libc"};
  return std::any_of(fields.begin(), fields.end(), [&](const char* f) {
    return entry.contains(f) && entry[f].is_array() && !entry[f].empty();
  });
}

bool fits(const json& entry, const npm_platform& p) {
  return list_allows(entry, "os", p.os) && list_allows(entry, "cpu", p.cpu) &&
         (p.libc.empty() || list_allows(entry, "libc", p.libc));
}

bool optional_entry(const json& entry) { return flag(entry, "optional") || flag(entry, "devOptional"); }

}  // namespace

bool valid_package_name(std::string_view name) noexcept {
  if (name.empty() || name.size() > max_package_name_bytes) return false;
  if (name == "node_modules" || name == "favicon.ico") return false;
  if (name.front() != '@') return valid_name_part(name);
  auto slash = name.find('/');
  if (slash == std::string_view::npos) return false;
  return valid_name_part(name.substr(1, slash - 1)) && valid_name_part(name.substr(slash + 1));
}

bool exact_version(std::string_view version) noexcept {
  if (version.empty() || version.size() > max_version_bytes) return false;
  std::string_view core = version.substr(0, version.find('-'));
  auto numbers = split_fields(core, '.');
  if (numbers.size() != 3 || !std::all_of(numbers.begin(), numbers.end(), numeric_identifier)) return false;
  if (core.size() == version.size()) return true;
  auto pre = split_fields(version.substr(core.size() + 1), '.');
  return std::all_of(pre.begin(), pre.end(), prerelease_identifier);
}

result<package_pin> parse_package_pin(std::string_view spec) {
  if (spec.empty()) return fail(api_error::invalid_spec, "A package spec is empty: write it as name@version, like clsx@2.1.1.");
  if (spec.size() > max_package_spec_bytes || !printable_ascii(spec)) {
    return fail(api_error::invalid_spec, "A package spec must be name@version in plain ASCII without spaces, at most 300 bytes.");
  }
  const std::string unsupported = " is not a registry package: only name@version from the npm registry is installed "
                                  "(no URLs, tarballs, paths, git, file:, link:, workspace: or npm: aliases).";
  if (other_source(spec)) return fail(api_error::unsupported_source, shown(spec) + unsupported);
  auto at = spec.find('@', spec.front() == '@' ? 1 : 0);
  std::string_view name = spec.substr(0, at);
  if (!valid_package_name(name)) {
    if (name.front() != '@' && name.find('/') != std::string_view::npos) {
      return fail(api_error::unsupported_source, shown(spec) + unsupported);
    }
    if (name.find_first_of(":#") != std::string_view::npos) return fail(api_error::unsupported_source, shown(spec) + unsupported);
    return fail(api_error::invalid_name, shown(name) + " is not a valid npm package name (lowercase letters, digits, '-', '.' "
                                               "and '_', optionally @scope/name).");
  }
  std::string_view version = at == std::string_view::npos ? std::string_view{} : spec.substr(at + 1);
  if (auto p = version_problem(version)) {
    std::string example = std::string(name) + "@1.2.3";
    std::string msg = shown(spec) + " " + p->second + ".";
    if (p->first == api_error::missing_version) msg = shown(spec) + " has no version: pin one exact version, like " + example + ".";
    if (p->first == api_error::unsupported_source) msg = shown(spec) + unsupported;
    return fail(p->first, msg);
  }
  return package_pin{std::string(name), std::string(version)};
}

package_request check_package_request(const std::vector<std::string>& specs,
                                      const std::set<std::string, std::less<>>& platform_packages) {
  package_request r;
  if (specs.empty()) {
    add(r.problems, "packages", "no_packages", "\"packages\" must list at least one name@version.");
    return r;
  }
  if (specs.size() > max_packages_per_call) {
    add(r.problems, "packages", "too_many_packages",
        "At most " + std::to_string(max_packages_per_call) + " packages per call: add the others in another call.");
    return r;
  }
  std::set<std::string, std::less<>> seen;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    std::string path = "packages[" + std::to_string(i) + "]";
    auto pin = parse_package_pin(specs[i]);
    if (!pin) {
      add(r.problems, path, std::string(code_name(pin.error())), pin.error().message);
      continue;
    }
    if (platform_packages.contains(pin->name)) {
      add(r.problems, path, "platform_package",
          shown(pin->name) + " is one of the platform's own packages: the app already has it at the platform's "
                              "version, which an app cannot change. Use it as it is.");
      continue;
    }
    if (!seen.insert(pin->name).second) {
      add(r.problems, path, "duplicate_package", shown(pin->name) + " is listed twice: name each package once.");
      continue;
    }
    r.pins.push_back(std::move(*pin));
  }
  return r;
}

std::set<std::string, std::less<>> app_manifest::names() const {
  std::set<std::string, std::less<>> out;
  for (const auto& [k, v] : dependencies) out.insert(k);
  for (const auto& [k, v] : dev_dependencies) out.insert(k);
  return out;
}

manifest_report read_app_manifest(std::string_view package_json) {
  manifest_report r;
  json doc = parse_json_within(package_json, manifest_limits);
  if (doc.is_discarded() || !doc.is_object()) {
    add(r.problems, "", "invalid_json", "package.json is not a JSON object (or is larger than 1 MiB).");
    return r;
  }
  for (const char* field : {"optionalDependencies", "peerDependencies", "bundleDependencies", "bundledDependencies",
                            "overrides", "workspaces", "resolutions"}) {
    if (doc.contains(field)) {
      add(r.problems, field, "unsupported_field",
          std::string("package.json must not have \"") + field + "\": an app lists its packages in \"dependencies\" "
                                                                 "(added with add_packages) and nothing else.");
    }
  }
  app_manifest m;
  for (const char* field : {"dependencies", "devDependencies"}) {
    if (!doc.contains(field)) continue;
    if (!doc[field].is_object()) {
      add(r.problems, field, "invalid_json", std::string("\"") + field + "\" must be an object of name: version.");
      continue;
    }
    auto& into = std::string_view(field) == "dependencies" ? m.dependencies : m.dev_dependencies;
    for (const auto& [name, value] : doc[field].items()) {
      std::string path = std::string(field) + "." + name;
      if (!valid_package_name(name)) {
        add(r.problems, path, "invalid_name", shown(name) + " is not a valid npm package name.");
        continue;
      }
      std::string version = value.is_string() ? value.get<std::string>() : std::string();
      if (!value.is_string() || !printable_ascii(version)) {
        add(r.problems, path, "not_exact_version", shown(name) + " must map to an exact version string.");
        continue;
      }
      if (auto p = version_problem(version)) {
        add(r.problems, path, std::string(code_of(p->first)), shown(name + "@" + version) + " " + p->second + ".");
        continue;
      }
      into[name] = version;
    }
  }
  for (const auto& [name, v] : m.dependencies) {
    if (m.dev_dependencies.contains(name)) {
      add(r.problems, "devDependencies." + name, "duplicate_package",
          shown(name) + " is in both dependencies and devDependencies: keep one.");
    }
  }
  if (r.problems.empty()) r.manifest = std::move(m);
  return r;
}

result<std::string> manifest_with_platform_pins(std::string_view app_package_json, std::string_view template_package_json) {
  auto app = parse_json_within<ojson>(app_package_json, manifest_limits);
  auto tmpl = parse_json_within<ojson>(template_package_json, manifest_limits);
  if (app.is_discarded() || !app.is_object()) return fail(api_error::invalid_json, "package.json is not a JSON object");
  if (tmpl.is_discarded() || !tmpl.is_object()) return fail(api_error::invalid_json, "the template's package.json is not a JSON object");
  constexpr std::array<const char*, 2> fields{"dependencies", "devDependencies"};
  for (const char* field : fields) {
    if (!tmpl.contains(field) || !tmpl[field].is_object()) continue;
    for (const auto& [name, version] : tmpl[field].items()) {
      for (const char* other : fields) {
        if (other != field && app.contains(other) && app[other].is_object()) app[other].erase(name);
      }
      if (!app.contains(field) || !app[field].is_object()) app[field] = ojson::object();
      app[field][name] = version;
    }
  }
  return app.dump(2) + "\n";
}

violations check_app_lock(std::string_view lock_json, const app_manifest* manifest,
                          const std::set<std::string, std::less<>>& registry_hosts) {
  violations out;
  json lock = parse_json_within(lock_json, lock_limits);
  if (lock.is_discarded() || !lock.is_object() || !lock.contains("packages") || !lock["packages"].is_object()) {
    add(out, "", "invalid_json", "package-lock.json is not a lock of npm 7 or later (no \"packages\" object).");
    return out;
  }
  auto version = lock.value("lockfileVersion", json());
  if (!version.is_number_integer() || (version.get<int>() != 2 && version.get<int>() != 3)) {
    add(out, "lockfileVersion", "invalid_json", "package-lock.json must have lockfileVersion 2 or 3.");
  }
  const json& packages = lock["packages"];
  for (const auto& [key, entry] : packages.items()) {
    if (key.empty()) continue;
    std::string path = "packages[" + shown(key) + "]";
    if (!valid_lock_path(key)) {
      add(out, path, "invalid_lock_path", "The lock installs to " + shown(key) + ", which is not node_modules/NAME.");
      continue;
    }
    if (!entry.is_object()) {
      add(out, path, "invalid_json", "A lock entry must be an object.");
      continue;
    }
    if (flag(entry, "link")) {
      add(out, path, "unsupported_source", shown(key) + " is a link to a local folder, which apps cannot install.");
      continue;
    }
    if (!exact_version(text_member(entry, "version"))) {
      add(out, path, "not_exact_version", shown(key) + " has no exact registry version in the lock.");
    }
    if (entry.contains("resolved")) {
      std::string resolved = text_member(entry, "resolved");
      bool ok = istarts_with(resolved, "https://") && printable_ascii(resolved) &&
                resolved.find('@') == std::string::npos && registry_hosts.contains(url_host(resolved));
      if (!ok) add(out, path, "unsupported_source", shown(key) + " is resolved from " + shown(resolved) + ", not the npm registry.");
    }
    bool bundled = flag(entry, "inBundle");
    if (!bundled && text_member(entry, "integrity").empty()) {
      add(out, path, "unpinned_package", shown(key) + " has no integrity hash in the lock.");
    }
  }
  if (manifest) {
    const json root = packages.contains("") ? packages[""] : json::object();
    const std::array<std::pair<const char*, const std::map<std::string, std::string>*>, 2> fields{
        {{"dependencies", &manifest->dependencies}, {"devDependencies", &manifest->dev_dependencies}}};
    for (const auto& [field, want] : fields) {
      if (string_map(root, field) != *want) {
        add(out, std::string("packages[\"\"].") + field, "lock_out_of_sync",
            std::string("package-lock.json's ") + field + " differ from package.json's: add packages with add_packages "
                                                          "rather than by editing package.json.");
      }
      for (const auto& [name, v] : *want) {
        if (!packages.contains("node_modules/" + name)) {
          add(out, "packages[" + shown("node_modules/" + name) + "]", "lock_out_of_sync",
              "The lock pins no package for " + shown(name) + ".");
        }
      }
    }
  }
  return out;
}

violations compare_installed_tree(std::string_view lock_json, const std::map<std::string, std::string>& installed,
                                  const npm_platform& platform) {
  violations out;
  json lock = parse_json_within(lock_json, lock_limits);
  if (lock.is_discarded() || !lock.is_object() || !lock.contains("packages") || !lock["packages"].is_object()) {
    add(out, "", "invalid_json", "package-lock.json is not a lock of npm 7 or later.");
    return out;
  }
  std::map<std::string, const json*> expected;
  std::vector<std::string> skipped;  // optional packages for other platforms: their folders too
  for (const auto& [key, entry] : lock["packages"].items()) {  // nlohmann's object is sorted by key
    if (key.empty() || !entry.is_object()) continue;
    const std::string& k = key;  // structured bindings cannot be captured before C++20's P1091 in clang 14
    if (std::any_of(skipped.begin(), skipped.end(), [&k](const std::string& s) { return k.starts_with(s + "/"); })) continue;
    if (!fits(entry, platform)) {
      if (!optional_entry(entry)) {
        add(out, "packages[" + shown(key) + "]", "not_for_platform",
            shown(key) + " is required but is not made for " + platform.os + "-" + platform.cpu + ".");
      }
      skipped.push_back(key);
      continue;
    }
    expected[key] = &entry;
  }
  for (const auto& [key, entry] : expected) {
    std::string pinned = text_member(*entry, "version");
    auto it = installed.find(key);
    std::string path = "packages[" + shown(key) + "]";
    if (it == installed.end()) {
      // A platform-neutral optional package npm could not fetch is the registry serving fewer
      // packages than it did; a native binding for this very platform is a broken install.
      if (!optional_entry(*entry) || platform_specific(*entry)) {
        add(out, path, "not_installed", shown(key + "@" + pinned) + " is pinned but not installed.");
      }
    } else if (it->second != pinned) {
      add(out, path, "wrong_version", shown(key) + " is installed at " + shown(it->second) + " but pinned at " + shown(pinned) + ".");
    }
  }
  for (const auto& [key, version] : installed) {
    if (!expected.contains(key)) add(out, "packages[" + shown(key) + "]", "not_pinned", shown(key + "@" + version) + " is installed but not pinned by the lock.");
  }
  return out;
}

}  // namespace platform
