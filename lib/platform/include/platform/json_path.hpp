#pragma once
// Builds the JSON paths used in violations: `agents[1].tools[0].endpoint.url`.
#include <cstddef>
#include <string>
#include <string_view>

namespace platform {

class json_path {
 public:
  json_path() = default;
  explicit json_path(std::string root) : text_(std::move(root)) {}

  // Keys that are not plain identifiers are written in bracket form: headers["X-Api-Key"].
  [[nodiscard]] json_path key(std::string_view k) const;
  [[nodiscard]] json_path index(std::size_t i) const;
  [[nodiscard]] const std::string& str() const { return text_; }

 private:
  std::string text_;
};

}  // namespace platform
