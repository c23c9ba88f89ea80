#pragma once
// RFC 4648 base64 (standard alphabet, padded): how binary travels in JSON and in text columns
// (preview builds between worker, web and database).
#include <optional>
#include <string>
#include <string_view>

namespace platform {

std::string base64_encode(std::string_view bytes);
// nullopt for anything that is not canonical padded base64 (whitespace included).
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace platform
