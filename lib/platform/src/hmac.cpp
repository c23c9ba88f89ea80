#include "platform/hmac.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>

namespace platform {

std::string hmac_sha256_hex(std::string_view key, std::string_view data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()), data.size(),
       mac, &len);
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(len * 2);
  for (unsigned i = 0; i < len; ++i) {
    out += digits[mac[i] >> 4];
    out += digits[mac[i] & 15];
  }
  return out;
}

}  // namespace platform
