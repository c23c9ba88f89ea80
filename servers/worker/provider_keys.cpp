#include "provider_keys.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "../common/json_fields.hpp"
#include "../common/private_file.hpp"
#include "platform/api_error.hpp"

namespace platform::worker {
namespace {

// runtime-a's key and runtime-b's (a ChatGPT login may not enter the sandbox, so a key is how
// a person makes Codex usable); runtime-c's providers come from the operator's opencode config.
constexpr std::array settable_names{std::string_view("ANTHROPIC_API_KEY"), std::string_view("CODEX_API_KEY")};
constexpr std::size_t max_key_bytes = 4096;

bool plain_token(std::string_view v) {
  return !v.empty() && v.size() <= max_key_bytes &&
         std::all_of(v.begin(), v.end(), [](char c) { return c > 0x20 && c < 0x7f; });
}

}  // namespace

provider_keys::provider_keys(std::vector<std::string> environment, std::string file) : file_(std::move(file)) {
  for (auto& pair : environment) {
    auto eq = pair.find('=');
    if (eq != std::string::npos) values_[pair.substr(0, eq)] = pair.substr(eq + 1);
  }
  if (file_.empty()) return;
  std::ifstream in(file_, std::ios::binary);
  if (!in) return;
  std::stringstream text;
  text << in.rdbuf();
  auto stored = servers::parse_json_within(text.str());
  if (!stored.is_object()) {
    std::fprintf(stderr, "platform-worker: ignoring %s: not a JSON object\n", file_.c_str());
    return;
  }
  for (const auto& [name, value] : stored.items()) {
    if (settable(name) && value.is_string() && plain_token(value.get<std::string>())) {
      entered_[name] = value.get<std::string>();
      values_[name] = value.get<std::string>();
    }
  }
}

bool provider_keys::settable(std::string_view name) {
  return std::find(settable_names.begin(), settable_names.end(), name) != settable_names.end();
}

result<void> provider_keys::set(std::string_view name, std::string_view value) {
  if (!settable(name)) return fail(api_error::unknown_key, "only ANTHROPIC_API_KEY (runtime-a) can be entered here");
  if (!plain_token(value)) return fail(api_error::invalid_key, "a key is one token of printable characters, at most 4 KiB");
  std::lock_guard lock(mu_);
  auto entered = entered_;
  entered[std::string(name)] = std::string(value);
  if (!file_.empty()) {
    nlohmann::json doc = nlohmann::json::object();
    for (const auto& [k, v] : entered) doc[k] = v;
    if (!platform::servers::write_private_file(file_, doc.dump(), platform::servers::private_write::replace)) return fail(api_error::store_failed, "the worker could not save the key in its data directory");
  }
  entered_ = std::move(entered);
  values_[std::string(name)] = std::string(value);
  return {};
}

bool provider_keys::has(std::string_view name) const {
  std::lock_guard lock(mu_);
  auto it = values_.find(name);
  return it != values_.end() && !it->second.empty();
}

std::vector<std::string> provider_keys::env(std::initializer_list<std::string_view> names) const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (auto name : names) {
    if (auto it = values_.find(name); it != values_.end() && !it->second.empty()) out.push_back(it->first + "=" + it->second);
  }
  return out;
}

std::vector<std::string> provider_keys::all_env() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (const auto& [k, v] : values_) out.push_back(k + "=" + v);
  return out;
}

}  // namespace platform::worker
