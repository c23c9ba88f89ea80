#include "platform/store.hpp"

namespace platform {

std::string_view to_string(workspace_role r) {
  switch (r) {
    case workspace_role::viewer: return "viewer";
    case workspace_role::collaborator: return "collaborator";
    case workspace_role::admin: return "admin";
    case workspace_role::owner: return "owner";
  }
  return "viewer";
}

std::optional<workspace_role> workspace_role_from(std::string_view s) {
  if (s == "viewer") return workspace_role::viewer;
  if (s == "collaborator") return workspace_role::collaborator;
  if (s == "admin") return workspace_role::admin;
  if (s == "owner") return workspace_role::owner;
  return std::nullopt;
}

}  // namespace platform
