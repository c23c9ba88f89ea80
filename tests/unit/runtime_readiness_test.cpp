// "Ready" (issue 34): a usable CLI, credentials for the model's provider, the model listed;
// each gap has its own sentence, which names Model providers where a person can act there.
#include <doctest/doctest.h>

#include "platform/runtime_readiness.hpp"

namespace runtime_readiness_test {

using namespace platform;

TEST_CASE("ready: usable, listed, with credentials") {
  auto r = decide_runtime_readiness({"runtime-a", "claude-sonnet-4-5", true, true, true, true, false});
  CHECK(r.ready());
  CHECK(r.reason.empty());
}

TEST_CASE("no credentials: each runtime says what it needs and where to enter it") {
  auto a = decide_runtime_readiness({"runtime-a", "", true, true, true, false, false});
  CHECK(a.gap == readiness_gap::no_credentials);
  CHECK(a.reason.find("Claude Code has no Anthropic API key") == 0);
  CHECK(a.reason.find("Model providers") != std::string::npos);
  auto b = decide_runtime_readiness({"runtime-b", "gpt-5.1-codex", true, true, true, false, false});
  CHECK(b.gap == readiness_gap::no_credentials);
  CHECK(b.reason.find("Codex has no OpenAI API key") == 0);
  auto c = decide_runtime_readiness({"runtime-c", "openai/gpt-5", true, true, true, false, false});
  CHECK(c.gap == readiness_gap::no_credentials);
  CHECK(c.reason.find("provider openai of openai/gpt-5") != std::string::npos);
}

TEST_CASE("a ChatGPT login alone is not enough in the sandbox") {
  auto b = decide_runtime_readiness({"runtime-b", "gpt-5.1-codex", true, true, true, false, true});
  CHECK(b.gap == readiness_gap::login_not_jailable);
  CHECK(b.reason.find("refresh token") != std::string::npos);
  // With a key as well, the key serves.
  CHECK(decide_runtime_readiness({"runtime-b", "gpt-5.1-codex", true, true, true, true, true}).ready());
}

TEST_CASE("the gaps come in order: usable, listed, routed, credentials") {
  CHECK(decide_runtime_readiness({"runtime-c", "x/y", false, false, false, false, false}).gap == readiness_gap::not_usable);
  auto unlisted = decide_runtime_readiness({"runtime-c", "x/y", true, false, false, false, false});
  CHECK(unlisted.gap == readiness_gap::model_not_listed);
  CHECK(unlisted.reason == "The model x/y is not offered by opencode on this worker. Choose another model.");
  auto unrouted = decide_runtime_readiness({"runtime-c", "opencode/big-pickle", true, true, false, false, false});
  CHECK(unrouted.gap == readiness_gap::no_provider_route);
  CHECK(unrouted.reason.find("provider opencode of opencode/big-pickle") != std::string::npos);
  // A runtime as a whole (no model chosen) is never "not listed".
  CHECK(decide_runtime_readiness({"runtime-c", "", true, false, true, true, false}).ready());
}

TEST_CASE("a catalog without a ready model") {
  auto r = no_model_ready("runtime-c");
  CHECK(r.gap == readiness_gap::no_credentials);
  CHECK(r.reason.find("opencode has no model") == 0);
}

TEST_CASE("display names") {
  CHECK(runtime_display_name("runtime-a") == "Claude Code");
  CHECK(runtime_display_name("runtime-b") == "Codex");
  CHECK(runtime_display_name("runtime-c") == "opencode");
  CHECK(runtime_display_name("runtime-z") == "runtime-z");
}

}  // namespace runtime_readiness_test
