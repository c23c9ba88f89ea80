// runtime-c normalizer + bridge on arbitrary bytes. Contract: never crash; every worker
// message the normalizer writes is one JSON object with a "type"; the bridge's output is a
// well-formed SSE body whose data events are JSON objects with a "type" and which ends with
// `data: [DONE]`; and none of it depends on how the input bytes were split.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/bridge.hpp"
#include "platform/runtime_normalizer.hpp"
#include "platform/ui_stream.hpp"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

bool is_typed_object(std::string_view text) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return false;
  auto it = j.find("type");
  return it != j.end() && it->is_string();
}

struct run {
  std::string messages;
  std::string sse;
};

// Feeds `input` cut at `cuts` through a fresh normalizer and bridge.
run translate(std::string_view input, const std::vector<std::size_t>& cuts) {
  auto normalizer = platform::make_runtime_normalizer("runtime-c");
  check(normalizer.has_value());
  platform::bridge b;
  run r;
  std::size_t pos = 0;
  std::string batch;
  auto pump = [&](std::string_view piece) {
    batch.clear();
    (*normalizer)->feed(piece, batch);
    r.messages += batch;
    b.feed(batch, r.sse);
  };
  for (std::size_t cut : cuts) {
    pump(input.substr(pos, cut - pos));
    pos = cut;
  }
  pump(input.substr(pos));
  batch.clear();
  (*normalizer)->finish(batch);
  r.messages += batch;
  b.feed(batch, r.sse);
  b.finish(r.sse);
  return r;
}

void check_messages(const std::string& messages) {
  check(messages.empty() || messages.back() == '\n');
  std::size_t start = 0;
  while (start < messages.size()) {
    std::size_t nl = messages.find('\n', start);
    check(is_typed_object(std::string_view(messages).substr(start, nl - start)));
    start = nl + 1;
  }
}

void check_sse(const std::string& sse) {
  constexpr std::string_view done = platform::sse_done_event;
  check(sse.size() >= done.size() && std::string_view(sse).substr(sse.size() - done.size()) == done);
  platform::sse_parser parser(1u << 30);
  std::vector<std::string> events;
  check(parser.feed(sse, events));
  check(!parser.has_partial_event());
  check(!events.empty() && events.back() == "[DONE]");
  for (std::size_t i = 0; i + 1 < events.size(); ++i) check(is_typed_object(events[i]));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  run whole = translate(input, {});
  check_messages(whole.messages);
  check_sse(whole.sse);

  // The same bytes in pieces whose sizes come from the input itself.
  std::vector<std::size_t> cuts;
  std::size_t pos = 0;
  for (std::size_t i = 0; i < size && cuts.size() < 64; ++i) {
    pos += 1 + static_cast<unsigned char>(input[i]) % 97;
    if (pos >= size) break;
    cuts.push_back(pos);
  }
  run split = translate(input, cuts);
  check(split.messages == whole.messages);
  check(split.sse == whole.sse);
  return 0;
}
