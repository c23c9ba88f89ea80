#pragma once
// Runtime normalizers: incremental state machines that turn each runtime's native output
// lines into worker messages (platform/worker_message.hpp). runtime-a's stream-json is
// already the worker message form; runtime-b (codex app-server JSON-RPC) and runtime-c
// (opencode `run --format json`) are translated.
#include <memory>
#include <string>
#include <string_view>

#include "platform/error.hpp"

namespace platform {

class runtime_normalizer {
 public:
  virtual ~runtime_normalizer() = default;
  // Feeds native bytes in any split; appends complete worker message lines to `out`.
  virtual void feed(std::string_view bytes, std::string& out) = 0;
  // End of the native stream: flushes a final unterminated line and closes what the runtime
  // left open (an interrupted turn, a missing completion).
  virtual void finish(std::string& out) = 0;
};

// "runtime-a", "runtime-b" or "runtime-c"; unknown ids are an error.
result<std::unique_ptr<runtime_normalizer>> make_runtime_normalizer(std::string_view runtime_id);

}  // namespace platform
