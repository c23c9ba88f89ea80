#include "platform/placeholder.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "platform/agents_config.hpp"
#include "platform/api_error.hpp"

namespace platform {
namespace {

constexpr std::string_view open_mark = "{{";
constexpr std::string_view close_mark = "}}";
constexpr std::string_view secrets_root = "secrets";

bool is_name_start(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9') || c == '-'; }

bool is_name(std::string_view s) {
  if (s.empty() || !is_name_start(s.front())) return false;
  return std::all_of(s.begin(), s.end(), is_name_char);
}

// nullopt when any step breaks `name(.name)*`.
std::optional<std::vector<std::string>> split_path(std::string_view path) {
  std::vector<std::string> steps;
  std::size_t start = 0;
  while (true) {
    std::size_t dot = path.find('.', start);
    std::string_view step = path.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (!is_name(step)) return std::nullopt;
    steps.emplace_back(step);
    if (dot == std::string_view::npos) return steps;
    start = dot + 1;
  }
}

std::string_view trim_spaces(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// Template text is echoed in messages only when it is short printable ASCII: messages end up
// in JSON reports, and arbitrary bytes would make them invalid or unreadable.
std::string quoted_if_printable(std::string_view s) {
  if (s.size() > 64) return {};
  for (char c : s) {
    if (c < 0x20 || c > 0x7e) return {};
  }
  return " `" + std::string(s) + "`";
}

std::string at_byte(std::size_t offset) { return "at byte " + std::to_string(offset); }

tl::unexpected<error> invalid_path(std::size_t open, std::string_view inner, std::string why) {
  return fail(api_error::placeholder_invalid_path, "placeholder " + at_byte(open) + " has an invalid path" +
                                              quoted_if_printable(inner) + ": " + why);
}

result<placeholder> make_placeholder(std::size_t open, std::size_t length, std::string_view inner) {
  auto steps = split_path(inner);
  if (!steps) {
    std::string why = inner.front() == '{'
                          ? "`{{{` is not a placeholder form; there is no triple-brace syntax"
                          : "write name(.name)* with names made of letters, digits, `_` and `-`, "
                            "not starting with a digit or `-`";
    return invalid_path(open, inner, std::move(why));
  }
  placeholder p;
  p.offset = open;
  p.length = length;
  if (steps->front() == secrets_root) {
    if (steps->size() != 2) {
      return invalid_path(open, inner, "a secret is written {{secrets.NAME}} with exactly one NAME");
    }
    p.k = placeholder::kind::secret;
    p.path = (*steps)[1];
    p.steps = {(*steps)[1]};
    return p;
  }
  p.path = std::string(inner);
  p.steps = std::move(*steps);
  return p;
}

// Parses the placeholder whose `{{` starts at `open`.
result<placeholder> parse_at(std::string_view text, std::size_t open) {
  std::size_t close = text.find(close_mark, open + open_mark.size());
  if (close == std::string_view::npos) {
    return fail(api_error::placeholder_unclosed, "`{{` " + at_byte(open) + " has no closing `}}`");
  }
  std::string_view raw = text.substr(open + open_mark.size(), close - open - open_mark.size());
  std::string_view inner = trim_spaces(raw);
  if (inner.empty()) {
    return fail(api_error::placeholder_empty, "placeholder " + at_byte(open) +
                                         " is empty: write {{field}} or {{secrets.NAME}}");
  }
  return make_placeholder(open, close + close_mark.size() - open, inner);
}

void push_literal(placeholder_template& t, std::string& pending) {
  if (pending.empty()) return;
  placeholder_template::part part;
  part.literal = std::move(pending);
  t.parts.push_back(std::move(part));
  pending.clear();
}

// Bodies nest at most this deep; the walk recurses, so the bound keeps the stack small.
constexpr std::size_t max_body_depth = 64;

bool collect_body_sites(const nlohmann::ordered_json& v, const json_path& at, std::size_t depth,
                        std::vector<endpoint_template_site>& out) {
  if (depth > max_body_depth) return false;
  if (v.is_string()) {
    out.push_back({at.str(), v.get<std::string>()});
  } else if (v.is_object()) {
    for (const auto& [k, child] : v.items()) {
      if (!collect_body_sites(child, at.key(k), depth + 1, out)) return false;
    }
  } else if (v.is_array()) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!collect_body_sites(v[i], at.index(i), depth + 1, out)) return false;
    }
  }
  return true;
}

}  // namespace

bool placeholder_template::is_single_placeholder() const {
  return parts.size() == 1 && parts.front().is_placeholder;
}

std::vector<placeholder> placeholder_template::placeholders() const {
  std::vector<placeholder> out;
  for (const auto& part : parts) {
    if (part.is_placeholder) out.push_back(part.ref);
  }
  return out;
}

result<placeholder_template> parse_placeholder_template(std::string_view text) {
  placeholder_template t;
  std::string pending;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t open = text.find(open_mark, i);
    if (open == std::string_view::npos) {
      pending.append(text.substr(i));
      break;
    }
    pending.append(text.substr(i, open - i));
    auto p = parse_at(text, open);
    if (!p) return tl::unexpected(std::move(p.error()));
    push_literal(t, pending);
    i = open + p->length;
    placeholder_template::part part;
    part.is_placeholder = true;
    part.ref = std::move(*p);
    t.parts.push_back(std::move(part));
  }
  push_literal(t, pending);
  return t;
}

std::string canonical_text(const placeholder& p) {
  std::string out(open_mark);
  if (p.k == placeholder::kind::secret) {
    out += secrets_root;
    out += '.';
  }
  out += p.path;
  out += close_mark;
  return out;
}

std::string canonical_text(const placeholder_template& t) {
  std::string out;
  for (const auto& part : t.parts) out += part.is_placeholder ? canonical_text(part.ref) : part.literal;
  return out;
}

result<std::vector<endpoint_template_site>> endpoint_template_sites(const tool_endpoint& endpoint,
                                                                    const json_path& base) {
  std::vector<endpoint_template_site> out;
  out.push_back({base.key("url").str(), endpoint.url});
  for (const auto& [name, value] : endpoint.headers) {
    out.push_back({base.key("headers").key(name).str(), value});
  }
  for (const auto& [name, value] : endpoint.query_params) {
    out.push_back({base.key("queryParams").key(name).str(), value});
  }
  if (endpoint.body_json) {
    auto body = nlohmann::ordered_json::parse(*endpoint.body_json, nullptr, false);
    if (body.is_discarded()) {
      return fail(api_error::invalid_body_json, base.key("body").str() + " is not valid JSON");
    }
    if (!collect_body_sites(body, base.key("body"), 0, out)) {
      return fail(api_error::invalid_body_json, base.key("body").str() + " nests deeper than " +
                                           std::to_string(max_body_depth) + " levels");
    }
  }
  return out;
}

result<placeholder_usage> endpoint_placeholder_usage(const tool_endpoint& endpoint) {
  auto sites = endpoint_template_sites(endpoint);
  if (!sites) return tl::unexpected(std::move(sites.error()));
  std::set<std::string> inputs;
  std::set<std::string> secrets;
  for (const auto& site : *sites) {
    auto t = parse_placeholder_template(site.text);
    if (!t) {
      auto e = std::move(t.error());
      e.message = site.path + ": " + e.message;
      return tl::unexpected(std::move(e));
    }
    for (const auto& p : t->placeholders()) {
      (p.k == placeholder::kind::secret ? secrets : inputs).insert(p.path);
    }
  }
  return placeholder_usage{{inputs.begin(), inputs.end()}, {secrets.begin(), secrets.end()}};
}

}  // namespace platform
