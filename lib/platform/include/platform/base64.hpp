#pragma once
// RFC 4648 base64: the standard alphabet, padded, is how binary travels in JSON and in text
// columns (preview builds between worker, web and database); the URL alphabet without padding
// is how JWTs carry their parts (identity tokens).
#include <optional>
#include <string>
#include <string_view>

namespace platform {

std::string base64_encode(std::string_view bytes);
// nullopt for anything that is not canonical padded base64 (whitespace included).
std::optional<std::string> base64_decode(std::string_view text);

std::string base64url_encode(std::string_view bytes);  // "-" and "_", no "="
// nullopt for anything that is not canonical unpadded base64url.
std::optional<std::string> base64url_decode(std::string_view text);

}  // namespace platform
