#include "platform/text_diff.hpp"

#include <algorithm>
#include <vector>

namespace platform {

namespace {

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    out.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

enum class op : unsigned char { keep, del, add };

struct edit {
  op kind;
  std::size_t old_line;  // 0-based index into the old lines (keep, del)
  std::size_t new_line;  // into the new lines (keep, add)
};

// The edit script of the middle part by a longest common subsequence table, read back from
// the start so deletions come before additions within a change, as diff prints them.
bool middle_script(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b, std::size_t a0,
                   std::size_t a1, std::size_t b0, std::size_t b1, std::size_t max_cells, std::vector<edit>& out) {
  const std::size_t n = a1 - a0, m = b1 - b0;
  if (n != 0 && m != 0 && (n + 1) > max_cells / (m + 1)) return false;
  // lcs[i][j]: the LCS length of a[a0+i..a1) and b[b0+j..b1).
  std::vector<std::uint32_t> lcs((n + 1) * (m + 1), 0);
  auto at = [&](std::size_t i, std::size_t j) -> std::uint32_t& { return lcs[i * (m + 1) + j]; };
  for (std::size_t i = n; i-- > 0;) {
    for (std::size_t j = m; j-- > 0;) {
      at(i, j) = a[a0 + i] == b[b0 + j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
    }
  }
  std::size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[a0 + i] == b[b0 + j]) {
      out.push_back({op::keep, a0 + i, b0 + j});
      ++i, ++j;
    } else if (i < n && (j == m || at(i + 1, j) >= at(i, j + 1))) {
      out.push_back({op::del, a0 + i, b0 + j});
      ++i;
    } else {
      out.push_back({op::add, a0 + i, b0 + j});
      ++j;
    }
  }
  return true;
}

void append_range(std::string& out, std::size_t start, std::size_t count) {
  // diff -u: a one-line range is just its start; an empty range names the line before it.
  out += std::to_string(count == 0 ? start : start + 1);
  if (count != 1) out += "," + std::to_string(count);
}

}  // namespace

text_diff unified_diff(std::string_view before, std::string_view after, std::size_t context, std::size_t max_cells) {
  text_diff d;
  if (before == after) return d;
  auto a = lines_of(before);
  auto b = lines_of(after);
  std::size_t prefix = 0;
  while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) ++prefix;
  std::size_t suffix = 0;
  while (suffix < a.size() - prefix && suffix < b.size() - prefix && a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix]) ++suffix;
  std::vector<edit> script;
  for (std::size_t k = 0; k < prefix; ++k) script.push_back({op::keep, k, k});
  if (!middle_script(a, b, prefix, a.size() - suffix, prefix, b.size() - suffix, max_cells, script)) {
    d.too_large = true;
    return d;
  }
  for (std::size_t k = suffix; k-- > 0;) script.push_back({op::keep, a.size() - 1 - k, b.size() - 1 - k});

  // Hunks: each change with `context` unchanged lines around it; changes closer than twice
  // that share one hunk.
  std::size_t k = 0;
  while (k < script.size()) {
    while (k < script.size() && script[k].kind == op::keep) ++k;
    if (k == script.size()) break;
    std::size_t start = k >= context ? k - context : 0;
    std::size_t end = k;  // one past the hunk's last line
    for (;;) {
      while (end < script.size() && script[end].kind != op::keep) ++end;
      std::size_t next = end;
      while (next < script.size() && script[next].kind == op::keep && next - end < 2 * context + 1) ++next;
      if (next < script.size() && script[next].kind != op::keep) {
        end = next;
        continue;
      }
      end = std::min(script.size(), end + context);
      break;
    }
    std::size_t old_count = 0, new_count = 0;
    for (std::size_t x = start; x < end; ++x) {
      if (script[x].kind != op::add) ++old_count;
      if (script[x].kind != op::del) ++new_count;
    }
    d.hunks += "@@ -";
    append_range(d.hunks, script[start].old_line, old_count);
    d.hunks += " +";
    append_range(d.hunks, script[start].new_line, new_count);
    d.hunks += " @@\n";
    for (std::size_t x = start; x < end; ++x) {
      const edit& e = script[x];
      if (e.kind == op::keep) d.hunks += ' ';
      if (e.kind == op::del) d.hunks += '-', ++d.deletions;
      if (e.kind == op::add) d.hunks += '+', ++d.additions;
      d.hunks += e.kind == op::add ? b[e.new_line] : a[e.old_line];
      d.hunks += '\n';
    }
    k = end;
  }
  return d;
}

}  // namespace platform
