#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "platform/api_error.hpp"
#include "platform/egress_head.hpp"

namespace egress_head_test {

using namespace platform;
using reader_state = egress_head_reader::state;

namespace {

const std::string placeholder = "sk-sandbox-placeholder-0000000000";
const std::string secret = "sk-ant-real-secret-key-XYZ";

egress_head_rules rules(std::string prefix = "") {
  return egress_head_rules{.placeholder = placeholder, .secret = secret, .upstream_host = "api.anthropic.com",
                           .path_prefix = std::move(prefix)};
}

std::string rewrite_ok(const std::string& head, const egress_head_rules& r = rules()) {
  auto out = rewrite_egress_head(head, r);
  REQUIRE_MESSAGE(out.has_value(), out.error().message);
  return *out;
}

// The lines of a rewritten head, without the final empty line.
std::vector<std::string> lines_of(const std::string& head) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (true) {
    std::size_t end = head.find("\r\n", at);
    if (end == std::string::npos || end == at) break;
    out.push_back(head.substr(at, end - at));
    at = end + 2;
  }
  return out;
}

std::size_t count_lines(const std::string& head, const std::string& line) {
  std::size_t n = 0;
  for (const auto& l : lines_of(head)) n += l == line;
  return n;
}

// Every head the rewrite must refuse, with why.
struct refusal {
  const char* rule;
  std::string head;
};

std::vector<refusal> refusals() {
  const std::string ph = placeholder;
  std::vector<refusal> out = {
      {"bare LF ends a line", "POST /v1/messages HTTP/1.1\nHost: x\r\n\r\n"},
      {"bare LF inside a header", "POST /v1/messages HTTP/1.1\r\nx-api-key: " + ph + "\nX-B: 1\r\n\r\n"},
      {"bare CR", "POST /v1/messages HTTP/1.1\r\nX-A: a\rb\r\n\r\n"},
      {"obs-fold", "POST / HTTP/1.1\r\nX-A: a\r\n b\r\n\r\n"},
      {"obs-fold with HTAB", "POST / HTTP/1.1\r\nX-A: a\r\n\tb\r\n\r\n"},
      {"Content-Length and Transfer-Encoding", "POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"},
      {"Content-Length twice", "POST / HTTP/1.1\r\nContent-Length: 5\r\ncontent-length: 5\r\n\r\n"},
      {"Content-Length not digits", "POST / HTTP/1.1\r\nContent-Length: +5\r\n\r\n"},
      {"Content-Length a list", "POST / HTTP/1.1\r\nContent-Length: 5, 5\r\n\r\n"},
      {"Transfer-Encoding not chunked", "POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"},
      {"Transfer-Encoding twice", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n"},
      {"Transfer-Encoding in HTTP/1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n"},
      {"Host twice", "GET / HTTP/1.1\r\nHost: a\r\nHOST: b\r\n\r\n"},
      {"Connection names Content-Length", "POST / HTTP/1.1\r\nConnection: content-length\r\nContent-Length: 2\r\n\r\n"},
      {"absolute-form", "GET http://evil.example/v1/messages HTTP/1.1\r\n\r\n"},
      {"authority-form", "CONNECT evil.example:443 HTTP/1.1\r\n\r\n"},
      {"asterisk-form", "OPTIONS * HTTP/1.1\r\n\r\n"},
      {"network-path target", "GET //evil.example/x HTTP/1.1\r\n\r\n"},
      {"dot-dot segment", "GET /v1/../admin HTTP/1.1\r\n\r\n"},
      {"dot segment", "GET /v1/./messages HTTP/1.1\r\n\r\n"},
      {"trailing dot-dot", "GET /v1/.. HTTP/1.1\r\n\r\n"},
      {"percent-encoded dot-dot", "GET /v1/%2e%2E/admin HTTP/1.1\r\n\r\n"},
      {"half-encoded dot-dot", "GET /v1/.%2e/admin HTTP/1.1\r\n\r\n"},
      {"encoded slash around dot-dot", "GET /v1%2f..%2fadmin HTTP/1.1\r\n\r\n"},
      {"backslash dot-dot", "GET /v1\\..\\admin HTTP/1.1\r\n\r\n"},
      {"bad percent escape", "GET /v1/%zz HTTP/1.1\r\n\r\n"},
      {"truncated percent escape", "GET /v1/% HTTP/1.1\r\n\r\n"},
      {"fragment", "GET /v1/messages#x HTTP/1.1\r\n\r\n"},
      {"non-ASCII target", "GET /v1/\xc3\xa9 HTTP/1.1\r\n\r\n"},
      {"placeholder in another header", "POST / HTTP/1.1\r\nX-Echo: " + ph + "\r\n\r\n"},
      {"placeholder in a header name", "POST / HTTP/1.1\r\n" + ph + ": 1\r\n\r\n"},
      {"placeholder in a dropped header", "POST / HTTP/1.1\r\nProxy-Authorization: Basic " + ph + "\r\n\r\n"},
      {"placeholder in the Host header", "POST / HTTP/1.1\r\nHost: " + ph + "\r\n\r\n"},
      {"placeholder in the target path", "GET /v1/" + ph + " HTTP/1.1\r\n\r\n"},
      {"placeholder in the target query", "GET /v1/models?key=" + ph + " HTTP/1.1\r\n\r\n"},
      {"NUL in a value", std::string("POST / HTTP/1.1\r\nX-A: a\0b\r\n\r\n", 30)},
      {"control byte in a value", "POST / HTTP/1.1\r\nX-A: a\x01" "b\r\n\r\n"},
      {"DEL in a value", "POST / HTTP/1.1\r\nX-A: a\x7f\r\n\r\n"},
      {"control byte in a credential value", "POST / HTTP/1.1\r\nx-api-key: " + ph + "\x1b\r\n\r\n"},
      {"control byte in the target", "GET /v1\x01 HTTP/1.1\r\n\r\n"},
      {"no colon", "POST / HTTP/1.1\r\nX-A\r\n\r\n"},
      {"space before the colon", "POST / HTTP/1.1\r\nX-A : 1\r\n\r\n"},
      {"empty header name", "POST / HTTP/1.1\r\n: 1\r\n\r\n"},
      {"empty line inside the head", "POST / HTTP/1.1\r\nX-A: 1\r\n\r\nX-B: 2\r\n\r\n"},
      {"no end of head", "POST / HTTP/1.1\r\nX-A: 1\r\n"},
      {"empty head", "\r\n\r\n"},
      {"method outside the set", "TRACE / HTTP/1.1\r\n\r\n"},
      {"lower-case method", "get / HTTP/1.1\r\n\r\n"},
      {"HTTP/2 version", "GET / HTTP/2.0\r\n\r\n"},
      {"two spaces in the request line", "GET  / HTTP/1.1\r\n\r\n"},
      {"HTAB in the request line", "GET\t/ HTTP/1.1\r\n\r\n"},
      {"trailing space in the request line", "GET / HTTP/1.1 \r\n\r\n"},
  };
  std::string many = "POST / HTTP/1.1\r\n";
  for (int i = 0; i < 101; ++i) many += "X-H" + std::to_string(i) + ": v\r\n";
  out.push_back({"more than 100 headers", many + "\r\n"});
  return out;
}

}  // namespace

TEST_CASE("egress_head: the placeholder in x-api-key becomes the secret") {
  std::string out = rewrite_ok("POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1:47801\r\nx-api-key: " + placeholder +
                               "\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n");
  CHECK(out ==
        "POST /v1/messages HTTP/1.1\r\nHost: api.anthropic.com\r\nx-api-key: " + secret +
            "\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n");
  CHECK(out.find(placeholder) == std::string::npos);
}

TEST_CASE("egress_head: the placeholder in Authorization: Bearer becomes the secret, in every credential header") {
  std::string out = rewrite_ok("POST /v1/messages HTTP/1.1\r\nAuthorization:   Bearer " + placeholder + " \t\r\n\r\n");
  CHECK(count_lines(out, "Authorization: Bearer " + secret) == 1);
  for (std::string name : {"API-KEY", "X-Goog-Api-Key", "authorization"}) {
    std::string swapped = rewrite_ok("GET / HTTP/1.1\r\n" + name + ": " + placeholder + "," + placeholder + "\r\n\r\n");
    CHECK(count_lines(swapped, name + ": " + secret + "," + secret) == 1);
  }
  // A credential header without the placeholder passes as it came.
  CHECK(count_lines(rewrite_ok("GET / HTTP/1.1\r\nx-api-key: other\r\n\r\n"), "x-api-key: other") == 1);
}

TEST_CASE("egress_head: without a placeholder nothing is swapped and nothing is refused for it") {
  egress_head_rules r = rules();
  r.placeholder.clear();
  r.secret.clear();
  std::string out = rewrite_ok("GET /v1/models HTTP/1.1\r\nx-api-key: " + placeholder + "\r\nX-Echo: " + placeholder + "\r\n\r\n", r);
  CHECK(count_lines(out, "x-api-key: " + placeholder) == 1);
  CHECK(count_lines(out, "X-Echo: " + placeholder) == 1);
}

TEST_CASE("egress_head: the Host is the upstream's, exactly once, first") {
  for (std::string head : {"GET / HTTP/1.1\r\nX-A: 1\r\nhOsT:  127.0.0.1:47801 \r\n\r\n", "GET / HTTP/1.0\r\nX-A: 1\r\n\r\n"}) {
    auto lines = lines_of(rewrite_ok(head));
    REQUIRE(lines.size() == 4);
    CHECK(lines[1] == "Host: api.anthropic.com");
    CHECK(lines[2] == "X-A: 1");
    CHECK(lines[3] == "Connection: close");
  }
  egress_head_rules local = rules();
  local.upstream_host = "127.0.0.1:9000";
  CHECK(lines_of(rewrite_ok("GET / HTTP/1.1\r\nHost: x\r\n\r\n", local))[1] == "Host: 127.0.0.1:9000");
}

TEST_CASE("egress_head: hop-by-hop headers are dropped, also the ones Connection names; Connection: close once") {
  std::string out = rewrite_ok(
      "POST /v1/messages HTTP/1.1\r\nConnection: keep-alive, X-Hop ,Upgrade\r\nKeep-Alive: timeout=5\r\n"
      "Proxy-Connection: keep-alive\r\nProxy-Authorization: Basic abc\r\nUpgrade: websocket\r\nTE: trailers\r\n"
      "x-hop: 1\r\nX-Kept: 2\r\nconnection: Close\r\nClose: 1\r\nContent-Length: 0\r\n\r\n");
  CHECK(out ==
        "POST /v1/messages HTTP/1.1\r\nHost: api.anthropic.com\r\nX-Kept: 2\r\nContent-Length: 0\r\n"
        "Connection: close\r\n\r\n");
  CHECK(count_lines(out, "Connection: close") == 1);
}

TEST_CASE("egress_head: header names keep their case, values are trimmed") {
  std::string out = rewrite_ok("GET / HTTP/1.1\r\nanthropic-VERSION:\t2023-06-01  \r\nX-Empty:\r\nX-Tab: a\tb\r\n\r\n");
  CHECK(count_lines(out, "anthropic-VERSION: 2023-06-01") == 1);
  CHECK(count_lines(out, "X-Empty: ") == 1);
  CHECK(count_lines(out, "X-Tab: a\tb") == 1);
  CHECK(out.ends_with("\r\n\r\n"));
}

TEST_CASE("egress_head: path_prefix goes in front of the target, query kept") {
  CHECK(lines_of(rewrite_ok("GET /models?limit=5 HTTP/1.1\r\n\r\n", rules("/v1")))[0] == "GET /v1/models?limit=5 HTTP/1.1");
  CHECK(lines_of(rewrite_ok("GET / HTTP/1.0\r\n\r\n", rules("/api/v2")))[0] == "GET /api/v2/ HTTP/1.0");
  CHECK(lines_of(rewrite_ok("DELETE /a/b.c/..d/%2e%2ex?/../ HTTP/1.1\r\n\r\n"))[0] == "DELETE /a/b.c/..d/%2e%2ex?/../ HTTP/1.1");
  // The prefix joined to the target can spell the placeholder: refused, not sent.
  egress_head_rules joined = rules("/v1");
  joined.placeholder = "/v1/abcdefghijklmnop";
  auto out = rewrite_egress_head("GET /abcdefghijklmnop HTTP/1.1\r\n\r\n", joined);
  REQUIRE(!out);
  CHECK(is(out.error(), api_error::egress_refused));
}

TEST_CASE("egress_head: the request says how its body is framed, with the same head") {
  std::string with_length = "POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 1234567\r\n\r\n";
  auto r = rewrite_egress_request(with_length, rules());
  REQUIRE(r);
  CHECK(r->content_length == 1234567u);
  CHECK(r->head == rewrite_ok(with_length));
  auto none = rewrite_egress_request("GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n", rules());
  REQUIRE(none);
  CHECK(none->content_length == 0u);
  auto chunked = rewrite_egress_request("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", rules());
  REQUIRE(chunked);
  CHECK_FALSE(chunked->content_length.has_value());
  CHECK_FALSE(rewrite_egress_request("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n", rules()));
}

TEST_CASE("egress_head: the reader gives the same head and rest wherever the bytes are cut") {
  std::string head = "POST /v1/messages HTTP/1.1\r\nHost: x\r\nx-api-key: " + placeholder + "\r\nContent-Length: 11\r\n\r\n";
  std::string wire = head + "{\"a\":\r\n\r\n1}";
  for (std::size_t cut = 0; cut <= wire.size(); ++cut) {
    egress_head_reader r;
    r.feed(std::string_view(wire).substr(0, cut));
    CHECK(r.feed(std::string_view(wire).substr(cut)) == reader_state::complete);
    CHECK(r.head() == head);
    CHECK(r.rest() == wire.substr(head.size()));
  }
  egress_head_reader bytewise;
  for (char c : wire) bytewise.feed(std::string_view(&c, 1));
  CHECK(bytewise.current() == reader_state::complete);
  CHECK(bytewise.head() == head);
  CHECK(bytewise.rest() == wire.substr(head.size()));
  egress_head_reader waiting;
  CHECK(waiting.feed(std::string_view(wire).substr(0, head.size() - 1)) == reader_state::need_more);
  CHECK(waiting.head().empty());
  CHECK(waiting.rest().empty());
}

TEST_CASE("egress_head: a head longer than the limit is too large, however it is cut") {
  std::string head = "GET / HTTP/1.1\r\nX-A: 1\r\n\r\n";
  for (std::size_t cut = 0; cut <= head.size(); ++cut) {
    egress_head_reader fits(head.size());
    fits.feed(std::string_view(head).substr(0, cut));
    CHECK(fits.feed(head.substr(cut) + "body") == reader_state::complete);
    egress_head_reader over(head.size() - 1);
    over.feed(std::string_view(head).substr(0, cut));
    CHECK(over.feed(std::string_view(head).substr(cut)) == reader_state::too_large);
    CHECK(over.head().empty());
    CHECK(over.feed("more") == reader_state::too_large);
  }
  // A head of bare LF line ends never completes.
  egress_head_reader lf(64);
  CHECK(lf.feed("GET / HTTP/1.1\nX-A: 1\n\n") == reader_state::need_more);
  CHECK(lf.feed(std::string(64, 'x')) == reader_state::too_large);
  // The rewrite holds its own limit.
  egress_head_rules small = rules();
  small.max_head_bytes = head.size() - 1;
  auto out = rewrite_egress_head(head, small);
  REQUIRE(!out);
  CHECK(is(out.error(), api_error::egress_refused));
}

TEST_CASE("egress_head: each smuggling, target and placeholder rule refuses") {
  for (const auto& r : refusals()) {
    auto out = rewrite_egress_head(r.head, rules("/v1"));
    CHECK_MESSAGE(!out, r.rule);
    if (!out) CHECK_MESSAGE(is(out.error(), api_error::egress_refused), r.rule);
  }
  // One header short of the limit passes.
  std::string hundred = "POST / HTTP/1.1\r\n";
  for (int i = 0; i < 100; ++i) hundred += "X-H" + std::to_string(i) + ": v\r\n";
  CHECK(rewrite_egress_head(hundred + "\r\n", rules()).has_value());
  // Chunked alone, Content-Length alone: each passes.
  CHECK(rewrite_egress_head("POST / HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n", rules()).has_value());
  CHECK(rewrite_egress_head("POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n", rules()).has_value());
}

TEST_CASE("egress_head: no error message carries the secret, the placeholder or a header value") {
  for (const auto& r : refusals()) {
    auto out = rewrite_egress_head(r.head, rules());
    REQUIRE_MESSAGE(!out, r.rule);
    const std::string& m = out.error().message;
    CHECK_MESSAGE(m.find(secret) == std::string::npos, r.rule);
    CHECK_MESSAGE(m.find(placeholder) == std::string::npos, r.rule);
    CHECK_MESSAGE(m.find("evil") == std::string::npos, r.rule);
    CHECK_MESSAGE(m.find("admin") == std::string::npos, r.rule);
    CHECK(!m.empty());
  }
}

TEST_CASE("egress_head: malformed rules are the server's configuration error, their values unnamed") {
  std::vector<egress_head_rules> bad;
  auto with = [&](auto change) {
    egress_head_rules r = rules();
    change(r);
    bad.push_back(r);
  };
  with([](egress_head_rules& r) { r.placeholder = "short-ph"; });
  with([](egress_head_rules& r) { r.secret = ""; });
  with([](egress_head_rules& r) { r.secret = "sk-real\r\nX-Injected: 1"; });
  with([](egress_head_rules& r) { r.secret = "sk real"; });
  with([](egress_head_rules& r) { r.secret = "x" + placeholder; });
  with([](egress_head_rules& r) { r.upstream_host = ""; });
  with([](egress_head_rules& r) { r.upstream_host = "api.example\r\nX: 1"; });
  with([](egress_head_rules& r) { r.upstream_host = "api.example/v1"; });
  with([](egress_head_rules& r) { r.path_prefix = "v1"; });
  with([](egress_head_rules& r) { r.path_prefix = "/v1/"; });
  with([](egress_head_rules& r) { r.path_prefix = "/"; });
  with([](egress_head_rules& r) { r.path_prefix = "/v1?x=1"; });
  with([](egress_head_rules& r) { r.path_prefix = "/v1/.."; });
  with([](egress_head_rules& r) { r.path_prefix = "/a b"; });
  with([](egress_head_rules& r) { r.path_prefix = "//evil.example"; });
  with([](egress_head_rules& r) { r.path_prefix = "/v1/./x"; });
  for (const auto& r : bad) {
    auto out = rewrite_egress_head("GET / HTTP/1.1\r\n\r\n", r);
    REQUIRE(!out);
    CHECK(is(out.error(), api_error::invalid_config));
    CHECK(out.error().message.find(r.secret.empty() ? "\x01" : r.secret) == std::string::npos);
    CHECK(out.error().message.find(placeholder) == std::string::npos);
  }
}

}  // namespace egress_head_test
