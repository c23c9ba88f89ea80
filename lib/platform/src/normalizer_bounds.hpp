#pragma once
// Bounds the runtime normalizers share with the bridge they feed.
#include <cstddef>

namespace platform::normalizer_bounds {

// A runaway line is skipped instead of growing memory (the bridge's default
// bridge_options::max_line_bytes).
inline constexpr std::size_t max_line_bytes = 64u << 20;
// The bridge accepts content block indexes up to 4096 per message; a normalizer starts the next
// message before that.
inline constexpr int max_block_index = 4000;
// A parser grown by a longer line than this gives its memory back before the next line.
inline constexpr std::size_t kept_parser_capacity = 1u << 20;

}  // namespace platform::normalizer_bounds
