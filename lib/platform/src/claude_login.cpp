#include "platform/claude_login.hpp"

#include <nlohmann/json.hpp>

#include "platform/api_error.hpp"
#include "platform/json_limits.hpp"

namespace platform {

using nlohmann::json;

namespace {

constexpr json_limits login_limits{.max_depth = 16, .max_bytes = 256 * 1024};

// The file as a JSON object whose claudeAiOauth is an object, or discarded.
json login_document(std::string_view text) {
  if (!check_json_limits(text, login_limits)) return json(json::value_t::discarded);
  json doc = json::parse(text, nullptr, false);
  if (!doc.is_object()) return json(json::value_t::discarded);
  auto it = doc.find("claudeAiOauth");
  if (it == doc.end() || !it->is_object()) return json(json::value_t::discarded);
  return doc;
}

std::string string_field(const json& o, const char* name) {
  auto it = o.find(name);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

result<claude_login> parse_claude_login(std::string_view text) {
  json doc = login_document(text);
  if (doc.is_discarded()) return fail(api_error::invalid_login, "not a Claude Code login (.credentials.json with claudeAiOauth)");
  const json& o = doc["claudeAiOauth"];
  claude_login login;
  login.access_token = string_field(o, "accessToken");
  if (login.access_token.empty()) return fail(api_error::invalid_login, "the Claude Code login has no access token");
  login.refresh_token = string_field(o, "refreshToken");
  if (auto it = o.find("expiresAt"); it != o.end() && it->is_number()) {
    double ms = it->get<double>();
    if (ms > 0 && ms < 9.0e15) login.expires_at = static_cast<std::int64_t>(ms);
  }
  if (auto it = o.find("scopes"); it != o.end() && it->is_array()) {
    for (const auto& s : *it) {
      if (s.is_string()) login.scopes.push_back(s.get<std::string>());
    }
  }
  return login;
}

bool claude_login_needs_refresh(const claude_login& login, std::int64_t now_ms) {
  return !login.refresh_token.empty() && login.expires_at != 0 &&
         now_ms + claude_login_refresh_margin_ms >= login.expires_at;
}

std::string claude_refresh_request(const claude_login& login, std::string_view client_id) {
  json body = {{"grant_type", "refresh_token"}, {"refresh_token", login.refresh_token}, {"client_id", client_id}};
  if (!login.scopes.empty()) {
    std::string scope;
    for (const auto& s : login.scopes) scope += (scope.empty() ? "" : " ") + s;
    body["scope"] = scope;
  }
  return body.dump();
}

result<std::string> apply_claude_refresh(std::string_view file_text, std::string_view reply, std::int64_t now_ms) {
  json doc = login_document(file_text);
  if (doc.is_discarded()) return fail(api_error::invalid_login, "not a Claude Code login (.credentials.json with claudeAiOauth)");
  json r = check_json_limits(reply, login_limits) ? json::parse(reply, nullptr, false) : json(json::value_t::discarded);
  if (!r.is_object()) return fail(api_error::refresh_failed, "the token endpoint's reply is not a JSON object");
  std::string access = string_field(r, "access_token");
  if (access.empty()) return fail(api_error::refresh_failed, "the token endpoint's reply has no access_token");
  auto expires_in = r.find("expires_in");
  if (expires_in == r.end() || !expires_in->is_number() || expires_in->get<double>() <= 0 ||
      expires_in->get<double>() > 3.0e8) {
    return fail(api_error::refresh_failed, "the token endpoint's reply has no usable expires_in");
  }
  json& o = doc["claudeAiOauth"];
  o["accessToken"] = access;
  if (std::string refresh = string_field(r, "refresh_token"); !refresh.empty()) o["refreshToken"] = refresh;
  o["expiresAt"] = now_ms + static_cast<std::int64_t>(expires_in->get<double>() * 1000);
  return doc.dump();
}

}  // namespace platform
