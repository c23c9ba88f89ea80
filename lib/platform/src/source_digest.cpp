#include "platform/source_digest.hpp"

#include <openssl/evp.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string_view>

namespace platform {

namespace {

std::string prefixed_hex(const unsigned char* digest, unsigned int size) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out = "sha256:";
  for (unsigned int i = 0; i < size; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 15];
  }
  return out;
}

}  // namespace

std::string sha256_digest(std::string_view bytes) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int size = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest.data(), &size, EVP_sha256(), nullptr) != 1) return {};
  return prefixed_hex(digest.data(), size);
}

std::string source_digest(const std::map<std::string, std::string>& files) {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) return {};
  auto part = [&](std::string_view s) {
    std::array<unsigned char, 8> len{};
    auto n = static_cast<std::uint64_t>(s.size());
    for (std::size_t i = 0; i < len.size(); ++i) len[i] = static_cast<unsigned char>(n >> (8 * (7 - i)));
    EVP_DigestUpdate(ctx.get(), len.data(), len.size());
    EVP_DigestUpdate(ctx.get(), s.data(), s.size());
  };
  for (const auto& [path, content] : files) {
    part(path);
    part(content);
  }
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int size = 0;
  if (EVP_DigestFinal_ex(ctx.get(), digest.data(), &size) != 1) return {};
  return prefixed_hex(digest.data(), size);
}

workspace_verdict check_workspace(bool has_draft, bool has_workspace, std::string_view draft_digest,
                                  const std::optional<std::string>& workspace_digest) {
  if (has_draft && !has_workspace) return workspace_verdict::missing;
  if (has_workspace && !draft_digest.empty() && workspace_digest && *workspace_digest != draft_digest) {
    return workspace_verdict::stale;
  }
  return workspace_verdict::ready;
}

}  // namespace platform
