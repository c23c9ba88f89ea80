// The replay head of a stream that outgrew its replay buffer: the events it stands for folded
// into a few that rebuild the same message, so head + the rest of the stream assemble exactly
// what the whole stream assembles (checked on every golden stream, cut at every event).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/api_error.hpp"
#include "platform/replay_buffer.hpp"
#include "platform/replay_head.hpp"
#include "platform/ui_message.hpp"
#include "platform/ui_stream.hpp"

namespace replay_head_test {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> events_of(const std::string& sse) {
  platform::sse_parser p;
  std::vector<std::string> events;
  REQUIRE(p.feed(sse, events));
  return events;
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

json assembled(const std::vector<std::string>& events, std::size_t from = 0) {
  platform::ui_message_assembler a;
  for (std::size_t i = from; i < events.size(); ++i) a.feed(events[i]);
  return json::parse(a.message_json());
}

std::vector<std::string> golden_streams() {
  std::vector<std::string> out;
  for (const char* runtime : {"runtime-a", "runtime-b", "runtime-c"}) {
    fs::path dir = fs::path(PLATFORM_TEST_DATA) / ".." / "golden" / runtime;
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.path().extension() == ".sse") out.push_back(read(e.path()));
    }
  }
  return out;
}

}  // namespace

TEST_CASE("head + the rest = the whole stream, for every golden stream cut at every event") {
  auto streams = golden_streams();
  REQUIRE(streams.size() > 20);
  std::size_t cuts = 0;
  for (const auto& sse : streams) {
    auto events = events_of(sse);
    json whole = assembled(events);
    platform::ui_message_assembler head;
    for (std::size_t cut = 0; cut <= events.size(); ++cut) {
      std::vector<std::string> replay = events_of(head.replay_events());
      CHECK(replay.front().find("\"type\":\"start\"") != std::string::npos);
      replay.insert(replay.end(), events.begin() + static_cast<std::ptrdiff_t>(cut), events.end());
      CHECK(assembled(replay) == whole);
      ++cuts;
      if (cut < events.size()) head.feed(events[cut]);
    }
  }
  CHECK(cuts > 200);
}

TEST_CASE("open parts stay open under their stream ids; finished ones are one start, delta and end each") {
  std::vector<std::string> events = {
      R"({"type":"start","messageId":"m1"})",
      R"({"type":"start-step"})",
      R"({"type":"reasoning-start","id":"r"})",
      R"({"type":"reasoning-delta","id":"r","delta":"thinking "})",
      R"({"type":"reasoning-delta","id":"r","delta":"hard"})",
      R"({"type":"reasoning-end","id":"r"})",
      R"({"type":"text-start","id":"t"})",
      R"({"type":"text-delta","id":"t","delta":"Hel"})",
      R"({"type":"tool-input-start","toolCallId":"c1","toolName":"Bash","dynamic":true})",
      R"({"type":"tool-input-delta","toolCallId":"c1","inputTextDelta":"{\"comm"})",
  };
  platform::ui_message_assembler a;
  for (const auto& e : events) a.feed(e);
  auto replay = events_of(a.replay_events());
  std::vector<json> chunks;
  for (const auto& e : replay) chunks.push_back(json::parse(e));
  REQUIRE(chunks.size() == 9);
  CHECK(chunks[0] == json::parse(R"({"type":"start","messageId":"m1"})"));
  CHECK(chunks[1] == json::parse(R"({"type":"start-step"})"));
  CHECK(chunks[3]["delta"] == "thinking hard");
  CHECK(chunks[4]["type"] == "reasoning-end");
  CHECK(chunks[5] == json::parse(R"({"type":"text-start","id":"t"})"));
  CHECK(chunks[6] == json::parse(R"({"type":"text-delta","id":"t","delta":"Hel"})"));
  CHECK(chunks[7]["type"] == "tool-input-start");
  CHECK(chunks[8] == json::parse(R"({"type":"tool-input-delta","toolCallId":"c1","inputTextDelta":"{\"comm"})"));
  // The live tail continues every open part.
  replay.push_back(R"({"type":"text-delta","id":"t","delta":"lo"})");
  replay.push_back(R"({"type":"text-end","id":"t"})");
  replay.push_back(R"({"type":"tool-input-delta","toolCallId":"c1","inputTextDelta":"and\":\"ls\"}"})");
  replay.push_back(R"({"type":"tool-input-available","toolCallId":"c1","toolName":"Bash","input":{"command":"ls"},"dynamic":true})");
  json m = assembled(replay);
  CHECK(m["parts"][2]["text"] == "Hello");
  CHECK(m["parts"][2]["state"] == "done");
  CHECK(m["parts"][3]["input"] == json::parse(R"({"command":"ls"})"));
}

TEST_CASE("the schedule writes a head every half window, by events and by bytes") {
  platform::replay_limits limits;
  limits.max_chunks = 10;
  limits.max_bytes = 1000;
  platform::replay_head_schedule s(limits);
  std::vector<std::uint64_t> at;
  for (int i = 0; i < 20; ++i) {
    if (s.appended(10)) at.push_back(s.events());
  }
  CHECK(at == std::vector<std::uint64_t>{5, 10, 15, 20});
  platform::replay_head_schedule big(limits);
  CHECK_FALSE(big.appended(100));
  CHECK(big.appended(450));  // 550 bytes since the last head: over half the window
  CHECK(big.events() == 2);
}

TEST_CASE("a buffer that dropped its start, read from the beginning through its head") {
  platform::replay_limits limits;
  limits.max_chunks = 8;
  platform::memory_replay_store_options o;
  o.limits = limits;
  platform::memory_replay_store store(o);
  REQUIRE(store.create("s"));
  platform::replay_head_schedule schedule(limits);
  platform::ui_message_assembler a;
  std::vector<std::string> all = {R"({"type":"start","messageId":"m"})", R"({"type":"text-start","id":"t"})"};
  for (int i = 0; i < 40; ++i) all.push_back(R"({"type":"text-delta","id":"t","delta":")" + std::to_string(i) + R"( "})");
  all.push_back(R"({"type":"text-end","id":"t"})");
  for (const auto& e : all) {
    REQUIRE(store.append("s", "data: " + e + "\n\n"));
    a.feed(e);
    if (schedule.appended(e.size() + 8)) REQUIRE(store.put_head("s", {schedule.events(), a.replay_events()}));
  }
  auto expired = store.read_from("s", 0);
  REQUIRE(expired);
  CHECK(expired->status == platform::replay_status::cursor_expired);
  auto head = store.get_head("s");
  REQUIRE(head);
  REQUIRE(*head);
  auto tail = store.read_from("s", (*head)->upto);
  REQUIRE(tail);
  REQUIRE(tail->status == platform::replay_status::ok);
  auto r = platform::read_with_head(**head, *tail);
  std::string sse;
  for (const auto& c : r.chunks) sse += c.bytes;
  CHECK(assembled(events_of(sse)) == assembled(all));
  CHECK(r.next_cursor == all.size());

  platform::replay_head huge{1, std::string(limits.max_head_bytes + 1, 'x')};
  auto refused = store.put_head("s", huge);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code == platform::api_error::replay_head_too_large);
  auto none = store.get_head("s");
  REQUIRE(none);
  CHECK_FALSE(*none);
  CHECK(store.get_head("missing").error().code == platform::api_error::replay_not_found);
}

}  // namespace replay_head_test
