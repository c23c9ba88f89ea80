// The custom tool request builder (the half of the executor that needs no I/O; its failures
// are integration_tool_results). Decisions are written down in docs/placeholders.md.
#include "platform/tool_request.hpp"
#include "platform/api_error.hpp"
#include "platform/integration_error.hpp"
#include "platform/ascii.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>

#include <nlohmann/json.hpp>

#include "embed_json.hpp"
#include "platform/compact_json.hpp"
#include "platform/json_limits.hpp"
#include "platform/json_path.hpp"
#include "platform/placeholder.hpp"

namespace platform {

std::string redaction_marker(std::string_view secret_name) {
  return "[REDACTED:" + std::string(secret_name) + "]";
}

namespace {

using nlohmann::ordered_json;  // keeps the template's and the agent's key order

template <class T>
using outcome = tl::expected<T, integration_tool_result>;
using failed = tl::unexpected<integration_tool_result>;

const json_path endpoint_root("endpoint");

failed fail_with(integration_error code, std::string error, std::string resolution,
                 std::optional<ordered_json> details = {}) {
  std::optional<std::string> d;
  if (details) d = compact_json(*details);
  return failed(integration_tool_result::failure(code, std::move(error), std::move(resolution), std::move(d)));
}

failed spec_failure(integration_error code, std::string error, const std::string& location) {
  return fail_with(code, std::move(error),
                   "Fix the tool's endpoint in agents.json and present the agents again.",
                   ordered_json{{"location", location}});
}

// Lists in details stay bounded: at most 20 names of at most 64 bytes each.
ordered_json bounded_names(const std::vector<std::string>& names) {
  ordered_json list = ordered_json::array();
  for (std::size_t i = 0; i < names.size() && i < 20; ++i) list.push_back(names[i].substr(0, 64));
  return list;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

bool is_alnum(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

bool is_unreserved(unsigned char c) {
  return is_alnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

// RFC 3986 reserved characters plus `%`: kept in literal URL text, which the author may
// have percent-encoded already.
bool is_url_literal_char(unsigned char c) {
  return is_unreserved(c) || std::string_view(":/?#[]@!$&'()*+,;=%").find(static_cast<char>(c)) !=
                                 std::string_view::npos;
}

void append_percent(std::string& out, unsigned char c) {
  constexpr char hex[] = "0123456789ABCDEF";
  out += '%';
  out += hex[c >> 4];
  out += hex[c & 0xF];
}

// Values keep only unreserved characters, so no value can add a path segment (`/`), start
// a query (`?`), add a parameter (`&`, `=`), change a space (`+`) or start a fragment (`#`).
void append_encoded_value(std::string& out, std::string_view s) {
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (is_unreserved(c)) out += ch;
    else append_percent(out, c);
  }
}

void append_url_literal(std::string& out, std::string_view s) {
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (is_url_literal_char(c)) out += ch;
    else append_percent(out, c);
  }
}

bool is_host_literal_char(unsigned char c) {
  return is_alnum(c) || std::string_view(".-:[]_~").find(static_cast<char>(c)) != std::string_view::npos;
}

// Field values may hold visible characters, obs-text, space and tab: never CR, LF or NUL,
// which would end the header or split the request.
bool is_header_value_safe(std::string_view s) {
  return std::none_of(s.begin(), s.end(), [](char ch) {
    auto c = static_cast<unsigned char>(ch);
    return (c < 0x20 && c != '\t') || c == 0x7f;
  });
}

bool is_valid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    auto b = static_cast<unsigned char>(s[i]);
    std::size_t n = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    std::uint32_t cp = n == 1 ? b : b & (0x7F >> n);
    for (std::size_t k = 1; k < n; ++k) {
      auto c = static_cast<unsigned char>(s[i + k]);
      if ((c & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (c & 0x3F);
    }
    constexpr std::uint32_t min_for[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min_for[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += n;
  }
  return true;
}

// ---- the values placeholders stand for ----

struct render_env {
  const ordered_json& input;
  const std::map<std::string, std::string, std::less<>>& secrets;
  bool redact = false;
};

// Input paths are `name(.name)*` and names hold no dots.
std::vector<std::string> split_steps(std::string_view path) {
  std::vector<std::string> steps;
  std::size_t start = 0;
  for (std::size_t dot = path.find('.'); dot != std::string_view::npos; dot = path.find('.', start)) {
    steps.emplace_back(path.substr(start, dot - start));
    start = dot + 1;
  }
  steps.emplace_back(path.substr(start));
  return steps;
}

const ordered_json* find_input(const ordered_json& input, const std::vector<std::string>& steps) {
  const ordered_json* v = &input;
  for (const auto& step : steps) {
    if (!v->is_object()) return nullptr;
    auto it = v->find(step);
    if (it == v->end()) return nullptr;
    v = &*it;
  }
  return v;
}

// A value as placed into text; `verbatim` marks a redaction marker, which is never encoded.
struct piece {
  std::string text;
  bool verbatim = false;
};

failed bad_value(const placeholder& p, const std::string& where, std::string_view problem) {
  if (p.k == placeholder::kind::secret) {
    return fail_with(integration_error::invalid_secret,
                     "Secret " + p.path + " cannot be used in " + where + ": " + std::string(problem),
                     "Update the value of secret " + p.path + " in the integration setup.",
                     ordered_json{{"secret", p.path}, {"location", where}});
  }
  return fail_with(integration_error::invalid_input,
                   "Input " + p.path + " cannot be used in " + where + ": " + std::string(problem),
                   "Call the tool again with a suitable value for " + p.path + ".",
                   ordered_json{{"inputPath", p.path}, {"location", where}});
}

outcome<piece> placeholder_text(const placeholder& p, const render_env& env,
                                const std::string& where, bool allow_structured) {
  if (p.k == placeholder::kind::secret) {
    if (env.redact) return piece{redaction_marker(p.path), true};
    return piece{env.secrets.find(p.path)->second, false};
  }
  const ordered_json* v = find_input(env.input, p.steps);
  if (v == nullptr) return bad_value(p, where, "it is missing");
  if (v->is_string()) return piece{v->get<std::string>(), false};
  if (v->is_number() || v->is_boolean() || allow_structured) return piece{compact_json(*v), false};
  return bad_value(p, where, "it must be a string, number or boolean here");
}

// ---- url ----

enum class url_zone { host, path, query };

struct url_token {
  enum class what { text, slash, question, value };
  what w = what::text;
  url_zone zone = url_zone::host;
  std::string text;
  placeholder ref;
};

struct url_plan {
  std::string scheme;  // lower case
  std::vector<url_token> tokens;
};

std::optional<std::string> scheme_prefix(std::string_view literal) {
  for (std::string_view s : {"https://", "http://"}) {
    if (literal.size() >= s.size() && iequals(literal.substr(0, s.size()), s)) {
      return std::string(s.substr(0, s.size() - 3));
    }
  }
  return std::nullopt;
}

// The url's structure comes from its literal text alone, before any value is known.
struct url_planner {
  url_plan plan;
  url_zone zone = url_zone::host;
  bool host_seen = false;
  std::string where = endpoint_root.key("url").str();

  failed invalid(std::string why) { return spec_failure(integration_error::invalid_url, "endpoint.url " + why, where); }

  void push(url_token::what w, url_zone z) { plan.tokens.push_back({w, z, {}, {}}); }

  void push_char(char ch) {
    if (plan.tokens.empty() || plan.tokens.back().w != url_token::what::text ||
        plan.tokens.back().zone != zone) {
      push(url_token::what::text, zone);
    }
    plan.tokens.back().text += ch;
  }

  std::optional<failed> literal_char(char ch) {
    if (ch == '#') return invalid("has a fragment (`#`), which is never sent to the provider");
    if (zone == url_zone::query) {
      push_char(ch);
    } else if (ch == '?') {
      push(url_token::what::question, zone);
      zone = url_zone::query;
    } else if (ch == '/') {
      zone = url_zone::path;
      push(url_token::what::slash, zone);
    } else if (zone == url_zone::host) {
      if (ch == '@') return invalid("carries user info (`@`); put credentials in headers");
      if (!is_host_literal_char(static_cast<unsigned char>(ch))) return invalid("has an invalid host");
      host_seen = true;
      push_char(ch);
    } else {
      push_char(ch);
    }
    return std::nullopt;
  }

  std::optional<failed> value(const placeholder& p) {
    if (zone == url_zone::host) {
      return spec_failure(integration_error::placeholder_in_host,
                          "endpoint.url has " + canonical_text(p) +
                              " before its path: a value must never choose which server is called",
                          where);
    }
    plan.tokens.push_back({url_token::what::value, zone, {}, p});
    return std::nullopt;
  }
};

outcome<url_plan> plan_url(const placeholder_template& t) {
  url_planner planner;
  const auto* first = t.parts.empty() ? nullptr : &t.parts.front();
  auto scheme = first && !first->is_placeholder ? scheme_prefix(first->literal) : std::nullopt;
  if (!scheme) return planner.invalid("must start with http:// or https://");
  planner.plan.scheme = *scheme;
  for (std::size_t i = 0; i < t.parts.size(); ++i) {
    const auto& part = t.parts[i];
    std::optional<failed> problem;
    if (part.is_placeholder) {
      problem = planner.value(part.ref);
    } else {
      std::string_view text = part.literal;
      if (i == 0) text.remove_prefix(planner.plan.scheme.size() + 3);
      for (char ch : text) {
        if ((problem = planner.literal_char(ch))) break;
      }
    }
    if (problem) return *problem;
  }
  if (!planner.host_seen) return planner.invalid("has no host");
  return planner.plan;
}

// Renders a planned url. A path segment filled by a value must not come out empty, `.` or
// `..`: that would call a broader endpoint than the one the tool names.
struct url_renderer {
  explicit url_renderer(const render_env& e) : env(e) {}

  const render_env& env;
  std::string where = endpoint_root.key("url").str();
  std::string out;
  bool in_path = false;
  std::size_t segment_start = 0;
  std::optional<placeholder> segment_value;

  std::optional<failed> end_segment() {
    if (!in_path || !segment_value) return std::nullopt;
    std::string_view seg = std::string_view(out).substr(segment_start);
    if (seg.empty() || seg == "." || seg == "..") {
      return bad_value(*segment_value, where, "it would leave a URL path segment empty, `.` or `..`");
    }
    return std::nullopt;
  }

  void begin_segment() {
    in_path = true;
    segment_start = out.size();
    segment_value.reset();
  }

  std::optional<failed> value(const url_token& tok) {
    auto text = placeholder_text(tok.ref, env, where, false);
    if (!text) return failed(std::move(text.error()));
    if (text->verbatim) out += text->text;
    else append_encoded_value(out, text->text);
    if (in_path && !segment_value) segment_value = tok.ref;
    return std::nullopt;
  }

  std::optional<failed> token(const url_token& tok) {
    switch (tok.w) {
      case url_token::what::text:
        if (tok.zone == url_zone::host) out += tok.text;
        else append_url_literal(out, tok.text);
        return std::nullopt;
      case url_token::what::slash:
        if (auto problem = end_segment()) return problem;
        out += '/';
        begin_segment();
        return std::nullopt;
      case url_token::what::question:
        if (auto problem = end_segment()) return problem;
        in_path = false;
        out += '?';
        return std::nullopt;
      case url_token::what::value:
        return value(tok);
    }
    return std::nullopt;
  }
};

outcome<std::string> render_url(const url_plan& plan, const render_env& env) {
  url_renderer r(env);
  r.out = plan.scheme + "://";
  for (const auto& tok : plan.tokens) {
    if (auto problem = r.token(tok)) return *problem;
  }
  if (auto problem = r.end_segment()) return *problem;
  return r.out;
}

// ---- the parsed endpoint ----

struct template_site {
  std::string name;
  placeholder_template t;
  std::string where;
};

struct prepared_endpoint {
  std::string method;
  url_plan url;
  std::vector<template_site> headers;
  std::vector<template_site> query;
  std::optional<ordered_json> body;
  placeholder_usage usage;
  bool oauth = false;
};

constexpr std::array<std::string_view, 7> allowed_methods{"GET",   "HEAD",   "POST",   "PUT",
                                                          "PATCH", "DELETE", "OPTIONS"};

// Framing and routing headers belong to the executor; a template that sets them could
// smuggle a second request or override the connection.
constexpr std::array<std::string_view, 9> forbidden_headers{
    "host", "content-length", "transfer-encoding", "connection", "keep-alive",
    "upgrade", "te", "trailer", "proxy-connection"};

outcome<std::string> check_method(std::string_view method) {
  std::string upper(method);
  for (char& c : upper) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  if (std::find(allowed_methods.begin(), allowed_methods.end(), upper) == allowed_methods.end()) {
    return spec_failure(integration_error::invalid_method,
                        "endpoint.method must be GET, HEAD, POST, PUT, PATCH, DELETE or OPTIONS",
                        endpoint_root.key("method").str());
  }
  return upper;
}

std::optional<failed> check_header_name(const std::string& name, const std::string& where,
                                        std::vector<std::string>& seen, bool oauth) {
  if (name.empty() || !std::all_of(name.begin(), name.end(), is_token_char)) {
    return spec_failure(integration_error::invalid_header_name, where + " is not a valid header name", where);
  }
  std::string lower = ascii_lower(name);
  if (std::find(forbidden_headers.begin(), forbidden_headers.end(), lower) != forbidden_headers.end()) {
    return spec_failure(integration_error::forbidden_header, where + " is set by the executor, not by the tool", where);
  }
  if (oauth && lower == "authorization") {
    return spec_failure(integration_error::authorization_header_not_allowed,
                        "OAuth tools get their Authorization header from the platform; remove " + where,
                        where);
  }
  if (std::find(seen.begin(), seen.end(), lower) != seen.end()) {
    return spec_failure(integration_error::duplicate_header, where + " repeats a header name (names ignore case)", where);
  }
  seen.push_back(std::move(lower));
  return std::nullopt;
}

outcome<std::vector<template_site>> parse_sites(const std::map<std::string, std::string>& values,
                                                const char* field) {
  std::vector<template_site> out;
  for (const auto& [name, text] : values) {
    auto t = parse_placeholder_template(text);
    std::string where = endpoint_root.key(field).key(name).str();
    if (!t) return spec_failure(integration_error::invalid_placeholder, where + ": " + t.error().message, where);
    out.push_back({name, std::move(*t), std::move(where)});
  }
  return out;
}

outcome<std::optional<ordered_json>> parse_body(const tool_endpoint& ep, const std::string& method) {
  std::string where = endpoint_root.key("body").str();
  if (!ep.body_json) return std::optional<ordered_json>{};
  // Bounded before parsing: nothing deeper is ever dumped or walked.
  auto body = nests_deeper_than(*ep.body_json, max_json_depth) ? ordered_json(ordered_json::value_t::discarded)
                                                                : ordered_json::parse(*ep.body_json, nullptr, false);
  if (body.is_discarded()) {
    return spec_failure(integration_error::invalid_body, "endpoint.body is not valid JSON of bounded depth", where);
  }
  if (body.is_null()) return std::optional<ordered_json>{};
  if (method == "GET" || method == "HEAD") {
    return spec_failure(integration_error::body_not_allowed, "endpoint.body is set on a " + method + " request", where);
  }
  return std::optional<ordered_json>{std::move(body)};
}

outcome<prepared_endpoint> prepare(const tool& t) {
  if (t.type != tool_type::custom || !t.endpoint) {
    return spec_failure(integration_error::not_a_custom_tool, "tool " + t.name + " has no HTTP endpoint", "endpoint");
  }
  const tool_endpoint& ep = *t.endpoint;
  prepared_endpoint p;
  p.oauth = t.integration && t.integration->oauth2;
  auto method = check_method(ep.method);
  if (!method) return failed(std::move(method.error()));
  p.method = std::move(*method);
  auto usage = endpoint_placeholder_usage(ep);
  if (!usage) {
    return spec_failure(is(usage.error(), api_error::invalid_body_json) ? integration_error::invalid_body : integration_error::invalid_placeholder,
                        usage.error().message, "endpoint");
  }
  p.usage = std::move(*usage);
  auto url = plan_url(*parse_placeholder_template(ep.url));
  if (!url) return failed(std::move(url.error()));
  p.url = std::move(*url);
  auto headers = parse_sites(ep.headers, "headers");
  if (!headers) return failed(std::move(headers.error()));
  std::vector<std::string> seen;
  for (const auto& h : *headers) {
    if (auto problem = check_header_name(h.name, h.where, seen, p.oauth)) return *problem;
  }
  p.headers = std::move(*headers);
  auto query = parse_sites(ep.query_params, "queryParams");
  if (!query) return failed(std::move(query.error()));
  p.query = std::move(*query);
  auto body = parse_body(ep, p.method);
  if (!body) return failed(std::move(body.error()));
  p.body = std::move(*body);
  return p;
}

// ---- input and secrets ----

outcome<ordered_json> parse_input(std::string_view input_json) {
  auto blank = input_json.find_first_not_of(" \t\r\n") == std::string_view::npos;
  if (blank) return ordered_json::object();
  auto input = nests_deeper_than(input_json, max_json_depth) ? ordered_json(ordered_json::value_t::discarded)
                                                              : ordered_json::parse(input_json, nullptr, false);
  if (input.is_discarded() || !input.is_object()) {
    return fail_with(integration_error::invalid_input,
                     "The tool input must be a JSON object (nested at most " +
                         std::to_string(max_json_depth) + " levels).",
                     "Call the tool again with its input as a JSON object.");
  }
  return input;
}

std::optional<failed> check_input(const ordered_json& input, const prepared_endpoint& p, const tool& t) {
  if (!input.empty() && p.usage.input_paths.empty()) {
    std::vector<std::string> keys;
    for (const auto& [k, v] : input.items()) keys.push_back(k);
    return fail_with(integration_error::unexpected_input,
                     "Tool " + t.name + " takes no input, but input was given. The tool was not called.",
                     "Call the tool again without input.", ordered_json{{"inputKeys", bounded_names(keys)}});
  }
  std::vector<std::string> missing;
  for (const auto& path : p.usage.input_paths) {
    if (find_input(input, split_steps(path)) == nullptr) missing.push_back(path);
  }
  if (missing.empty()) return std::nullopt;
  return fail_with(integration_error::missing_input,
                   "Tool " + t.name + " is missing input: " + joined(missing) +
                       ". The tool was not called.",
                   "Call the tool again with these input fields: " + joined(missing) + ".",
                   ordered_json{{"missingInputs", bounded_names(missing)}});
}

using secret_map = std::map<std::string, std::string, std::less<>>;

outcome<secret_map> resolve_secrets(const std::vector<std::string>& names,
                                    const secret_resolver& resolver) {
  secret_map values;
  std::vector<std::string> missing;
  for (const auto& name : names) {
    auto value = resolver ? resolver(name) : std::nullopt;
    if (!value) {
      missing.push_back(name);
    } else if (!is_valid_utf8(*value)) {
      return fail_with(integration_error::invalid_secret,
                       "Secret " + name + " is not valid UTF-8 text.",
                       "Update the value of secret " + name + " in the integration setup.",
                       ordered_json{{"secret", name}});
    } else {
      values.emplace(name, std::move(*value));
    }
  }
  if (missing.empty()) return values;
  return fail_with(integration_error::missing_secret,
                   "The integration is missing secrets: " + joined(missing) + ".",
                   "Configure these secrets in the integration setup: " + joined(missing) + ".",
                   ordered_json{{"missingSecrets", bounded_names(missing)}});
}

// ---- rendering ----

outcome<std::string> render_header_value(const template_site& h, const render_env& env) {
  std::string out;
  for (const auto& part : h.t.parts) {
    if (!part.is_placeholder) {
      if (!is_header_value_safe(part.literal)) {
        return spec_failure(integration_error::invalid_header_value, h.where + " holds a control character", h.where);
      }
      out += part.literal;
      continue;
    }
    auto text = placeholder_text(part.ref, env, h.where, false);
    if (!text) return failed(std::move(text.error()));
    if (!is_header_value_safe(text->text)) {
      return bad_value(part.ref, h.where, "a header value cannot hold CR, LF or other control characters");
    }
    out += text->text;
  }
  return out;
}

outcome<std::string> render_query_value(const template_site& q, const render_env& env) {
  std::string out;
  for (const auto& part : q.t.parts) {
    if (!part.is_placeholder) {
      append_encoded_value(out, part.literal);
      continue;
    }
    auto text = placeholder_text(part.ref, env, q.where, false);
    if (!text) return failed(std::move(text.error()));
    if (text->verbatim) out += text->text;
    else append_encoded_value(out, text->text);
  }
  return out;
}

outcome<std::string> render_query(std::string url, const std::vector<template_site>& query,
                                  const render_env& env) {
  for (const auto& q : query) {
    auto value = render_query_value(q, env);
    if (!value) return failed(std::move(value.error()));
    char last = url.back();
    if (url.find('?') == std::string::npos) url += '?';
    else if (last != '?' && last != '&') url += '&';
    append_encoded_value(url, q.name);
    url += '=';
    url += *value;
  }
  return url;
}

outcome<ordered_json> render_body_string(const std::string& text, const std::string& where,
                                 const render_env& env) {
  auto t = parse_placeholder_template(text);  // parsed once already by the usage listing
  if (!t) return spec_failure(integration_error::invalid_placeholder, where + ": " + t.error().message, where);
  if (t->is_single_placeholder()) {
    const placeholder& p = t->parts.front().ref;
    if (p.k == placeholder::kind::secret) {
      return ordered_json(env.redact ? redaction_marker(p.path) : env.secrets.find(p.path)->second);
    }
    const ordered_json* v = find_input(env.input, p.steps);
    if (v == nullptr) return bad_value(p, where, "it is missing");
    return *v;  // keeps the input value's JSON type
  }
  std::string out;
  for (const auto& part : t->parts) {
    if (!part.is_placeholder) {
      out += part.literal;
      continue;
    }
    auto piece_text = placeholder_text(part.ref, env, where, true);
    if (!piece_text) return failed(std::move(piece_text.error()));
    out += piece_text->text;
  }
  return ordered_json(std::move(out));
}

outcome<ordered_json> render_body(const ordered_json& v, const json_path& at, const render_env& env) {
  if (v.is_string()) return render_body_string(v.get<std::string>(), at.str(), env);
  if (!v.is_structured()) return v;
  ordered_json out = v.is_object() ? ordered_json::object() : ordered_json::array();
  std::size_t i = 0;
  for (auto it = v.begin(); it != v.end(); ++it, ++i) {
    auto child = render_body(*it, v.is_object() ? at.key(it.key()) : at.index(i), env);
    if (!child) return child;
    if (v.is_object()) out[it.key()] = std::move(*child);
    else out.push_back(std::move(*child));
  }
  return out;
}

std::string media_type(std::string_view content_type) {
  return ascii_lower(media_type_of(content_type));
}

bool is_json_media(const std::string& m) {
  return m == "application/json" || (m.size() > 5 && m.compare(m.size() - 5, 5, "+json") == 0);
}

std::string form_field(const ordered_json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return {};
  return compact_json(v);
}

// The wire form of a rendered body under its Content-Type.
outcome<std::string> serialize_body(const ordered_json& body, const std::string& content_type) {
  std::string m = media_type(content_type);
  if (is_json_media(m)) return compact_json(body);
  if (m == "application/x-www-form-urlencoded") {
    if (!body.is_object()) {
      return spec_failure(integration_error::invalid_body, "a form-encoded endpoint.body must be a JSON object",
                          endpoint_root.key("body").str());
    }
    std::string out;
    for (const auto& [k, v] : body.items()) {
      if (!out.empty()) out += '&';
      append_encoded_value(out, k);
      out += '=';
      append_encoded_value(out, form_field(v));
    }
    return out;
  }
  return body.is_string() ? body.get<std::string>() : compact_json(body);
}

outcome<http_request> render(const prepared_endpoint& p, const render_env& env,
                             const tool_request_options& options) {
  http_request r;
  r.method = p.method;
  auto url = render_url(p.url, env);
  if (!url) return failed(std::move(url.error()));
  auto full = render_query(std::move(*url), p.query, env);
  if (!full) return failed(std::move(full.error()));
  r.url = std::move(*full);
  for (const auto& h : p.headers) {
    auto value = render_header_value(h, env);
    if (!value) return failed(std::move(value.error()));
    if (iequals(h.name, "content-type")) r.content_type = *value;
    r.headers.emplace_back(h.name, std::move(*value));
  }
  if (p.body) {
    auto body = render_body(*p.body, endpoint_root.key("body"), env);
    if (!body) return failed(std::move(body.error()));
    if (r.content_type.empty()) {
      r.content_type = "application/json";
      r.headers.emplace_back("Content-Type", r.content_type);
    }
    auto text = serialize_body(*body, r.content_type);
    if (!text) return failed(std::move(text.error()));
    r.body = std::move(*text);
  } else {
    r.content_type.clear();
  }
  if (p.oauth && options.oauth_access_token) {
    r.headers.emplace_back("Authorization",
                           "Bearer " + (env.redact ? redaction_marker("oauth_access_token")
                                                   : *options.oauth_access_token));
  }
  return r;
}

std::optional<failed> check_oauth(const prepared_endpoint& p, const tool_request_options& options) {
  if (!p.oauth) return std::nullopt;
  if (!options.oauth_access_token || options.oauth_access_token->empty()) {
    return fail_with(integration_error::missing_access_token,
                     "No access token is available for this OAuth tool.",
                     "Connect the account in the integration setup.");
  }
  if (!is_header_value_safe(*options.oauth_access_token)) {
    return fail_with(integration_error::invalid_access_token,
                     "The access token cannot be sent in a header.",
                     "Reconnect the account in the integration setup.");
  }
  return std::nullopt;
}

}  // namespace

tool_request_outcome build_tool_request(const tool& t, std::string_view input_json,
                                        const secret_resolver& secrets,
                                        const tool_request_options& options) {
  auto prepared = prepare(t);
  if (!prepared) return failed(std::move(prepared.error()));
  auto input = parse_input(input_json);
  if (!input) return failed(std::move(input.error()));
  if (auto problem = check_input(*input, *prepared, t)) return *problem;
  if (auto problem = check_oauth(*prepared, options)) return *problem;
  auto values = resolve_secrets(prepared->usage.secret_names, secrets);
  if (!values) return failed(std::move(values.error()));
  auto request = render(*prepared, render_env{*input, *values, false}, options);
  if (!request) return failed(std::move(request.error()));
  if (request->url.size() > max_request_url_bytes) {
    return fail_with(integration_error::url_too_long,
                     "The request URL would be longer than " + std::to_string(max_request_url_bytes) +
                         " bytes. The tool was not called.",
                     "Call the tool again with shorter input values.");
  }
  // The redacted view renders from the same checked inputs, so it cannot fail differently.
  auto redacted = render(*prepared, render_env{*input, *values, true}, options);
  if (!redacted) return failed(std::move(redacted.error()));
  return tool_request{std::move(*request), std::move(*redacted), prepared->usage.secret_names};
}

std::string to_json(const http_request& r) {
  ordered_json headers = ordered_json::object();
  for (const auto& [name, value] : r.headers) headers[name] = value;
  ordered_json body;
  if (r.body) {
    body = is_json_media(media_type(r.content_type)) ? embed_json(*r.body) : ordered_json(*r.body);
  }
  return compact_json(ordered_json{{"method", r.method}, {"url", r.url}, {"headers", headers}, {"body", body}});
}

bool means_not_configured(const integration_tool_result& failure) {
  return failure.error_code == integration_error::missing_secret || failure.error_code == integration_error::missing_access_token;
}

}  // namespace platform
