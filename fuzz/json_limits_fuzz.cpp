// The depth and size scan on arbitrary bytes (platform/json_limits.hpp). Contract: never
// crashes; the depth it reports is the parser's own on every text nlohmann accepts (never
// less); a text passes exactly the limits at or above its depth and size; the three entry
// points agree.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <nlohmann/json.hpp>

#include "platform/api_error.hpp"
#include "platform/json_limits.hpp"

namespace {

void check(bool ok) {
  if (!ok) __builtin_trap();
}

// The deepest nesting nlohmann's parser walks through, seen by its SAX events (a parsed value
// may be shallower: a duplicate key drops the earlier value).
struct depth_sax : nlohmann::json_sax<nlohmann::json> {
  std::size_t depth = 0;
  std::size_t deepest = 0;
  bool open() {
    deepest = std::max(deepest, ++depth);
    return true;
  }
  bool close() {
    --depth;
    return true;
  }
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return open(); }
  bool key(string_t&) override { return true; }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const platform::json_limits unlimited{.max_depth = SIZE_MAX, .max_bytes = SIZE_MAX};
  auto full = platform::check_json_limits(text, unlimited);
  check(full.has_value());
  const std::size_t depth = *full;

  // Exactly the limits at or above the text's depth and size pass.
  check(platform::check_json_limits(text, {.max_depth = depth, .max_bytes = size}).value_or(SIZE_MAX) == depth);
  if (depth > 0) {
    auto under = platform::check_json_limits(text, {.max_depth = depth - 1, .max_bytes = size});
    check(!under && under.error().code == platform::api_error::too_deep);
    check(platform::nests_deeper_than(text, depth - 1));
  }
  check(!platform::nests_deeper_than(text, depth));
  if (size > 0) {
    auto small = platform::check_json_limits(text, {.max_depth = SIZE_MAX, .max_bytes = size - 1});
    check(!small && small.error().code == platform::api_error::too_large);
  }
  // A limit taken from the input: the shorthand agrees with the full answer.
  const std::size_t limit = size > 0 ? data[0] % 8 : 0;
  const platform::json_limits some{.max_depth = limit, .max_bytes = size};
  check(platform::within_json_limits(text, some) == platform::check_json_limits(text, some).has_value());

  // Differential: on what the parser accepts, the scan's depth is the parser's. nlohmann stops
  // at a NUL byte (its end of input), the scan does not: past one the scan can only say more.
  depth_sax sax;
  if (nlohmann::json::sax_parse(text, &sax)) {
    check(sax.deepest <= depth);
    check(platform::check_json_limits(text.substr(0, text.find('\0')), unlimited).value_or(SIZE_MAX) == sax.deepest);
  }
  return 0;
}
