#pragma once
// Private to libplatform: what the agents.json and integration-setup.json validators share.
// The violation codes are an enum so a misspelt code cannot compile; their names and meanings
// live in one table (agents_validation.cpp), which is also what config_violation_codes() lists.
#include <cstddef>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/agents_config.hpp"
#include "platform/error.hpp"
#include "platform/json_limits.hpp"
#include "platform/json_path.hpp"

namespace platform::config {

// Ordered: endpoint bodies keep the author's key order (the executor sends them that way).
using json = nlohmann::ordered_json;

enum class code {
  // both files
  file_missing,
  empty_document,
  invalid_json,
  too_deep,
  wrong_type,
  unknown_field,
  missing_field,
  empty_value,
  duplicate_entry,
  invalid_domain,
  invalid_key_slug,
  invalid_url,
  // agents.json
  agents_empty,
  invalid_agent_id,
  duplicate_agent_id,
  invalid_tool_name,
  duplicate_tool_name,
  reserved_tool_name,
  invalid_tool_type,
  unknown_builtin,
  builtin_field_not_allowed,
  builtin_app_tool,
  builtin_beside_custom_tools,
  too_few_mock_data,
  invalid_method,
  placeholder_in_url_host,
  url_host_mismatch,
  invalid_header_name,
  forbidden_header,
  duplicate_header,
  invalid_header_value,
  body_not_allowed,
  placeholder_unclosed,
  placeholder_empty,
  placeholder_invalid_path,
  invalid_placeholder,
  hardcoded_credential,
  unsupported_auth_type,
  invalid_oauth_identity,
  oauth_scopes_empty,
  oauth_forbidden_placeholder,
  oauth_authorization_header,
  static_tool_without_secret,
  undeclared_secret,
  invalid_schedule,
  invalid_timezone,
  // integration-setup.json
  integrations_empty,
  duplicate_integration,
  duplicate_secret,
  duplicate_permission_group,
  invalid_secret_name,
};

std::string_view name_of(code c);
std::optional<code> code_named(std::string_view name);

void report(violations& out, const json_path& at, code c, std::string message);

// Deepest nesting accepted anywhere in either file (agents.json's documented bound, which
// integration-setup.json shares); walks below recurse, so this bounds them.
inline constexpr std::size_t max_document_depth = agents_json_max_depth;
// Same bound the request builder applies to endpoint bodies (tool_request.hpp).
inline constexpr std::size_t max_body_depth = 64;

bool deeper_than(const json& v, std::size_t limit);

// `"text"` as a JSON string literal, cut to a readable length on a UTF-8 boundary.
std::string json_quoted(std::string_view text);

// "a string", "a number", ... for wrong_type messages.
std::string_view type_name(const json& v);

// Parses a whole file: empty, whitespace-only, `{}`, not JSON, too deep or not an object
// are reported here (path ""), and nothing is returned then. `example` shows the expected
// top-level shape in the fix-it messages.
std::optional<json> parse_document(std::string_view text, std::string_view file_name,
                                   std::string_view example, violations& out);

enum class need { optional, required };

// Reads one JSON object's fields, reporting wrong types, missing required fields, empty
// strings and every field outside `allowed` (the message lists the allowed ones).
class object_reader {
 public:
  object_reader(const json& v, json_path at, std::string_view what,
                std::initializer_list<std::string_view> allowed, violations& out);

  [[nodiscard]] bool is_object() const { return node_ != nullptr; }
  [[nodiscard]] const json* get(std::string_view name) const;
  [[nodiscard]] json_path path(std::string_view name) const { return at_.key(name); }
  [[nodiscard]] const json_path& at() const { return at_; }

  // Present (reports missing_field when required and absent); any JSON type.
  const json* node(std::string_view name, need n, std::string_view hint = {});
  // A non-empty string (not only spaces).
  std::optional<std::string> text(std::string_view name, need n, std::string_view hint = {});
  std::optional<bool> flag(std::string_view name);
  const json* array(std::string_view name, need n, std::string_view hint = {});
  // An object, kept as compact JSON text.
  std::optional<std::string> object_text(std::string_view name);
  // An object whose values are all strings (empty values allowed).
  std::map<std::string, std::string> string_map(std::string_view name);
  // An array of non-empty strings, each at most once.
  std::vector<std::string> string_list(std::string_view name, need n, std::string_view hint = {});

  // A field that exists but must not in this context.
  void forbid(std::string_view name, code c, const std::string& message);

 private:
  void missing(std::string_view name, std::string_view hint);
  void wrong_type(std::string_view name, const json& v, std::string_view expected);

  const json* node_ = nullptr;
  json_path at_;
  std::string what_;
  std::vector<std::string_view> allowed_;
  violations* out_;
};

// Each element of an array field, skipping the field when it is not an array.
template <class F>
void for_each_element(const json* array, const json_path& at, F&& f) {
  if (array == nullptr || !array->is_array()) return;
  for (std::size_t i = 0; i < array->size(); ++i) f((*array)[i], at.index(i));
}

// ---- grammar shared by both files (agents_validation.cpp) ----

// Why `domain` is not a bare lower-case host name or IPv4 address; nullopt when it is one.
std::optional<std::string> domain_problem(std::string_view domain);
bool is_ipv4(std::string_view host);
// keySlug: lower-case letters, digits, `_` and `-`, starting with a letter or digit.
std::optional<std::string> key_slug_problem(std::string_view slug);
// The placeholder NAME grammar: [A-Za-z_][A-Za-z0-9_-]*.
bool is_placeholder_name(std::string_view name);

// A literal absolute http(s) URL (no placeholders): why not, or nullopt.
std::optional<std::string> literal_url_problem(std::string_view url);

// Whole-document readers (agents_config.cpp).
agents_config read_agents_config(const json& doc, violations& out);
bool is_known_tool_type(const json& tool_node);

}  // namespace platform::config
