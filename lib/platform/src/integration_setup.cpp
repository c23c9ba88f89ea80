// integration-setup.json into typed values, with every violation reported at once.
// Rules and decisions: docs/integration-setup.md.
#include "platform/integration_setup.hpp"

#include <algorithm>

#include "config_reader.hpp"

namespace platform {

const setup_secret* setup_integration::find_secret(std::string_view name) const {
  auto it = std::find_if(secrets.begin(), secrets.end(), [&](const setup_secret& s) { return s.name == name; });
  return it == secrets.end() ? nullptr : &*it;
}

const setup_integration* integration_setup::find_integration(std::string_view domain,
                                                             std::string_view key_slug) const {
  auto it = std::find_if(integrations.begin(), integrations.end(), [&](const setup_integration& i) {
    return i.domain == domain && i.key_slug == key_slug;
  });
  return it == integrations.end() ? nullptr : &*it;
}

namespace config {
namespace {

void check_url_field(const std::optional<std::string>& url, const json_path& at, violations& out) {
  if (!url) return;
  if (auto why = literal_url_problem(*url)) report(out, at, code::invalid_url, "url " + *why);
}

permission_group read_permission_group(const json& v, const json_path& at, violations& out) {
  permission_group g;
  object_reader r(v, at, "a permission group", {"name", "description", "permissions"}, out);
  g.name = r.text("name", need::required, "the group's name as the provider shows it, e.g. \"Deals: read\"").value_or("");
  g.description = r.text("description", need::optional);
  g.permissions = r.string_list("permissions", need::optional);
  return g;
}

setup_secret read_secret(const json& v, const json_path& at, violations& out) {
  setup_secret s;
  object_reader r(v, at, "a secret", {"name", "label", "description", "required"}, out);
  s.name = r.text("name", need::required, "the NAME endpoints use as {{secrets.NAME}}, e.g. \"ACME_API_KEY\"").value_or("");
  if (!s.name.empty() && !is_placeholder_name(s.name)) {
    report(out, r.path("name"), code::invalid_secret_name,
           "secret name " + json_quoted(s.name) + " cannot be used as {{secrets.NAME}}: use letters, digits, `_` "
           "and `-`, starting with a letter or `_` (e.g. \"ACME_API_KEY\")");
  }
  s.label = r.text("label", need::optional);
  s.description = r.text("description", need::optional);
  s.required = r.flag("required").value_or(true);
  return s;
}

setup_step read_step(const json& v, const json_path& at, violations& out) {
  setup_step s;
  object_reader r(v, at, "a setup step", {"title", "description", "url"}, out);
  s.title = r.text("title", need::required, "a short imperative, e.g. \"Create an API key\"").value_or("");
  s.description = r.text("description", need::optional);
  s.url = r.text("url", need::optional);
  check_url_field(s.url, r.path("url"), out);
  return s;
}

setup_link read_link(const json& v, const json_path& at, violations& out) {
  setup_link l;
  object_reader r(v, at, "a link", {"label", "url"}, out);
  l.label = r.text("label", need::required, "the link text").value_or("");
  auto url = r.text("url", need::required, "an absolute https:// URL");
  check_url_field(url, r.path("url"), out);
  l.url = url.value_or("");
  return l;
}

setup_instructions read_instructions(const json& v, const json_path& at, violations& out) {
  setup_instructions s;
  object_reader r(v, at, "setupInstructions", {"overview", "steps", "links"}, out);
  s.overview = r.text("overview", need::optional);
  for_each_element(r.array("steps", need::optional), r.path("steps"),
                   [&](const json& e, const json_path& p) { s.steps.push_back(read_step(e, p, out)); });
  for_each_element(r.array("links", need::optional), r.path("links"),
                   [&](const json& e, const json_path& p) { s.links.push_back(read_link(e, p, out)); });
  return s;
}

template <class T>
void check_unique_names(const std::vector<T>& items, const json_path& at, code c, std::string_view what,
                        violations& out) {
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (items[i].name.empty()) continue;
    for (std::size_t j = 0; j < i; ++j) {
      if (items[j].name != items[i].name) continue;
      report(out, at.index(i).key("name"), c,
             std::string(what) + " " + json_quoted(items[i].name) + " is already declared at " + at.index(j).str() +
                 ": remove this one or merge the two");
      break;
    }
  }
}

setup_integration read_integration_entry(const json& v, const json_path& at, violations& out) {
  setup_integration i;
  object_reader r(v, at, "an integration",
                  {"name", "domain", "keySlug", "keyName", "capabilityLabel", "why", "permissionGroups", "secrets",
                   "setupInstructions"},
                  out);
  if (!r.is_object()) return i;
  i.name = r.text("name", need::required, "the provider's name, e.g. \"Acme CRM\"").value_or("");
  i.domain = r.text("domain", need::required, "the API host, the same as integration.domain in agents.json").value_or("");
  if (!i.domain.empty()) {
    if (auto why = domain_problem(i.domain)) report(out, r.path("domain"), code::invalid_domain, "domain " + *why);
  }
  i.key_slug = r.text("keySlug", need::required, "the grant's slug, the same as integration.keySlug in agents.json "
                                                 "(\"default\" when agents.json omits it)")
                   .value_or("");
  if (!i.key_slug.empty()) {
    if (auto why = key_slug_problem(i.key_slug)) report(out, r.path("keySlug"), code::invalid_key_slug, "keySlug " + *why);
  }
  i.key_name = r.text("keyName", need::optional);
  i.capability_label = r.text("capabilityLabel", need::optional);
  i.why = r.text("why", need::optional);
  for_each_element(r.array("permissionGroups", need::optional), r.path("permissionGroups"),
                   [&](const json& e, const json_path& p) { i.permission_groups.push_back(read_permission_group(e, p, out)); });
  for_each_element(r.array("secrets", need::optional), r.path("secrets"),
                   [&](const json& e, const json_path& p) { i.secrets.push_back(read_secret(e, p, out)); });
  check_unique_names(i.permission_groups, r.path("permissionGroups"), code::duplicate_permission_group,
                     "permission group", out);
  check_unique_names(i.secrets, r.path("secrets"), code::duplicate_secret, "secret", out);
  if (const json* s = r.get("setupInstructions")) i.instructions = read_instructions(*s, r.path("setupInstructions"), out);
  return i;
}

void check_unique_grants(const std::vector<setup_integration>& list, const json_path& at, violations& out) {
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (list[i].domain.empty() || list[i].key_slug.empty()) continue;
    for (std::size_t j = 0; j < i; ++j) {
      if (list[j].domain != list[i].domain || list[j].key_slug != list[i].key_slug) continue;
      report(out, at.index(i), code::duplicate_integration,
             "domain " + json_quoted(list[i].domain) + " with keySlug " + json_quoted(list[i].key_slug) + " is already "
             "described at " + at.index(j).str() + ": merge the two entries, or give one its own keySlug (and "
             "use that keySlug in agents.json)");
      break;
    }
  }
}

}  // namespace
}  // namespace config

integration_setup_report validate_integration_setup(std::string_view json_text) {
  using namespace config;
  integration_setup_report r;
  auto doc = parse_document(json_text, "integration-setup.json", R"({"integrations": [...]})", r.problems);
  if (!doc) return r;
  integration_setup setup;
  object_reader top(*doc, json_path(), "integration-setup.json", {"integrations"}, r.problems);
  const config::json* list = top.array("integrations", need::required, "an array with one entry per integration that needs setup");
  for_each_element(list, top.path("integrations"), [&](const config::json& e, const json_path& p) {
    setup.integrations.push_back(read_integration_entry(e, p, r.problems));
  });
  if (list != nullptr && list->empty()) {
    report(r.problems, top.path("integrations"), code::integrations_empty,
           "integrations is empty: add the integration that needs setup, or do not write integration-setup.json "
           "when none does");
  }
  check_unique_grants(setup.integrations, top.path("integrations"), r.problems);
  if (r.problems.empty()) r.setup = std::move(setup);
  return r;
}

integration_setup_report integration_setup_missing() {
  integration_setup_report r;
  config::report(r.problems, json_path(), config::code::file_missing,
                 "integration-setup.json does not exist, so no integration is registered: write it when an "
                 "integration needs secrets, permissions or scopes, then call present_integration_setup");
  return r;
}

integration_registration integrations_to_register(std::optional<std::string_view> file_text) {
  integration_registration out;
  if (!file_text) {
    out.not_registered_reason = "integration-setup.json is missing";
    return out;
  }
  auto report = validate_integration_setup(*file_text);
  if (!report.setup) {
    const violation& first = report.problems.front();
    out.not_registered_reason = "integration-setup.json is invalid (" + std::to_string(report.problems.size()) +
                                " violation" + (report.problems.size() == 1 ? "" : "s") + "; first: " +
                                (first.path.empty() ? std::string() : first.path + ": ") + first.message + ")";
    return out;
  }
  out.integrations = std::move(report.setup->integrations);
  return out;
}

}  // namespace platform
