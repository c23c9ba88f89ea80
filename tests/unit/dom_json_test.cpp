// dom_json (lib/platform/src/dom_json.hpp) prints every DOM value exactly as simdjson::minify
// does: the fixtures' lines, and generated values with every kind of number, escape and depth.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <simdjson.h>

#include "dom_json.hpp"

namespace dom_json_test {

namespace fs = std::filesystem;

namespace {

// Compares both printers on `text` (and on each of its values); false when it is not JSON.
bool same_as_minify(const std::string& text) {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (parser.parse(text).get(root)) return false;
  CHECK(platform::dom_json::minified(root) == simdjson::minify(root));
  simdjson::dom::object object;
  if (!root.get_object().get(object)) {
    for (auto field : object) CHECK(platform::dom_json::minified(field.value) == simdjson::minify(field.value));
  }
  return true;
}

// A random JSON text that simdjson reads (or mostly does: a few lone surrogates it may refuse).
class generator {
 public:
  explicit generator(unsigned seed) : rng_(seed) {}

  std::string value(int depth) {
    switch (pick(depth < 40 ? 9 : 7)) {
      case 0: return number();
      case 1: return string();
      case 2: return pick(2) ? "true" : "false";
      case 3: return "null";
      case 4: case 5: case 6: return string();
      case 7: {
        std::string a = "[";
        for (int i = 0, n = pick(4); i < n; ++i) a += (i ? "," : "") + value(depth + 1);
        return a + "]";
      }
      default: {
        std::string o = pick(3) ? "{" : "{ ";
        for (int i = 0, n = pick(4); i < n; ++i) o += (i ? "," : "") + string() + (pick(2) ? ":" : " : ") + value(depth + 1);
        return o + "}";
      }
    }
  }

 private:
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  std::string number() {
    static const char* samples[] = {
        "0", "-0", "1", "-1", "0.0", "-0.0", "1.5", "1e3", "1E-3", "2.5e+300", "1e308", "5e-324", "123456789012345678",
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", "18446744073709551615", "0.1", "3.14159265358979",
        "1.7976931348623157e308", "4.9e-324", "100000000000000000000", "12345678901234567890123", "0.000001", "1e21", "1e-7"};
    if (pick(3)) return samples[pick(static_cast<int>(std::size(samples)))];
    std::uniform_real_distribution<double> d(-1e6, 1e6);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*g", 1 + pick(17), d(rng_) * (pick(2) ? 1e-9 : 1e9));
    return buf;
  }

  std::string string() {
    static const char* pieces[] = {"a", "Z", " ", "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t", "\\u0000", "\\u001f",
                                   "\\u007f", "\\u00e9", "\\u2028", "\\ud83d\\ude00", "\\ud800", "é", "日本", "😀", "\x7f", "~"};
    std::string s = "\"";
    for (int i = 0, n = pick(8); i < n; ++i) s += pieces[pick(static_cast<int>(std::size(pieces)))];
    return s + "\"";
  }

  std::mt19937 rng_;
};

}  // namespace

TEST_CASE("the fixtures' lines print as minify prints them") {
  std::size_t lines = 0;
  for (const auto& dir : fs::recursive_directory_iterator(fs::path(PLATFORM_TEST_DATA) / "fixtures")) {
    if (dir.path().extension() != ".jsonl") continue;
    std::ifstream in(dir.path(), std::ios::binary);
    for (std::string line; std::getline(in, line);) lines += same_as_minify(line);
  }
  CHECK(lines > 500);
}

TEST_CASE("generated values print as minify prints them") {
  generator g(17);
  int parsed = 0;
  for (int i = 0; i < 20000; ++i) parsed += same_as_minify(g.value(0));
  CHECK(parsed > 15000);
  std::string deep;
  for (int i = 0; i < 600; ++i) deep += i % 2 ? "{\"k\":" : "[";
  deep += "1";
  for (int i = 599; i >= 0; --i) deep += i % 2 ? "}" : "]";
  CHECK(same_as_minify(deep));
}

}  // namespace dom_json_test
