#pragma once
// A closed set of codes as one table: an enum, and per value a row of what goes with it (its
// wire name in `code`, a status, a category, a line for the docs). Every set of the platform
// (api_error, the validators' violation codes, the Integration tool result's errorCode) is one
// of these, so that a code is a value the compiler checks and its text is written once.
//
// The table is built at compile time from rows written as {enum value, info}: a row out of
// enum order, or a value without a row, does not compile.
#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace platform {

template <class Enum, class Info>
struct code_row {
  Enum value;
  Info info;
};

template <class Enum, class Info, std::size_t N>
class code_table {
 public:
  // `last` is the enum's last value: the rows must be every value from 0 to it, in order.
  consteval code_table(const code_row<Enum, Info> (&rows)[N], Enum last) {
    if (static_cast<std::size_t>(last) + 1 != N) throw "a code table must have a row for every value of its enum";
    for (std::size_t i = 0; i < N; ++i) {
      if (static_cast<std::size_t>(rows[i].value) != i) throw "a code table's rows must be in enum order";
      infos_[i] = rows[i].info;
    }
  }

  constexpr const Info& operator[](Enum e) const { return infos_[static_cast<std::size_t>(e)]; }
  constexpr std::string_view name(Enum e) const { return (*this)[e].code; }

  // The value whose wire name is `code`, if it is one of the set.
  constexpr std::optional<Enum> named(std::string_view code) const {
    for (std::size_t i = 0; i < N; ++i) {
      if (infos_[i].code == code) return static_cast<Enum>(i);
    }
    return std::nullopt;
  }

  constexpr std::span<const Info> rows() const { return infos_; }

 private:
  std::array<Info, N> infos_{};
};

}  // namespace platform
