#pragma once
// Expected failures of the core travel as values (tl::expected), never as exceptions.
#include <string>
#include <vector>

#include <tl/expected.hpp>

namespace platform {

// A failure with a stable snake_case code (machine use) and a message (human use).
// Messages never carry secret values.
struct error {
  std::string code;
  std::string message;
};

template <class T>
using result = tl::expected<T, error>;

// A failure whose code arrived as text from a peer (a worker's error body, another `error`),
// passed on as it came. A failure of one's own names its row: fail(<row>, ...) in
// platform/api_error.hpp, so that the compiler checks the code is one of the closed set.
inline tl::unexpected<error> fail_relayed(std::string code, std::string message) {
  return tl::unexpected<error>(error{std::move(code), std::move(message)});
}

// One rule broken by a document, located by a JSON path such as
// `agents[1].tools[0].endpoint.url`, with a stable code and a fix-it message.
struct violation {
  std::string path;
  std::string code;
  std::string message;
};

using violations = std::vector<violation>;

// `{"ok":bool,"violations":[{"path","code","message"}]}`, the report shape of every validator.
std::string violations_to_json(const violations& v);

}  // namespace platform
