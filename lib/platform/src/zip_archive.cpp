#include "platform/zip_archive.hpp"

#include <array>

namespace platform {
namespace {

void put16(std::string& out, std::uint32_t v) {
  out.push_back(static_cast<char>(v & 0xff));
  out.push_back(static_cast<char>((v >> 8) & 0xff));
}
void put32(std::string& out, std::uint32_t v) {
  put16(out, v & 0xffff);
  put16(out, v >> 16);
}

// MS-DOS date and time of a UTC instant (zip's timestamps), clamped to 1980..2107.
std::pair<std::uint32_t, std::uint32_t> dos_time(std::int64_t unix_seconds) {
  std::int64_t days = unix_seconds / 86400;
  std::int64_t secs = unix_seconds % 86400;
  if (secs < 0) secs += 86400, --days;
  // Civil date from days since 1970-01-01, by 400-year eras (the proleptic Gregorian calendar).
  days += 719468;
  const std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const std::int64_t doe = days - era * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  const std::int64_t day = doy - (153 * mp + 2) / 5 + 1;
  const std::int64_t month = mp < 10 ? mp + 3 : mp - 9;
  std::int64_t year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  if (year < 1980) return {(0u << 9) | (1u << 5) | 1u, 0};
  if (year > 2107) year = 2107;
  const auto date = static_cast<std::uint32_t>(((year - 1980) << 9) | (month << 5) | day);
  const auto time = static_cast<std::uint32_t>(((secs / 3600) << 11) | (((secs / 60) % 60) << 5) | ((secs % 60) / 2));
  return {date, time};
}

}  // namespace

std::uint32_t crc32_of(std::string_view data) {
  static const auto table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t i = 0; i < 256; ++i) {
      std::uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  std::uint32_t c = 0xffffffffu;
  for (unsigned char b : data) c = table[(c ^ b) & 0xff] ^ (c >> 8);
  return c ^ 0xffffffffu;
}

std::string zip_archive(const std::vector<zip_entry>& entries, std::int64_t unix_seconds, std::string_view root) {
  const auto [date, time] = dos_time(unix_seconds);
  std::string out;
  std::string central;
  for (const auto& e : entries) {
    const std::string name = root.empty() ? e.path : std::string(root) + "/" + e.path;
    const std::uint32_t crc = crc32_of(e.bytes);
    const auto size = static_cast<std::uint32_t>(e.bytes.size());
    const auto offset = static_cast<std::uint32_t>(out.size());
    // Local header: version 2.0, flag 0x0800 (UTF-8 names), stored.
    put32(out, 0x04034b50);
    put16(out, 20), put16(out, 0x0800), put16(out, 0), put16(out, time), put16(out, date);
    put32(out, crc), put32(out, size), put32(out, size);
    put16(out, static_cast<std::uint32_t>(name.size())), put16(out, 0);
    out += name;
    out += e.bytes;
    // Its central directory record: made by Unix (3), regular file 0644.
    put32(central, 0x02014b50);
    put16(central, (3u << 8) | 20), put16(central, 20), put16(central, 0x0800), put16(central, 0);
    put16(central, time), put16(central, date);
    put32(central, crc), put32(central, size), put32(central, size);
    put16(central, static_cast<std::uint32_t>(name.size())), put16(central, 0), put16(central, 0);
    put16(central, 0), put16(central, 0), put32(central, 0100644u << 16), put32(central, offset);
    central += name;
  }
  const auto central_at = static_cast<std::uint32_t>(out.size());
  out += central;
  put32(out, 0x06054b50);
  put16(out, 0), put16(out, 0);
  put16(out, static_cast<std::uint32_t>(entries.size())), put16(out, static_cast<std::uint32_t>(entries.size()));
  put32(out, static_cast<std::uint32_t>(central.size())), put32(out, central_at);
  put16(out, 0);
  return out;
}

}  // namespace platform
