#pragma once
// Where a person's browser lands at the end of an OAuth connect (docs/app-runtime.md
// "Integrations"). Connect and its callback are full-page navigations: a JSON error there is all
// the person would see. So a navigation is answered with a 303 back to the page the attempt
// started from, saying what happened in the query: `?connected=<providerKey>`, or
// `?oauthError=<code>&provider=<providerKey>` with a code of the closed set below, which the page
// explains in a sentence. Programs (no navigation) keep the JSON bodies.
//
// The page is an app's integrations page (or the workspace's, for a workspace-wide account). The
// connect route names it in its path. The callback takes it from the attempt's state when that
// state is the caller's own; otherwise (an unknown, used or forged state names nothing the
// caller may see) from the attempt cookie connect left in this browser; without either, "/".
//
// The attempt cookie (HttpOnly, SameSite=Lax, sent only to the callback) also says who finishes
// the connect when the request carries no sign-in: the session cookie is SameSite=Strict, so a
// browser coming back from a provider on another site does not send it. A callback whose `state`
// is the one this browser's cookie holds comes from the browser that started the attempt, signed
// in as the attempt's user then (double submit: another browser, or a link an attacker sends,
// cannot carry this browser's cookie).
#include <optional>
#include <string>
#include <string_view>

#include "platform/error.hpp"

namespace platform {

// A page navigation rather than a program: Sec-Fetch-Mode "navigate" (current browsers), or an
// Accept that names text/html (every browser's navigation; a program asking for a page). The
// page's own fetches send `Accept: application/json`.
bool is_page_navigation(std::string_view sec_fetch_mode, std::string_view accept) noexcept;

struct oauth_attempt {
  std::string workspace_id;
  std::string app_id;  // "": the workspace's page (a workspace-wide account)
  std::string provider_key;
  std::string state;   // "" when only the page is known
};

// "<workspace>.<app>.<provider>.<state>" (ids never hold a dot), and back: nothing unless the
// workspace, provider and state are valid ids and the app is one or empty.
std::string to_cookie_value(const oauth_attempt& a);
std::optional<oauth_attempt> parse_oauth_attempt(std::string_view cookie_value);

// Whether the callback's `state` is the attempt this browser started (constant time).
bool is_this_browsers_attempt(const oauth_attempt& cookie, std::string_view state_param) noexcept;

// What the page explains. Each names who can do what about it.
enum class oauth_page_error {
  invalid_state,          // unknown, used or expired attempt: connect again
  forbidden,              // another person's attempt, or a role that may not
  oauth_denied,           // the person declined at the provider
  oauth_provider_error,   // the provider answered another error, or no code
  not_found,              // no OAuth client registered for the provider (or the app is gone)
  oauth_token_refused,    // the token endpoint refused the client (id or secret wrong)
  oauth_token_failed,     // the token endpoint unreachable, its reply unusable, or its URL invalid
  unauthenticated,        // signed out meanwhile
  connect_failed,         // the platform's side (store, cache): try again
};

std::string_view to_string(oauth_page_error e) noexcept;

// The error code of a failed connect or callback (the JSON body's `error.code`) as the page's.
oauth_page_error page_error_of(std::string_view api_code) noexcept;

// The provider's answer at the callback (RFC 6749 4.1.2): `error` (access_denied →
// oauth_denied; any other → oauth_provider_error, naming it when it is one of 4.1.2.1's codes),
// or no `code` (oauth_provider_error).
result<void> check_provider_answer(std::string_view error_param, std::string_view code_param);

// The page (path and query) a navigation is sent back to.
std::string connected_location(const oauth_attempt& a);
std::string failure_location(const std::optional<oauth_attempt>& a, std::string_view api_code);

}  // namespace platform
