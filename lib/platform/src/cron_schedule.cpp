// Cron expressions and their next firing in a zone.
#include "platform/cron_schedule.hpp"

#include <array>
#include <charconv>
#include <vector>

#include "platform/api_error.hpp"

namespace platform {
namespace {

struct field_spec {
  const char* name;
  int lo;
  int hi;
  const char* const* names;  // JAN.. or SUN.., indexed from `lo` (nullptr: numbers only)
};

constexpr const char* month_names[] = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
constexpr const char* weekday_names[] = {"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"};

constexpr std::array<field_spec, 5> fields{{
    {"minute", 0, 59, nullptr},
    {"hour", 0, 23, nullptr},
    {"day of month", 1, 31, nullptr},
    {"month", 1, 12, month_names},
    {"day of week", 0, 7, weekday_names},
}};

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return out;
}

result<int> value_of(std::string_view token, const field_spec& f) {
  if (f.names != nullptr && token.size() == 3) {
    std::string u = upper(token);
    int count = f.hi - f.lo + 1 - (f.names == weekday_names ? 1 : 0);  // 7 has no name of its own
    for (int i = 0; i < count; ++i) {
      if (u == f.names[i]) return f.lo + i;
    }
  }
  int n = 0;
  auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), n);
  if (ec != std::errc() || end != token.data() + token.size() || token.empty()) {
    return fail(api_error::invalid_cron, std::string("the ") + f.name + " field has \"" + std::string(token) +
                                             "\", which is not a number" + (f.names ? " or a name such as " + std::string(f.names[0]) : ""));
  }
  if (n < f.lo || n > f.hi) {
    return fail(api_error::invalid_cron, std::string("the ") + f.name + " field has " + std::to_string(n) + ", outside " +
                                             std::to_string(f.lo) + "-" + std::to_string(f.hi));
  }
  return n;
}

// One field into its set of values (bit i = value i).
result<std::vector<bool>> read_field(std::string_view text, const field_spec& f) {
  std::vector<bool> set(static_cast<std::size_t>(f.hi) + 1, false);
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    std::string_view part = text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (part.empty()) return fail(api_error::invalid_cron, std::string("the ") + f.name + " field has an empty list entry");
    int step = 1;
    if (auto slash = part.find('/'); slash != std::string_view::npos) {
      std::string_view s = part.substr(slash + 1);
      auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), step);
      if (ec != std::errc() || end != s.data() + s.size() || s.empty() || step < 1 || step > f.hi + 1) {
        return fail(api_error::invalid_cron, std::string("the ") + f.name + " field has the step \"" + std::string(s) +
                                                 "\": write a whole number from 1 to " + std::to_string(f.hi + 1));
      }
      part = part.substr(0, slash);
    }
    int lo = f.lo;
    int hi = f.hi;
    if (part != "*") {
      auto dash = part.find('-');
      auto a = value_of(part.substr(0, dash), f);
      if (!a) return tl::unexpected(a.error());
      lo = hi = *a;
      if (dash != std::string_view::npos) {
        auto b = value_of(part.substr(dash + 1), f);
        if (!b) return tl::unexpected(b.error());
        hi = *b;
        if (hi < lo) {
          return fail(api_error::invalid_cron, std::string("the ") + f.name + " field has the range " + std::string(part) +
                                                   ", which runs backwards");
        }
      } else if (step > 1) {
        hi = f.hi;  // "5/15": from 5 on, every 15
      }
    }
    for (int v = lo; v <= hi; v += step) set[static_cast<std::size_t>(v)] = true;
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return set;
}

// ---- the calendar (proleptic Gregorian, days since 1970-01-01)

bool leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

unsigned days_in(int y, unsigned m) {
  static constexpr unsigned n[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && leap(y) ? 29 : n[m - 1];
}

bool day_matches(const cron_schedule& s, std::int64_t day) {
  civil_date d = civil_of(day);
  if (!s.months[d.month]) return false;
  bool dom = s.days[d.day];
  bool dow = s.weekdays[weekday_of(day)];
  if (s.any_day && s.any_weekday) return true;
  if (s.any_day) return dow;
  if (s.any_weekday) return dom;
  return dom || dow;
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// The first instant whose local time is `local` (seconds), or, when the clock skips it, the
// instant the skip ends. Offsets stay within a day of UTC, and change at most once near a
// given local time.
std::int64_t instant_of(std::int64_t local, const zone_rules& z) {
  const std::int64_t before = z.offset_at(local - 86400);
  const std::int64_t after = z.offset_at(local + 86400);
  std::optional<std::int64_t> best;
  for (std::int64_t off : {before, after, z.offset_at(local - before), z.offset_at(local - after)}) {
    std::int64_t u = local - off;
    if (u + z.offset_at(u) == local && (!best || u < *best)) best = u;
  }
  if (best) return *best;
  // A gap: find the transition between the two candidate instants (the first with the later offset).
  std::int64_t lo = local - std::max(before, after);
  std::int64_t hi = local - std::min(before, after);
  const std::int64_t off_lo = z.offset_at(lo);
  while (hi - lo > 1) {
    std::int64_t mid = lo + (hi - lo) / 2;
    (z.offset_at(mid) == off_lo ? lo : hi) = mid;
  }
  return hi;
}

}  // namespace

civil_date civil_of(std::int64_t days) {
  // Eras of 400 years (146097 days) from 0000-03-01, so the leap day ends each year.
  const std::int64_t z = days + 719468;
  const std::int64_t era = floor_div(z, 146097);
  const std::int64_t doe = z - era * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  const unsigned d = static_cast<unsigned>(doy - (153 * mp + 2) / 5 + 1);
  const unsigned m = static_cast<unsigned>(mp < 10 ? mp + 3 : mp - 9);
  return {static_cast<int>(yoe + era * 400 + (m <= 2 ? 1 : 0)), m, d};
}

std::int64_t days_of(const civil_date& c) {
  const std::int64_t y = c.year - (c.month <= 2 ? 1 : 0);
  const std::int64_t era = floor_div(y, 400);
  const std::int64_t yoe = y - era * 400;
  const std::int64_t mp = c.month > 2 ? c.month - 3 : c.month + 9;
  const std::int64_t doy = (153 * mp + 2) / 5 + c.day - 1;
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

unsigned weekday_of(std::int64_t days) { return static_cast<unsigned>(((days % 7) + 11) % 7); }

result<cron_schedule> parse_cron(std::string_view expression) {
  std::vector<std::string_view> parts;
  std::size_t i = 0;
  while (i < expression.size()) {
    while (i < expression.size() && (expression[i] == ' ' || expression[i] == '\t')) ++i;
    std::size_t start = i;
    while (i < expression.size() && expression[i] != ' ' && expression[i] != '\t') ++i;
    if (i > start) parts.push_back(expression.substr(start, i - start));
  }
  if (parts.size() != 5) {
    return fail(api_error::invalid_cron, "a schedule has five fields (minute hour day-of-month month day-of-week), e.g. \"0 8 * * 1-5\"; this one has " +
                                             std::to_string(parts.size()));
  }
  cron_schedule s;
  std::vector<bool> sets[5];
  for (std::size_t f = 0; f < 5; ++f) {
    auto set = read_field(parts[f], fields[f]);
    if (!set) return tl::unexpected(set.error());
    sets[f] = std::move(*set);
  }
  for (int v = 0; v <= 59; ++v) s.minutes[v] = sets[0][v];
  for (int v = 0; v <= 23; ++v) s.hours[v] = sets[1][v];
  for (int v = 1; v <= 31; ++v) s.days[v] = sets[2][v];
  for (int v = 1; v <= 12; ++v) s.months[v] = sets[3][v];
  for (int v = 0; v <= 7; ++v) {
    if (sets[4][v]) s.weekdays[v % 7] = true;
  }
  s.any_day = parts[2] == "*";
  s.any_weekday = parts[4] == "*";
  for (std::size_t f = 0; f < 5; ++f) s.text += (f ? " " : "") + std::string(parts[f]);
  // A day that no month has (31 April only, 30 February) never fires: say so now.
  bool some_day = false;
  for (unsigned m = 1; m <= 12 && !some_day; ++m) {
    if (!s.months[m]) continue;
    for (unsigned d = 1; d <= days_in(2024, m) && !some_day; ++d) some_day = s.days[d];
  }
  if (!some_day && s.any_weekday) {
    return fail(api_error::invalid_cron, "the schedule \"" + s.text + "\" names a day its months never have");
  }
  return s;
}

std::optional<std::int64_t> next_fire(const cron_schedule& s, const zone_rules& zone, std::int64_t after_ms) {
  const std::int64_t after = floor_div(after_ms, 1000);
  const std::int64_t local_after = after + zone.offset_at(after);
  // From the day before (a fold or a large offset may put the next firing there) on.
  std::int64_t day = floor_div(local_after, 86400) - 1;
  const std::int64_t last = day + 5 * 366;
  for (; day <= last; ++day) {
    if (!day_matches(s, day)) continue;
    for (int h = 0; h < 24; ++h) {
      if (!s.hours[h]) continue;
      for (int m = 0; m < 60; ++m) {
        if (!s.minutes[m]) continue;
        std::int64_t u = instant_of(day * 86400 + h * 3600 + m * 60, zone);
        if (u > after) return u * 1000;
      }
    }
  }
  return std::nullopt;
}

}  // namespace platform
