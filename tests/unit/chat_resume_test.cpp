#include <doctest/doctest.h>

#include "platform/chat_resume.hpp"

namespace chat_resume_test {

using namespace platform;

TEST_CASE("rule 2: only a streaming run without an attachable stream is waited for") {
  CHECK(resume_waits({run_status::streaming, std::nullopt}));
  CHECK_FALSE(resume_waits({run_status::streaming, std::string("s1")}));
  CHECK_FALSE(resume_waits({run_status::completed, std::nullopt}));
  CHECK_FALSE(resume_waits({run_status::failed, std::nullopt}));
  CHECK_FALSE(resume_waits({run_status::pending, std::nullopt}));
}

TEST_CASE("only a streaming run with an active stream is attached to; the rest is a 204") {
  CHECK(resume_attaches({run_status::streaming, std::string("s1")}));
  CHECK_FALSE(resume_attaches({run_status::streaming, std::nullopt}));
  CHECK_FALSE(resume_attaches({run_status::completed, std::string("s1")}));
  CHECK_FALSE(resume_attaches({run_status::failed, std::string("s1")}));
}

TEST_CASE("the first read: a replay with a hole is never shown; a viewer from the start gets the head") {
  CHECK(after_first_read(replay_status::ok, 0) == resume_read::stream);
  CHECK(after_first_read(replay_status::ok, 42) == resume_read::stream);
  CHECK(after_first_read(replay_status::cursor_expired, 0) == resume_read::from_head);
  CHECK(after_first_read(replay_status::cursor_expired, 42) == resume_read::no_content);
  CHECK(after_first_read(replay_status::cursor_ahead, 0) == resume_read::no_content);
  CHECK(after_first_read(replay_status::cursor_ahead, 42) == resume_read::no_content);
}

}  // namespace chat_resume_test
