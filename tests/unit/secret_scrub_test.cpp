// Secret values scrubbed from provider answers in every form a provider echoes them in
// (platform/secret_scrub.hpp): what a reader of the answer would decode, not only raw bytes.
#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/base64.hpp"
#include "platform/http_action_result.hpp"
#include "platform/secret_scrub.hpp"

namespace secret_scrub_test {

using namespace platform;
using nlohmann::json;

namespace {

const std::string secret = "canary-static-9f3b2c71d0e4";

std::string scrub(const std::string& text, const std::vector<std::string>& secrets = {secret}) {
  return scrub_secrets(text, secrets);
}

// Every byte as `prefix` and two hex digits, in the given case.
std::string hex_each(std::string_view s, std::string_view prefix, bool upper) {
  const char* hex = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out += prefix;
    out += hex[c >> 4];
    out += hex[c & 15];
  }
  return out;
}

// Every character as \u00XX (ASCII values) and as %XX.
std::string json_escaped(std::string_view s, bool upper = false) { return hex_each(s, "\\u00", upper); }
std::string percent_encoded(std::string_view s, bool upper = true) { return hex_each(s, "%", upper); }

// What the platform hands on: a reply's JSON parsed and dumped again decodes every escape.
std::string decoded(const std::string& json_text) { return json::parse(json_text).dump(); }

}  // namespace

TEST_CASE("plain echoes, overlapping and repeated ones, and values too short to scrub") {
  CHECK(scrub("key " + secret + " rejected") == "key [REDACTED] rejected");
  CHECK(scrub(secret + secret) == "[REDACTED][REDACTED]");
  CHECK(scrub_secrets("k1234 and k12345", {"k1234", "k12345"}) == "[REDACTED] and [REDACTED]");
  CHECK(scrub_secrets("aaaaaa", {"aaaa"}) == "[REDACTED]");  // overlapping occurrences are one
  CHECK(scrub_secrets("abc stays", {"abc"}) == "abc stays");
  CHECK(scrub("nothing to see") == "nothing to see");
  CHECK(scrub_secrets("", {secret}).empty());
}

TEST_CASE("JSON-escaped echoes: every character, either hex case, mixed with plain characters") {
  for (bool upper : {false, true}) {
    std::string body = R"({"echo":")" + json_escaped(secret, upper) + R"("})";
    std::string out = scrub(body);
    CHECK(out == R"({"echo":"[REDACTED]"})");
    CHECK(decoded(out).find(secret) == std::string::npos);
  }
  // One escaped character in the middle, the rest plain; and every other one escaped.
  std::string mixed = "canary-st" + json_escaped("a") + "tic-9f3b2c71d0e4";
  CHECK(scrub(R"({"e":")" + mixed + R"("})") == R"({"e":"[REDACTED]"})");
  std::string alternate;
  for (std::size_t i = 0; i < secret.size(); ++i) alternate += i % 2 ? json_escaped(secret.substr(i, 1)) : secret.substr(i, 1);
  CHECK(scrub(R"(["x",")" + alternate + R"("])") == R"(["x","[REDACTED]"])");
  // The issue's case: the app would have got the secret in clear from the parsed reply.
  http_response echo{200, "OK", {{"Content-Type", "application/json"}}, R"({"echo":")" + json_escaped(secret) + R"("})"};
  auto r = http_action_result(echo, "https://api.example", {secret});
  REQUIRE(r.data_json);
  CHECK(r.to_json().find(secret) == std::string::npos);
  CHECK(json::parse(r.to_json())["data"]["echo"] == "[REDACTED]");
}

TEST_CASE("JSON escapes of characters beyond ASCII: two-byte, three-byte and surrogate pairs") {
  const std::string unicode = "sk-caf\xC3\xA9-\xE2\x82\xAC-\xF0\x9F\x98\x80-key";  // é, €, 😀
  for (const char* form : {R"(sk-caf\u00e9-\u20ac-\ud83d\ude00-key)", R"(sk-caf\u00E9-\u20AC-\uD83D\uDE00-key)",
                           "sk-caf\xC3\xA9-\\u20ac-\xF0\x9F\x98\x80-key"}) {
    std::string body = std::string(R"({"v":")") + form + R"("})";
    CHECK_MESSAGE(scrub(body, {unicode}) == R"({"v":"[REDACTED]"})", form);
  }
  // A high surrogate alone, or with the wrong partner, is not the character.
  CHECK(scrub(R"({"v":"sk-caf\u00e9-\u20ac-\ud83d-key"})", {unicode}) == R"({"v":"sk-caf\u00e9-\u20ac-\ud83d-key"})");
}

TEST_CASE("short escapes: quotes, backslashes and slashes in the value") {
  const std::string odd = R"(p@ss"w\rd/1)";
  CHECK(scrub(R"({"v":"p@ss\"w\\rd\/1"})", {odd}) == R"({"v":"[REDACTED]"})");
  CHECK(scrub(R"({"v":"p@ss\"w\\rd/1"})", {odd}) == R"({"v":"[REDACTED]"})");
  const std::string lines = "line1\nline2\ttab";
  CHECK(scrub(R"({"v":"line1\nline2\ttab"})", {lines}) == R"({"v":"[REDACTED]"})");
}

TEST_CASE("a JSON text inside a JSON string: escaped twice") {
  // {"detail": "{\"key\":\"<secret with \\u escapes>\"}"}: decoding once gives a JSON text
  // whose own escapes hold the secret.
  std::string inner = R"({"key":")" + json_escaped(secret) + R"("})";
  std::string body = json({{"detail", inner}}).dump();
  REQUIRE(body.find(R"(\\u0063)") != std::string::npos);
  std::string out = scrub(body);
  CHECK(out.find("REDACTED") != std::string::npos);
  std::string once = json::parse(out)["detail"];
  CHECK(decoded(once).find(secret) == std::string::npos);
  // A secret with a quote, escaped twice: \\\" in the raw text.
  const std::string odd = R"(ab"cdef)";
  std::string twice = json({{"detail", json({{"k", odd}}).dump()}}).dump();
  CHECK(scrub(twice, {odd}).find("ab") == std::string::npos);
}

TEST_CASE("percent-encoded echoes: upper and lower hex, + for space, mixed with plain characters") {
  const std::string spaced = "sk live/abc+def=";
  CHECK(scrub("https://x.example/cb?key=" + percent_encoded(spaced), {spaced}) == "https://x.example/cb?key=[REDACTED]");
  CHECK(scrub("?key=" + percent_encoded(spaced, false), {spaced}) == "?key=[REDACTED]");
  CHECK(scrub("?key=sk+live%2Fabc%2bdef%3D&x=1", {spaced}) == "?key=[REDACTED]&x=1");
  CHECK(scrub("?key=sk%20live/abc%2Bdef=", {spaced}) == "?key=[REDACTED]");
  CHECK(scrub("a%ZZb%", {spaced}) == "a%ZZb%");  // malformed escapes are left alone
}

TEST_CASE("HTML character references: numeric in both bases and the XML names") {
  const std::string amp = "tok&en<42>";
  CHECK(scrub("<p>invalid key tok&amp;en&lt;42&gt;</p>", {amp}) == "<p>invalid key [REDACTED]</p>");
  std::string numeric;
  for (unsigned char c : secret) numeric += "&#" + std::to_string(c) + ";";
  CHECK(scrub("<b>" + numeric + "</b>") == "<b>[REDACTED]</b>");
  CHECK(scrub("<b>&#x63;&#X61;nary-static-9f3b2c71d0e4</b>") == "<b>[REDACTED]</b>");
}

TEST_CASE("two encodings one inside the other") {
  // A percent-encoded value in a JSON body, its % written as \u0025.
  std::string pct = percent_encoded(secret);
  std::string escaped_pct;
  for (char c : pct) escaped_pct += c == '%' ? std::string(R"(\u0025)") : std::string(1, c);
  CHECK(scrub(R"({"url":"?k=)" + escaped_pct + R"("})") == R"({"url":"?k=[REDACTED]"})");
  // JSON with escapes inside a URL's query, its backslashes percent-encoded too.
  std::string escapes_in_url;
  for (char c : json_escaped(secret)) escapes_in_url += c == '\\' ? std::string("%5C") : std::string(1, c);
  CHECK(scrub("?q=%7B%22k%22%3A%22" + escapes_in_url + "%22%7D") == "?q=%7B%22k%22%3A%22[REDACTED]%22%7D");
  // An HTML page quoting a JSON error, its backslashes as references.
  std::string escapes_in_html;
  for (char c : json_escaped(secret)) escapes_in_html += c == '\\' ? std::string("&#92;") : std::string(1, c);
  CHECK(scrub("<pre>{&quot;k&quot;:&quot;" + escapes_in_html + "&quot;}</pre>") ==
        "<pre>{&quot;k&quot;:&quot;[REDACTED]&quot;}</pre>");
}

TEST_CASE("base64 and base64url of the value, alone and inside longer encodings at each alignment") {
  const std::string b64 = base64_encode(secret);
  CHECK(scrub("Authorization echoed: " + b64) == "Authorization echoed: [REDACTED]");
  CHECK(scrub("unpadded " + b64.substr(0, b64.find('='))) == "unpadded [REDACTED]");
  // Inside a longer blob, at byte offsets 0, 1 and 2 of a 3-byte group, with text after it:
  // the characters that carry the secret's bits alone are gone.
  for (std::size_t offset = 0; offset < 6; ++offset) {
    for (bool url : {false, true}) {
      std::string blob = base64_encode(std::string(offset, 'u') + ":" + secret + ":trailing-bytes");
      if (url) {
        for (char& c : blob) c = c == '+' ? '-' : c == '/' ? '_' : c;
      }
      std::string out = scrub("blob=" + blob);
      INFO("offset ", offset, " url ", url, " ", out);
      CHECK(out.find("[REDACTED]") != std::string::npos);
      // What is left on either side decodes to at most the secret's first or last byte.
      std::size_t at = out.find("[REDACTED]");
      std::string before = out.substr(5, at - 5);
      CHECK(before.size() <= (offset + 1) * 4 / 3 + 2);
    }
  }
  // A Basic header's value: base64("user:secret").
  CHECK(scrub("Basic " + base64_encode("api-user:" + secret)).find(base64_encode(secret).substr(2, 8)) == std::string::npos);
  // Standard base64 whose / is escaped in a JSON string.
  std::string slashy = "ab?>?>?>" + secret;  // bytes that encode to / and +
  std::string enc = base64_encode(slashy);
  REQUIRE(enc.find('/') != std::string::npos);
  std::string in_json;
  for (char c : enc) in_json += c == '/' ? std::string(R"(\/)") : std::string(1, c);
  CHECK(scrub(R"({"b":")" + in_json + R"("})", {slashy}) == R"({"b":"[REDACTED]"})");
}

TEST_CASE("ordinary text and malformed escapes pass through unchanged") {
  for (const char* text : {R"({"a":"\u0041\u00e9\ud83d\ude00 \" \\ \/"})", R"(\u12)", R"(\ud800)", R"(trailing \)",
                           "%", "%4", "&#;", "&#x;", "&unknown;", "&#99999999999;", "+plus+", "\\\\\\"}) {
    CHECK_MESSAGE(scrub(text) == text, text);
  }
}

TEST_CASE("large answers full of escapes are scrubbed in bounded time") {
  std::string text;
  while (text.size() < (2u << 20)) text += R"(\u0041%41&amp;+\\ plain words and AAAA/BBBB+CCCC== )";
  text += json_escaped(secret);
  auto began = std::chrono::steady_clock::now();
  std::string out = scrub(text);
  auto took = std::chrono::steady_clock::now() - began;
  CHECK(out.ends_with("[REDACTED]"));
  CHECK(took < std::chrono::seconds(3));
}

}  // namespace secret_scrub_test
