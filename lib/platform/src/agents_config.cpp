// agents.json into typed values: the shape half of validation (types, required and unknown
// fields, allowed values). The rules between values live in agents_validation.cpp.
#include <algorithm>

#include "config_reader.hpp"
#include "platform/cron_schedule.hpp"
#include "platform/agents_config.hpp"
#include "platform/ascii.hpp"
#include "platform/compact_json.hpp"
#include "platform/json_limits.hpp"

namespace platform {

const agent* agents_config::find_agent(std::string_view id) const {
  auto it = std::find_if(agents.begin(), agents.end(), [&](const agent& a) { return a.id == id; });
  return it == agents.end() ? nullptr : &*it;
}

const tool* agents_config::find_tool(std::string_view tool_name,
                                     std::optional<std::string_view> agent_id) const {
  const std::vector<tool>* list = &app_tools;
  if (agent_id) {
    const agent* a = find_agent(*agent_id);
    if (a == nullptr) return nullptr;
    list = &a->tools;
  }
  auto it = std::find_if(list->begin(), list->end(), [&](const tool& t) { return t.name == tool_name; });
  return it == list->end() ? nullptr : &*it;
}

namespace config {
namespace {



bool blank(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; });
}

// Parser messages may quote raw input bytes; keep reports valid, printable JSON.
std::string printable_ascii(std::string_view s) {
  std::string out;
  for (char c : s) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return out;
}

// nlohmann's message without its "[json.exception.parse_error.101] " prefix.
std::string syntax_error_message(const json::exception& e) {
  std::string_view what = e.what();
  if (auto close = what.find("] "); what.rfind("[json.exception", 0) == 0 && close != std::string_view::npos) {
    what.remove_prefix(close + 2);
  }
  return printable_ascii(what.substr(0, 300));
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      bool same = ascii_lower(a[i - 1]) == ascii_lower(b[j - 1]);
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (same ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// The allowed field a typo most likely meant (case or up to two edits off), if any.
std::optional<std::string_view> closest(std::string_view key, const std::vector<std::string_view>& allowed) {
  if (key.size() > 64) return std::nullopt;
  std::optional<std::string_view> best;
  std::size_t best_d = 3;
  for (auto a : allowed) {
    // The distance is at least the length difference: most names are ruled out unmeasured.
    if ((key.size() > a.size() ? key.size() - a.size() : a.size() - key.size()) >= best_d) continue;
    std::size_t d = edit_distance(key, a);
    if (d < best_d) {
      best_d = d;
      best = a;
    }
  }
  return best;
}

std::string joined(const std::vector<std::string_view>& names) {
  std::string out;
  for (auto n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

}  // namespace

bool deeper_than(const json& v, std::size_t limit) {
  if (!v.is_structured()) return false;
  if (limit == 0) return true;
  return std::any_of(v.begin(), v.end(), [&](const json& child) { return deeper_than(child, limit - 1); });
}

std::string json_quoted(std::string_view text) {
  constexpr std::size_t max_bytes = 80;
  bool cut = text.size() > max_bytes;
  if (cut) {
    std::size_t end = max_bytes;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
    text = text.substr(0, end);
  }
  std::string out = compact_json(json(std::string(text)));
  if (cut) out.insert(out.size() - 1, "...");
  return out;
}

std::string_view type_name(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::string: return "a string";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::binary: return "binary";
    case json::value_t::discarded: return "nothing";
    default: return "a number";
  }
}

void report(violations& out, const json_path& at, code c, std::string message) {
  out.push_back(violation{at.str(), std::string(name_of(c)), std::move(message)});
}

std::optional<json> parse_document(std::string_view text, std::string_view file_name,
                                   std::string_view example, violations& out) {
  const json_path root;
  std::string name(file_name);
  if (blank(text)) {
    report(out, root, code::empty_document, name + " is empty: write a JSON object such as " + std::string(example));
    return std::nullopt;
  }
  // Before parsing: a deep document costs the scan, never a recursive parse, dump or copy.
  if (nests_deeper_than(text, max_document_depth)) {
    report(out, root, code::too_deep,
           name + " nests deeper than " + std::to_string(max_document_depth) + " levels: flatten it");
    return std::nullopt;
  }
  // The throwing parse: only its exception says what is wrong and where, and one parse of a bad
  // file is half the cost of a quiet parse followed by a throwing one.
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {
    report(out, root, code::invalid_json,
           name + " is not valid JSON (" + syntax_error_message(e) + "): fix the syntax, e.g. quote every key and remove trailing commas");
    return std::nullopt;
  }
  if (!doc.is_object()) {
    report(out, root, code::wrong_type,
           name + " must be a JSON object such as " + std::string(example) + ", not " + std::string(type_name(doc)));
    return std::nullopt;
  }
  if (doc.empty()) {
    report(out, root, code::empty_document, name + " is `{}`: write " + std::string(example));
    return std::nullopt;
  }
  return doc;
}

// ---- object_reader ----

object_reader::object_reader(const json& v, json_path at, std::string_view what,
                             std::initializer_list<std::string_view> allowed, violations& out)
    : at_(std::move(at)), what_(what), allowed_(allowed), out_(&out) {
  if (!v.is_object()) {
    report(out, at_, code::wrong_type, what_ + " must be a JSON object, not " + std::string(type_name(v)));
    return;
  }
  node_ = &v;
  for (const auto& [key, value] : v.items()) {
    if (std::find(allowed_.begin(), allowed_.end(), key) != allowed_.end()) continue;
    std::string msg = "unknown field " + json_quoted(key) + " in " + what_ + "; allowed fields: " + joined(allowed_) + ". ";
    if (auto guess = closest(key, allowed_)) {
      msg += "Rename it to \"" + std::string(*guess) + "\" if that is what you meant, or remove it";
    } else {
      msg += "Remove it";
    }
    report(out, at_.key(key), code::unknown_field, std::move(msg));
  }
}

const json* object_reader::get(std::string_view name) const {
  if (node_ == nullptr) return nullptr;
  auto it = node_->find(name);
  return it == node_->end() ? nullptr : &*it;
}

void object_reader::missing(std::string_view name, std::string_view hint) {
  std::string msg = what_ + " needs \"" + std::string(name) + "\"";
  if (!hint.empty()) msg += ": " + std::string(hint);
  report(*out_, at_.key(name), code::missing_field, std::move(msg));
}

void object_reader::wrong_type(std::string_view name, const json& v, std::string_view expected) {
  report(*out_, at_.key(name), code::wrong_type,
         "\"" + std::string(name) + "\" must be " + std::string(expected) + ", not " + std::string(type_name(v)));
}

const json* object_reader::node(std::string_view name, need n, std::string_view hint) {
  const json* v = get(name);
  if (v == nullptr && n == need::required && node_ != nullptr) missing(name, hint);
  return v;
}

std::optional<std::string> object_reader::text(std::string_view name, need n, std::string_view hint) {
  const json* v = node(name, n, hint);
  if (v == nullptr) return std::nullopt;
  if (!v->is_string()) {
    wrong_type(name, *v, "a string");
    return std::nullopt;
  }
  const auto& s = v->get_ref<const std::string&>();
  if (blank(s)) {
    std::string msg = "\"" + std::string(name) + "\" must not be empty";
    msg += hint.empty() ? std::string(": write a value or remove the field") : ": " + std::string(hint);
    report(*out_, at_.key(name), code::empty_value, std::move(msg));
    return std::nullopt;
  }
  return s;
}

std::optional<bool> object_reader::flag(std::string_view name) {
  const json* v = get(name);
  if (v == nullptr) return std::nullopt;
  if (!v->is_boolean()) {
    wrong_type(name, *v, "true or false (a JSON boolean, without quotes)");
    return std::nullopt;
  }
  return v->get<bool>();
}

const json* object_reader::array(std::string_view name, need n, std::string_view hint) {
  const json* v = node(name, n, hint);
  if (v == nullptr) return nullptr;
  if (!v->is_array()) {
    wrong_type(name, *v, "an array");
    return nullptr;
  }
  return v;
}

std::optional<std::string> object_reader::object_text(std::string_view name) {
  const json* v = get(name);
  if (v == nullptr) return std::nullopt;
  if (!v->is_object()) {
    wrong_type(name, *v, "an object");
    return std::nullopt;
  }
  return compact_json(*v);
}

std::map<std::string, std::string> object_reader::string_map(std::string_view name) {
  std::map<std::string, std::string> out;
  const json* v = get(name);
  if (v == nullptr) return out;
  if (!v->is_object()) {
    wrong_type(name, *v, "an object mapping names to string values");
    return out;
  }
  for (const auto& [key, value] : v->items()) {
    if (!value.is_string()) {
      report(*out_, at_.key(name).key(key), code::wrong_type,
             "values of \"" + std::string(name) + "\" must be strings, not " + std::string(type_name(value)) +
                 ": write " + json_quoted(value.is_structured() ? std::string("...") : compact_json(value)) + " (in quotes)");
      continue;
    }
    out.emplace(key, value.get<std::string>());
  }
  return out;
}

std::vector<std::string> object_reader::string_list(std::string_view name, need n, std::string_view hint) {
  std::vector<std::string> out;
  const json* list = array(name, n, hint);
  for_each_element(list, at_.key(name), [&](const json& item, const json_path& at) {
    if (!item.is_string()) {
      report(*out_, at, code::wrong_type,
             "entries of \"" + std::string(name) + "\" must be strings, not " + std::string(type_name(item)));
    } else if (blank(item.get_ref<const std::string&>())) {
      report(*out_, at, code::empty_value, "entries of \"" + std::string(name) + "\" must not be empty: remove this one");
    } else if (std::find(out.begin(), out.end(), item.get<std::string>()) != out.end()) {
      report(*out_, at, code::duplicate_entry,
             json_quoted(item.get<std::string>()) + " is listed twice in \"" + std::string(name) + "\": remove this one");
    } else {
      out.push_back(item.get<std::string>());
    }
  });
  return out;
}

void object_reader::forbid(std::string_view name, code c, const std::string& message) {
  if (get(name) != nullptr) report(*out_, at_.key(name), c, message);
}

// ---- agents.json shape ----

namespace {

constexpr std::string_view custom_only =
    " belongs to custom tools only: builtin tools (WebSearch, WebFetch) carry just type, name, "
    "displayName, description, enabled and recommended. Remove it";

std::optional<oauth2_auth> read_auth(const json& v, const json_path& at, violations& out) {
  object_reader r(v, at, "integration.auth",
                  {"type", "providerKey", "identity", "authorizationUrl", "tokenUrl", "scopes"}, out);
  if (!r.is_object()) return std::nullopt;
  auto type = r.text("type", need::required,
                     "write \"oauth2\", or remove integration.auth for a static-secret or public tool");
  if (!type) return std::nullopt;
  if (*type != "oauth2") {
    report(out, r.path("type"), code::unsupported_auth_type,
           "auth type " + json_quoted(*type) + " is not supported: the only type is \"oauth2\". For an API key, "
           "remove integration.auth and put {{secrets.NAME}} in a header or query parameter");
    return std::nullopt;
  }
  oauth2_auth a;
  a.provider_key = r.text("providerKey", need::required, "the OAuth provider's key, e.g. \"google\"").value_or("");
  a.identity = r.text("identity", need::required, "write \"triggering_user\"").value_or("");
  if (!a.identity.empty() && a.identity != "triggering_user") {
    report(out, r.path("identity"), code::invalid_oauth_identity,
           "identity " + json_quoted(a.identity) + " is not supported: write \"triggering_user\" (the user who "
           "triggered the agent or views the app acts through their connected account)");
  }
  a.authorization_url =
      r.text("authorizationUrl", need::required, "the provider's OAuth authorization URL (https://...)").value_or("");
  a.token_url = r.text("tokenUrl", need::required, "the provider's OAuth token URL (https://...)").value_or("");
  const json* scopes = r.get("scopes");
  a.scopes = r.string_list("scopes", need::required, "the exact OAuth scopes the endpoint needs, e.g. [\"read\"]");
  if (scopes != nullptr && scopes->is_array() && scopes->empty()) {
    report(out, r.path("scopes"), code::oauth_scopes_empty,
           "scopes is empty: list the exact OAuth scopes the endpoint needs, e.g. [\"crm.read\"]");
  }
  return a;
}

std::optional<tool_integration> read_integration(const json& v, const json_path& at, violations& out) {
  object_reader r(v, at, "integration", {"name", "domain", "keySlug", "setupSearchQuery", "auth"}, out);
  if (!r.is_object()) return std::nullopt;
  tool_integration i;
  i.name = r.text("name", need::required, "the provider's name, e.g. \"Acme CRM\"").value_or("");
  i.domain = r.text("domain", need::required, "the API host the endpoint calls, e.g. \"api.acme.com\"").value_or("");
  if (r.get("keySlug") != nullptr) {
    i.key_slug = r.text("keySlug", need::optional, "write the slug used in integration-setup.json, or remove it for \"default\"")
                     .value_or("");
  }
  i.setup_search_query = r.text("setupSearchQuery", need::optional);
  if (const json* auth = r.get("auth")) i.oauth2 = read_auth(*auth, r.path("auth"), out);
  return i;
}

std::optional<tool_endpoint> read_endpoint(const json& v, const json_path& at, violations& out) {
  object_reader r(v, at, "endpoint", {"method", "url", "headers", "queryParams", "body"}, out);
  if (!r.is_object()) return std::nullopt;
  tool_endpoint e;
  e.method = r.text("method", need::required, "the HTTP method: GET, POST, PUT, PATCH or DELETE").value_or("");
  e.url = r.text("url", need::required, "the absolute https:// URL on integration.domain").value_or("");
  e.headers = r.string_map("headers");
  e.query_params = r.string_map("queryParams");
  if (const json* body = r.get("body"); body != nullptr && !body->is_null()) e.body_json = compact_json(*body);
  return e;
}

// Custom-tool fields. Required ones are required only when the type is known to be custom,
// so a misspelt type does not also bury the report in missing fields.
void read_custom_fields(object_reader& r, tool& t, bool custom, violations& out) {
  need n = custom ? need::required : need::optional;
  if (const json* i = r.node("integration", n, "{\"name\": ..., \"domain\": ...} of the API it calls")) {
    t.integration = read_integration(*i, r.path("integration"), out);
  }
  if (const json* e = r.node("endpoint", n, "{\"method\": ..., \"url\": ...} of the HTTP request")) {
    t.endpoint = read_endpoint(*e, r.path("endpoint"), out);
  }
  t.response_schema_json = r.object_text("responseSchema");
  const json* mock = r.array("mockData", n, "at least 3 sample responses, returned while the integration is not configured");
  for_each_element(mock, r.path("mockData"), [&](const json& entry, const json_path&) {
    t.mock_data_json.push_back(compact_json(entry));
  });
  if (mock != nullptr && mock->size() < 3) {
    report(out, r.path("mockData"), code::too_few_mock_data,
           "mockData has " + std::to_string(mock->size()) + (mock->size() == 1 ? " entry" : " entries") +
               ": add realistic sample responses (the shape the API returns) until there are at least 3");
  }
}

void forbid_custom_fields(object_reader& r) {
  for (std::string_view f : {"integration", "endpoint", "responseSchema", "mockData"}) {
    r.forbid(f, code::builtin_field_not_allowed, "\"" + std::string(f) + "\"" + std::string(custom_only));
  }
}

tool read_tool(const json& v, const json_path& at, violations& out) {
  tool t;
  object_reader r(v, at, "a tool",
                  {"type", "name", "displayName", "description", "enabled", "recommended", "integration",
                   "endpoint", "responseSchema", "mockData"},
                  out);
  if (!r.is_object()) return t;
  auto type = r.text("type", need::required, "\"custom\" for an HTTP tool or \"builtin\" for WebSearch/WebFetch");
  bool known = type && (*type == "custom" || *type == "builtin");
  if (type && !known) {
    report(out, r.path("type"), code::invalid_tool_type,
           "type " + json_quoted(*type) + " is not a tool type: write \"custom\" (an HTTP request the platform "
           "executes) or \"builtin\" (WebSearch or WebFetch)");
  }
  t.type = known && *type == "builtin" ? tool_type::builtin : tool_type::custom;
  bool custom = known && t.type == tool_type::custom;
  t.name = r.text("name", need::required, "the tool's name, e.g. \"crm_search\"").value_or("");
  t.display_name = r.text("displayName", need::optional);
  t.description = r.text("description", custom ? need::required : need::optional,
                         "what the tool does and when to use it, for the agent")
                      .value_or("");
  t.enabled = r.flag("enabled").value_or(true);
  t.recommended = r.flag("recommended").value_or(false);
  if (known && t.type == tool_type::builtin) {
    forbid_custom_fields(r);
  } else {
    read_custom_fields(r, t, custom, out);
  }
  return t;
}

std::vector<tool> read_tools(const json* list, const json_path& at, violations& out) {
  std::vector<tool> tools;
  for_each_element(list, at, [&](const json& v, const json_path& p) { tools.push_back(read_tool(v, p, out)); });
  return tools;
}

// A zone name's form (the zone database, which the core does not read, knows the names).
bool zone_name_form(std::string_view z) {
  if (z.empty() || z.size() > 64 || z.front() == '/' || z.back() == '/' || z.find("..") != std::string_view::npos) return false;
  for (char c : z) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '/' || c == '_' || c == '-' || c == '+';
    if (!ok) return false;
  }
  return true;
}

agent_triggers read_triggers(const json* v, const json_path& at, violations& out) {
  agent_triggers t;
  if (v == nullptr) return t;
  object_reader r(*v, at, "triggers", {"schedule", "webhook"}, out);
  if (!r.is_object()) return t;
  if (const json* s = r.node("schedule", need::optional)) {
    object_reader sr(*s, r.path("schedule"), "triggers.schedule", {"cron", "timezone", "prompt"}, out);
    if (sr.is_object()) {
      schedule_trigger st;
      auto cron = sr.text("cron", need::required, "five fields: minute hour day-of-month month day-of-week, e.g. \"0 8 * * 1-5\"");
      if (cron) {
        if (auto parsed = parse_cron(*cron)) {
          st.cron = parsed->text;
        } else {
          report(out, sr.path("cron"), code::invalid_schedule, "cron " + json_quoted(*cron) + " is not a schedule: " + parsed.error().message);
        }
      }
      auto zone = sr.text("timezone", need::required, "the zone its times are read in, e.g. \"Europe/Paris\" or \"UTC\"");
      if (zone && !zone_name_form(*zone)) {
        report(out, sr.path("timezone"), code::invalid_timezone,
               "timezone " + json_quoted(*zone) + " is not a zone name: write one of the zone database, e.g. \"Europe/Paris\", \"America/New_York\" or \"UTC\"");
      }
      st.timezone = zone.value_or("");
      st.prompt = sr.text("prompt", need::required, "what each scheduled run is asked, e.g. \"Summarize the open deals\"").value_or("");
      t.schedule = std::move(st);
    }
  }
  if (const json* w = r.node("webhook", need::optional)) {
    object_reader wr(*w, r.path("webhook"), "triggers.webhook", {"prompt"}, out);
    if (wr.is_object()) t.webhook = webhook_trigger{wr.text("prompt", need::optional).value_or("")};
  }
  return t;
}

agent read_agent(const json& v, const json_path& at, violations& out) {
  agent a;
  object_reader r(v, at, "an agent", {"id", "name", "description", "systemPrompt", "dataCollections", "tools", "triggers"}, out);
  if (!r.is_object()) return a;
  a.id = r.text("id", need::required, "a unique id the app uses to trigger it, e.g. \"deal-summarizer\"").value_or("");
  a.name = r.text("name", need::required, "a display name").value_or("");
  a.description = r.text("description", need::required, "what the agent does, shown in the agent list").value_or("");
  a.system_prompt = r.text("systemPrompt", need::required, "the agent's own instructions").value_or("");
  a.data_collections = r.string_list("dataCollections", need::optional);
  a.tools = read_tools(r.array("tools", need::optional), r.path("tools"), out);
  a.triggers = read_triggers(r.node("triggers", need::optional), r.path("triggers"), out);
  return a;
}

}  // namespace

bool is_known_tool_type(const json& tool_node) {
  if (!tool_node.is_object()) return false;
  auto it = tool_node.find("type");
  return it != tool_node.end() && it->is_string() && (*it == "custom" || *it == "builtin");
}

agents_config read_agents_config(const json& doc, violations& out) {
  agents_config c;
  object_reader r(doc, json_path(), "agents.json", {"agents", "appTools"}, out);
  const json* agents = r.array("agents", need::required,
                               "an array of agents; it may be [] only when appTools lists at least one tool");
  for_each_element(agents, r.path("agents"), [&](const json& v, const json_path& p) {
    c.agents.push_back(read_agent(v, p, out));
  });
  c.app_tools = read_tools(r.array("appTools", need::optional), r.path("appTools"), out);
  return c;
}

}  // namespace config
}  // namespace platform
