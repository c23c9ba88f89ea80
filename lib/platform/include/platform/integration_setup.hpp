#pragma once
// integration-setup.json: what an app needs configured for its integrations (secrets,
// permission groups, setup help), and its validation. A missing or invalid file registers no
// integration (spec "integration-setup.json"). Rules: docs/integration-setup.md.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "platform/error.hpp"

namespace platform {

struct permission_group {
  std::string name;
  std::optional<std::string> description;
  std::vector<std::string> permissions;
};

// A named static secret; endpoints reference it as `{{secrets.NAME}}`.
struct setup_secret {
  std::string name;
  std::optional<std::string> label;
  std::optional<std::string> description;
  bool required = true;  // missing means required: a declared secret is needed unless said otherwise
};

struct setup_step {
  std::string title;
  std::optional<std::string> description;
  std::optional<std::string> url;
};

struct setup_link {
  std::string label;
  std::string url;
};

struct setup_instructions {
  std::optional<std::string> overview;
  std::vector<setup_step> steps;
  std::vector<setup_link> links;
};

// One entry of integrations[]; (domain, key_slug) identifies the app-scoped grant it describes.
struct setup_integration {
  std::string name;
  std::string domain;
  std::string key_slug;
  std::optional<std::string> key_name;
  std::optional<std::string> capability_label;
  std::optional<std::string> why;
  std::vector<permission_group> permission_groups;
  std::vector<setup_secret> secrets;
  std::optional<setup_instructions> instructions;  // setupInstructions

  [[nodiscard]] const setup_secret* find_secret(std::string_view name) const;
};

struct integration_setup {
  std::vector<setup_integration> integrations;

  // The entry for a tool's integration: exact domain and keySlug (agents.json normalizes a
  // missing keySlug to "default" before asking).
  [[nodiscard]] const setup_integration* find_integration(std::string_view domain,
                                                          std::string_view key_slug = "default") const;
};

// Every violation is reported at once; the setup is returned only when there are none.
struct integration_setup_report {
  std::optional<integration_setup> setup;  // set iff problems is empty
  violations problems;
};

integration_setup_report validate_integration_setup(std::string_view json_text);

// For a host that found no integration-setup.json: one `file_missing` violation.
integration_setup_report integration_setup_missing();

// What the platform registers from the file: all its integrations when it is valid, none
// otherwise, with the reason (spec: missing or invalid registers no integration).
// `file_text` is nullopt when the file does not exist.
struct integration_registration {
  std::vector<setup_integration> integrations;
  std::optional<std::string> not_registered_reason;  // set when nothing was registered
};

integration_registration integrations_to_register(std::optional<std::string_view> file_text);

}  // namespace platform
