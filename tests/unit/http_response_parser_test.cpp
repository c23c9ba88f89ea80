#include <doctest/doctest.h>

#include <string>

#include "platform/http_response_parser.hpp"

namespace http_response_parser_test {

using namespace platform;
using F = http_response_parser::failure;

namespace {

// Feeds `wire` in pieces of `step` bytes, then signals the close when `close` is set.
http_response_parser parse(const std::string& wire, std::size_t step = 0, bool close = false,
                           http_response_limits limits = {}, bool no_body = false) {
  http_response_parser p(limits, no_body);
  if (step == 0) step = wire.size() + 1;
  for (std::size_t at = 0; at < wire.size() && !p.done() && !p.failed(); at += step) {
    p.feed(std::string_view(wire).substr(at, step));
  }
  if (close) p.finish();
  return p;
}

// The same response read at every split size must come out the same.
void check_every_split(const std::string& wire, int status, const std::string& body, bool close = false) {
  for (std::size_t step = 1; step <= wire.size(); ++step) {
    auto p = parse(wire, step, close);
    REQUIRE_MESSAGE(p.done(), "step " << step << ": " << p.detail());
    CHECK(p.response().status == status);
    CHECK(p.response().body == body);
  }
}

}  // namespace

TEST_CASE("a Content-Length body, split anywhere") {
  std::string wire = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"ok\":true}";
  check_every_split(wire, 200, "{\"ok\":true}");
  auto p = parse(wire);
  CHECK(p.response().reason == "OK");
  CHECK(p.response().header("content-type") == "application/json");
  CHECK(p.response().header("CONTENT-LENGTH") == "11");
  CHECK(!p.response().header("x-missing"));
}

TEST_CASE("a chunked body with extensions and trailers, split anywhere") {
  std::string wire =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
      "4;name=value\r\nWiki\r\n5 \r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nX-Trailer: t\r\n\r\n";
  check_every_split(wire, 200, "Wikipedia in\r\n\r\nchunks.");
}

TEST_CASE("a body read until the connection closes") {
  std::string wire = "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nhello\nworld";
  check_every_split(wire, 200, "hello\nworld", true);
  auto open = parse(wire);
  CHECK(open.current() == http_response_parser::state::body);
}

TEST_CASE("bare LF line endings and interim 1xx answers are accepted") {
  check_every_split("HTTP/1.1 100 Continue\n\nHTTP/1.1 103 Early Hints\nLink: </a>\n\nHTTP/1.1 201 Created\nContent-Length: 2\n\nok",
                    201, "ok");
}

TEST_CASE("no body for HEAD, 204 and 304, whatever the headers say") {
  CHECK(parse("HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n").done());
  CHECK(parse("HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n").done());
  auto head = parse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", 0, false, {}, true);
  CHECK(head.done());
  CHECK(head.response().body.empty());
}

TEST_CASE("the head is complete before the body arrives") {
  auto p = parse("HTTP/1.1 302 Found\r\nLocation: /next\r\nContent-Length: 100\r\n\r\nabc");
  CHECK(p.head_complete());
  CHECK(!p.done());
  CHECK(p.response().header("location") == "/next");
}

TEST_CASE("the body limit holds for every framing, before the bytes are kept") {
  http_response_limits small{.max_head_bytes = 1024, .max_headers = 10, .max_body_bytes = 8};
  auto declared = parse("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n", 0, false, small);
  CHECK(declared.why() == F::body_too_large);
  CHECK(declared.head_complete());
  auto chunk = parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n12345\r\n4\r\n", 0, false, small);
  CHECK(chunk.why() == F::body_too_large);
  CHECK(chunk.response().body == "12345");
  auto until_close = parse("HTTP/1.1 200 OK\r\n\r\n123456789", 1, false, small);
  CHECK(until_close.why() == F::body_too_large);
  CHECK(until_close.response().body.size() == 8);
  // What is kept before the failure does not depend on how the reads were cut (found by the fuzzer).
  CHECK(parse("HTTP/1.1 200 OK\r\n\r\n123456789", 0, false, small).response().body == "12345678");
  CHECK(parse("HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\n12345678", 0, false, small).done());
}

TEST_CASE("the head limit holds for long lines, many headers and trailers") {
  http_response_limits small{.max_head_bytes = 64, .max_headers = 2, .max_body_bytes = 100};
  CHECK(parse("HTTP/1.1 200 OK\r\nX: " + std::string(100, 'a'), 7, false, small).why() == F::head_too_large);
  CHECK(parse("HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", 0, false, small).why() == F::head_too_large);
  std::string trailers = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n";
  for (int i = 0; i < 10; ++i) trailers += "T: 0123456789\r\n";
  CHECK(parse(trailers, 0, false, small).why() == F::head_too_large);
  CHECK(parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + std::string(5000, '1'), 0, false, small).why() ==
        F::malformed);
}

TEST_CASE("ambiguous or broken framing is refused") {
  for (const char* wire : {"HTTP/2 200 OK\r\n\r\n", "HTTP/1.1 20 OK\r\n\r\n", "HTTP/1.1 099 X\r\n\r\n", "HTTP/1.1 600 X\r\n\r\n",
                           "HTTP/1.1 200OK\r\n\r\n", "ICY 200 OK\r\n\r\n", "HTTP/1.1 200 OK\r\n folded: x\r\n\r\n",
                           "HTTP/1.1 200 OK\r\nName : v\r\n\r\n", "HTTP/1.1 200 OK\r\nNoColon\r\n\r\n",
                           "HTTP/1.1 200 OK\r\nX: a\rb\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
                           "HTTP/1.1 200 OK\r\nContent-Length: 1, 2\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
                           "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n",
                           "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
                           "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n",
                           "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1000000000000000\r\n",
                           "HTTP/1.1 101 Switching Protocols\r\n\r\n"}) {
    auto p = parse(wire);
    CHECK_MESSAGE(p.why() == F::malformed, wire);
  }
  CHECK(parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n").why() == F::unsupported_transfer_encoding);
  CHECK(parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n").why() ==
        F::unsupported_transfer_encoding);
  // Equal repeated lengths are one length; chunked wins over Content-Length (RFC 9112 6.3).
  CHECK(parse("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok").done());
  CHECK(parse("HTTP/1.1 200 OK\r\nContent-Length: 99\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n").response().body == "ok");
}

TEST_CASE("a connection that closes early truncates; bytes after the end are not used") {
  CHECK(parse("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", 0, true).why() == F::truncated);
  CHECK(parse("HTTP/1.1 200 OK\r\nContent-Le", 0, true).why() == F::truncated);
  CHECK(parse("", 0, true).why() == F::truncated);
  http_response_parser p;
  std::string wire = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA";
  CHECK(p.feed(wire) == wire.size() - 5);
  CHECK(p.done());
  CHECK(p.feed("more") == 0);
  p.finish();
  CHECK(p.done());
}

}  // namespace http_response_parser_test
