// The neutral transcript handoff (platform/transcript_handoff.hpp).
#include <doctest/doctest.h>

#include <string>

#include "platform/transcript_handoff.hpp"

namespace transcript_handoff_test {

using namespace platform;

namespace {

const std::string conversation = R"([
  {"id":"u1","role":"user","parts":[{"type":"text","text":"Build a todo app."}]},
  {"id":"a1","role":"assistant","parts":[
    {"type":"reasoning","text":"secret chain of thought"},
    {"type":"text","text":"Here is my plan."},
    {"type":"dynamic-tool","toolName":"Write","toolCallId":"t1","state":"output-available",
     "input":{"file_path":"src/App.tsx","content":"export default 1;\n"},"output":"ok"},
    {"type":"tool-Bash","toolCallId":"t2","state":"output-error","input":{"command":"npm test"},"errorText":"exit 1"}]},
  {"id":"u2","role":"user","parts":[{"type":"text","text":"Now add dark mode."}]}
])";

}  // namespace

TEST_CASE("messages become User/Assistant text with one line per tool call; reasoning stays out") {
  std::string t = neutral_transcript(conversation, 0, 2);
  CHECK(t.find("User:\nBuild a todo app.") == 0);
  CHECK(t.find("Assistant:\nHere is my plan.") != std::string::npos);
  CHECK(t.find(R"([tool Write {"content":"export default 1;\n","file_path":"src/App.tsx"} -> ok])") != std::string::npos);
  CHECK(t.find("[tool Bash {\"command\":\"npm test\"} -> error: exit 1]") != std::string::npos);
  CHECK(t.find("secret chain of thought") == std::string::npos);
  CHECK(t.find("dark mode") == std::string::npos);  // past `to`
  CHECK(neutral_transcript(conversation, 1, 2).find("Build a todo app.") == std::string::npos);  // before `from`
}

TEST_CASE("nothing to hand over, or nothing readable: empty") {
  CHECK(neutral_transcript(conversation, 2, 2).empty());
  CHECK(neutral_transcript(conversation, 3, 1).empty());
  CHECK(neutral_transcript("not json", 0, 5).empty());
  CHECK(neutral_transcript("{}", 0, 5).empty());
  CHECK(neutral_transcript(std::string(10000, '[') + std::string(10000, ']'), 0, 5).empty());
  CHECK(prompt_with_handoff("", "Hi") == "Hi");
}

TEST_CASE("bounded: long parts are cut at a character boundary, the newest messages are kept") {
  handoff_limits small{300, 40, 30};
  std::string many = "[";
  for (int i = 0; i < 50; ++i) {
    if (i) many += ",";
    many += R"({"role":"user","parts":[{"type":"text","text":"message )" + std::to_string(i) + R"( é é é é é é é é é é é é é é"}]})";
  }
  many += "]";
  std::string t = neutral_transcript(many, 0, 50, small);
  CHECK(t.size() <= 300 + 64);
  CHECK(t.find("earlier messages left out") != std::string::npos);
  CHECK(t.find("message 49") != std::string::npos);
  CHECK(t.find("message 0 ") == std::string::npos);
  CHECK(t.find(" [...]") != std::string::npos);
  // Still valid UTF-8 after every cut: no lone continuation byte before the marker.
  for (std::size_t at = t.find(" [...]"); at != std::string::npos; at = t.find(" [...]", at + 1)) {
    CHECK((static_cast<unsigned char>(t[at - 1]) & 0xC0) != 0xC0);
  }
  std::string p = prompt_with_handoff(t, "Next?");
  CHECK(p.find("<conversation>") != std::string::npos);
  CHECK(p.size() > t.size());
  CHECK(p.substr(p.size() - 5) == "Next?");
}

TEST_CASE("what a resumed session already covers: the web's count, a worker's own session all, none nothing") {
  // The web's runtimeSessionStates count, clamped to the earlier messages.
  CHECK(messages_covered(session_source::web, 5, 3) == 3);
  CHECK(messages_covered(session_source::web, 5, 9) == 5);
  CHECK(messages_covered(session_source::web, 5, -2) == 0);
  CHECK(messages_covered(session_source::web, 0, 4) == 0);
  // This worker's own session of the run ran every earlier turn.
  CHECK(messages_covered(session_source::worker, 5, 0) == 5);
  // No session: the whole conversation goes over as the transcript.
  CHECK(messages_covered(session_source::none, 5, 5) == 0);
}

}  // namespace transcript_handoff_test
