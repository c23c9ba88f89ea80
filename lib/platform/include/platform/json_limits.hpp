#pragma once
// How deep and how large a JSON text may be before anything recursive sees it. nlohmann's
// parser is iterative, but dumping, copying and comparing a value recurse once per level: a
// body of 100,000 `[` (200 KB) overflows a server thread's stack, and a deep value dumped
// with indentation grows with the square of its depth. So every JSON text the servers take
// from outside (request bodies, other servers' replies, runtime output, provider answers,
// values read back from the store) is scanned first: one pass over the bytes, no recursion,
// no allocation. The scan does not validate; the parser that follows does.
#include <cstddef>
#include <string_view>

#include "platform/error.hpp"

namespace platform {

// Request bodies of both servers. UI messages of the AI SDK are 6 to 10 levels deep with
// their parts; 64 leaves room for any metadata, tool input or app data a person writes.
inline constexpr std::size_t body_max_depth = 64;

// The defaults are a request body's: what a person or a model wrote.
struct json_limits {
  std::size_t max_depth = body_max_depth;  // nested arrays and objects; a scalar alone is depth 0
  std::size_t max_bytes = 8u << 20;        // the text's length (PLATFORM_MAX_BODY_BYTES's default)
};

// agents.json, as docs/agents-json.md promises: deeper is `too_deep`.
inline constexpr std::size_t agents_json_max_depth = 100;

// JSON the platform passes along or reads back rather than takes from a person: what it
// stored, what a runtime or the other server produced, what a provider answered. Deep enough
// for all of that (simdjson's DOM parser, which reads runtime output, stops at 1024 levels),
// shallow enough that recursion over it needs a few hundred KiB of stack at most.
inline constexpr json_limits stored_json_limits{.max_depth = 1024, .max_bytes = 256u << 20};

// The deepest nesting in `text`, or an error as soon as a limit is passed: `too_large` when
// `text` is longer than max_bytes, `too_deep` when arrays and objects nest deeper than
// max_depth. Brackets inside strings (escapes included) do not count; a closing bracket
// without an opening one is left for the parser to refuse.
result<std::size_t> check_json_limits(std::string_view text, const json_limits& limits);

// check_json_limits without the reason: what a reader that skips bad input wants.
bool within_json_limits(std::string_view text, const json_limits& limits) noexcept;

// True when brackets nest deeper than `limit` outside strings, whatever the length.
bool nests_deeper_than(std::string_view text, std::size_t limit) noexcept;

}  // namespace platform
