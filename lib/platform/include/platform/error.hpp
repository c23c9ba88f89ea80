#pragma once
// Expected failures of the core travel as values (tl::expected), never as exceptions.
#include <string>
#include <vector>

#include <tl/expected.hpp>

namespace platform {

enum class api_error : unsigned char;  // the closed set of codes: platform/api_error.hpp

// A failure with a stable code of the closed set (machine use) and a message (human use).
// Messages never carry secret values. Made by fail(<row>, ...) or error_of (api_error.hpp), so
// the compiler checks the code; its wire name is code_name(e).
struct error {
  api_error code;
  std::string message;
  // A peer's code passed on as it came when it is not one of the set (`code` is then
  // api_error::peer_failure): a worker's refusal without a code of its own, worker_http_<status>.
  std::string relayed = {};
};

template <class T>
using result = tl::expected<T, error>;

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

// The code set travels with the error: every user of one compares and names codes.
#include "platform/api_error.hpp"  // IWYU pragma: export
