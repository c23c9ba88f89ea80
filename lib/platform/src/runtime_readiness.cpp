#include "platform/runtime_readiness.hpp"

namespace platform {

std::string_view runtime_display_name(std::string_view runtime_id) {
  if (runtime_id == "runtime-a") return "Claude Code";
  if (runtime_id == "runtime-b") return "Codex";
  if (runtime_id == "runtime-c") return "opencode";
  return runtime_id;
}

namespace {

// "the model openai/gpt-5" or "its models": what the sentence is about.
std::string provider_of(std::string_view model) {
  auto slash = model.find('/');
  return std::string(slash == std::string_view::npos ? model : model.substr(0, slash));
}

std::string no_credentials(const runtime_readiness_facts& f, std::string_view name) {
  if (f.runtime_id == "runtime-a") {
    return std::string(name) + " has no Anthropic API key or login on this worker. Enter a key on Model providers, then send "
                               "the message again.";
  }
  if (f.runtime_id == "runtime-b") {
    return std::string(name) + " has no OpenAI API key on this worker. Enter one on Model providers, then send the message "
                               "again.";
  }
  if (f.runtime_id == "runtime-c" && !f.model.empty()) {
    return std::string(name) + " has no key for the provider " + provider_of(f.model) + " of " + std::string(f.model) +
           ". Choose a model of a provider set up on Model providers, or ask the operator to add the key.";
  }
  return std::string(name) + " has no credentials on this worker. See Model providers.";
}

}  // namespace

runtime_readiness decide_runtime_readiness(const runtime_readiness_facts& f) {
  const std::string name(runtime_display_name(f.runtime_id));
  if (!f.usable) {
    return {readiness_gap::not_usable, name + " is not installed or cannot run on this worker. See Model providers."};
  }
  if (!f.model.empty() && !f.model_listed) {
    return {readiness_gap::model_not_listed,
            "The model " + std::string(f.model) + " is not offered by " + name + " on this worker. Choose another model."};
  }
  if (!f.provider_routed) {
    return {readiness_gap::no_provider_route,
            name + " cannot reach the provider " + provider_of(f.model) + " of " + std::string(f.model) +
                " from the sandbox: the operator's opencode configuration gives it no address. Choose a model of a provider "
                "set up on Model providers."};
  }
  if (!f.credentials && f.login_only) {
    return {readiness_gap::login_not_jailable,
            name + " is logged in with a ChatGPT account, whose refresh token may not enter the sandbox. Enter an OpenAI API "
                   "key on Model providers, then send the message again."};
  }
  if (!f.credentials) return {readiness_gap::no_credentials, no_credentials(f, name)};
  return {};
}

runtime_readiness no_model_ready(std::string_view runtime_id) {
  return {readiness_gap::no_credentials, std::string(runtime_display_name(runtime_id)) +
                                             " has no model of a provider with a key on this worker. Ask the operator to set "
                                             "a provider up in its opencode configuration (see Model providers)."};
}

}  // namespace platform
