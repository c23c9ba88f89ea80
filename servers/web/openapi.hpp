#pragma once
// The OpenAPI 3.1 document of platform-web, generated from its route table (web_routes.cpp)
// and the closed set of error codes (api_error.cpp): GET /api/openapi.json serves it, and
// docs/http-api.md's route list is rendered from it (tests/js/e2e-openapi.mjs). Pure: rows and
// codes in, a JSON document out, so that a unit test can feed it rows of its own.
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "platform/api_error.hpp"

namespace platform::web {

// How a caller proves who it is, by the row's access kind.
enum class openapi_auth : unsigned char {
  none,          // anyone: no credential asked (a route that signs in itself checks its own)
  identity,      // the session cookie, or the identity token as a bearer token
  internal,      // the internal token (the operator's routes)
  internal_run,  // the internal token and the capability of the run the body names (the worker's)
};

// The body a route takes, for the document.
enum class openapi_body : unsigned char { none, required, optional };

// What one row of a route table says about itself.
struct openapi_route {
  std::string_view method;   // GET, POST, PUT, PATCH, DELETE
  std::string_view path;     // "/a/{x}/b": a {name} segment is an id, [A-Za-z0-9_-]{1,128}
  std::string_view handler;  // the handler's name: the operationId (unique)
  std::string_view tag;      // the area the route belongs to
  std::string_view summary;  // one line: what the route does
  std::string_view caller;   // who may call it, in words
  openapi_auth auth = openapi_auth::none;
  openapi_body body = openapi_body::none;
  std::string_view body_description = {};  // what the body holds; required with a body
};

// A row or a code the document cannot describe: a route without a summary, a tag, a caller or
// a handler name; a body without a description; two rows of one operationId or of one method
// and path; an error code without a meaning. The message names the row.
struct openapi_refusal : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The id pattern of every {name} path parameter (servers::any_id).
inline constexpr std::string_view openapi_id_pattern = "^[A-Za-z0-9_-]{1,128}$";

// The document for `routes`, answered with errors of `codes` (components.schemas.Error);
// info.version is the project's version. Keys keep the table's order. Throws openapi_refusal.
nlohmann::ordered_json openapi_document(std::span<const openapi_route> routes, std::span<const api_error_info> codes);

// platform-web's own rows and its document, built once (web_routes.cpp); the first call throws
// openapi_refusal when the table cannot be described, which register_routes makes a failed
// start.
std::span<const openapi_route> web_openapi_routes();
const std::string& web_openapi_json();

}  // namespace platform::web
