#pragma once
// HMAC-SHA256 as lowercase hex: what run capabilities, routine webhook signatures and their
// derived secrets are made of.
#include <string>
#include <string_view>

namespace platform {

std::string hmac_sha256_hex(std::string_view key, std::string_view data);

}  // namespace platform
