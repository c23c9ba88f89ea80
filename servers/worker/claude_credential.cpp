#include "claude_credential.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "../common/private_file.hpp"
#include "adapters/http_executor.hpp"
#include "platform/url.hpp"
#include "provider_keys.hpp"

namespace platform::worker {
namespace {

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string login_file(const config& cfg) {
  return cfg.claude_login_dir.empty() ? std::string() : cfg.claude_login_dir + "/.credentials.json";
}

std::optional<std::string> read_small(const std::string& path) {
  if (path.empty()) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  if (s.str().size() > 256 * 1024) return std::nullopt;
  return s.str();
}

std::optional<claude_login> operator_login(const config& cfg) {
  if (!cfg.claude_setup_token.empty()) return claude_login{cfg.claude_setup_token, {}, 0, {}};
  auto text = read_small(login_file(cfg));
  if (!text) return std::nullopt;
  auto login = parse_claude_login(*text);
  if (!login) return std::nullopt;
  return *login;
}

// POSTs the refresh to the token endpoint and writes the rotated login back. The file is read
// again under the lock: another turn may have refreshed it meanwhile.
std::optional<claude_login> refresh_login(const config& cfg) {
  static std::mutex mu;
  std::lock_guard lock(mu);
  auto text = read_small(login_file(cfg));
  if (!text) return std::nullopt;
  auto login = parse_claude_login(*text);
  if (!login) return std::nullopt;
  if (!claude_login_needs_refresh(*login, now_ms())) return *login;
  auto target = parse_url(cfg.claude_oauth_token_url);
  if (!target) {
    std::fprintf(stderr, "platform-worker: PLATFORM_CLAUDE_OAUTH_TOKEN_URL is not an http(s) URL\n");
    return *login;
  }
  http_executor_options o;
  o.max_response_bytes = 64 * 1024;
  o.timeout = std::chrono::seconds(15);
  o.max_redirects = 0;  // a token endpoint answers directly; a redirect would re-send the refresh token
  // An endpoint the operator named (tests: 127.0.0.1) is theirs to allow.
  std::string host = target->kind == host_kind::ipv6 ? "[" + target->host + "]" : target->host;
  if (auto allow = address_allow_list::parse(host + ":" + std::to_string(target->port))) o.allow_list = *allow;
  auto executor = http_executor::create(std::move(o));
  if (!executor) return *login;
  http_request req{"POST", cfg.claude_oauth_token_url,
                   {{"Content-Type", "application/json"}, {"Accept", "application/json"}},
                   claude_refresh_request(*login, cfg.claude_oauth_client_id), "application/json"};
  auto sent = (*executor)->send(req, target->host);
  if (!sent || sent->response.status != 200) {
    std::fprintf(stderr, "platform-worker: refreshing the Claude Code login failed (%s); the turn uses the token it has\n",
                 sent ? ("HTTP " + std::to_string(sent->response.status)).c_str() : "unreachable");
    return *login;
  }
  auto updated = apply_claude_refresh(*text, sent->response.body, now_ms());
  if (!updated) {
    std::fprintf(stderr, "platform-worker: refreshing the Claude Code login failed (%s)\n", updated.error().message.c_str());
    return *login;
  }
  if (!servers::write_private_file(login_file(cfg), *updated, servers::private_write::replace)) {
    std::fprintf(stderr, "platform-worker: the refreshed Claude Code login could not be written back\n");
  }
  auto fresh = parse_claude_login(*updated);
  return fresh ? *fresh : *login;
}

}  // namespace

claude_credential_source claude_credential_now(const config& cfg) {
  return choose_claude_credential(cfg.keys->has("ANTHROPIC_API_KEY"), operator_login(cfg).has_value(),
                                  !cfg.demo_provider_url.empty());
}

bool claude_login_present(const config& cfg) { return operator_login(cfg).has_value(); }

claude_credential claude_credential_for_turn(const config& cfg) {
  claude_credential c;
  auto login = operator_login(cfg);
  c.source = choose_claude_credential(cfg.keys->has("ANTHROPIC_API_KEY"), login.has_value(), !cfg.demo_provider_url.empty());
  auto settings = cfg.keys->env({"ANTHROPIC_BASE_URL", "CLAUDE_CODE_MAX_RETRIES"});
  switch (c.source) {
    case claude_credential_source::api_key: {
      auto key = cfg.keys->env({"ANTHROPIC_API_KEY"});
      c.fd3 = key.front().substr(std::string_view("ANTHROPIC_API_KEY=").size());
      c.env = std::move(settings);
      c.env.emplace_back("CLAUDE_CODE_API_KEY_FILE_DESCRIPTOR=3");
      break;
    }
    case claude_credential_source::cli_login:
      if (claude_login_needs_refresh(*login, now_ms())) {
        if (auto fresh = refresh_login(cfg)) login = std::move(fresh);
      }
      c.fd3 = login->access_token;
      c.env = std::move(settings);
      c.env.emplace_back("CLAUDE_CODE_OAUTH_TOKEN_FILE_DESCRIPTOR=3");
      break;
    case claude_credential_source::demo_provider:
      // The scripted demo provider takes any key; the operator's base URL does not apply.
      c.fd3 = "demo-provider";
      c.env = {"ANTHROPIC_BASE_URL=" + cfg.demo_provider_url, "CLAUDE_CODE_API_KEY_FILE_DESCRIPTOR=3"};
      break;
    case claude_credential_source::none:
      c.env = std::move(settings);
      break;
  }
  return c;
}

}  // namespace platform::worker
