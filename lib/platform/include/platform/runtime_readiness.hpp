#pragma once
// Whether a runtime can serve a model now (issue 34, "Runtimes without credentials"): "Ready"
// means the CLI is usable, credentials for the model's provider are present and the model is
// listed for them, decided from what the worker holds, without a model call. A turn on a
// runtime that is not ready is refused before any process starts, with the sentence below,
// which the run keeps as its stop reason's message; the picker marks the same runtimes.
#include <string>
#include <string_view>

namespace platform {

enum class readiness_gap : unsigned char {
  none,
  not_usable,          // the CLI is missing or cannot run turns
  no_credentials,      // nothing to authenticate to the model's provider with
  login_not_jailable,  // only a login whose refresh token may not enter the sandbox
  no_provider_route,   // the provider has no address a sandboxed run can be led to
  model_not_listed,    // the runtime does not offer the chosen model
};

// What the worker knows about one runtime and the chosen model (booleans only: no secret).
struct runtime_readiness_facts {
  std::string_view runtime_id;   // runtime-a, runtime-b, runtime-c
  std::string_view model;        // the chosen model; empty: the runtime as a whole
  bool usable = true;            // installed and able to run turns
  bool model_listed = true;
  bool provider_routed = true;   // runtime-c: the model's provider has a base URL
  bool credentials = false;      // a key, a usable login, or a provider that needs none
  bool login_only = false;       // runtime-b: a ChatGPT login and nothing else
};

struct runtime_readiness {
  readiness_gap gap = readiness_gap::none;
  std::string reason;  // a sentence for a person, empty when ready

  [[nodiscard]] bool ready() const { return gap == readiness_gap::none; }
};

runtime_readiness decide_runtime_readiness(const runtime_readiness_facts& facts);
// A runtime that lists models, none of them ready.
runtime_readiness no_model_ready(std::string_view runtime_id);

// The run's stopReason when a turn was refused for it.
inline constexpr std::string_view runtime_not_ready_code = "runtime_not_ready";

// "Claude Code", "Codex", "opencode": the names a person knows the runtimes by.
std::string_view runtime_display_name(std::string_view runtime_id);

}  // namespace platform
