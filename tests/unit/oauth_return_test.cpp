// Where a browser lands at the end of an OAuth connect (platform/oauth_return.hpp).
#include <doctest/doctest.h>

#include <string>

#include "platform/api_error.hpp"
#include "platform/oauth_return.hpp"

namespace oauth_return_test {

using namespace platform;

TEST_CASE("a navigation is told from a program by Fetch Metadata or by Accept") {
  CHECK(is_page_navigation("navigate", ""));
  CHECK(is_page_navigation("navigate", "application/json"));
  CHECK(is_page_navigation("", "Text/HTML,application/xhtml+xml,*/*;q=0.8"));  // no Fetch Metadata
  CHECK(is_page_navigation("cors", "text/html"));  // Node's fetch always says cors
  CHECK_FALSE(is_page_navigation("cors", "application/json"));  // the page's own fetch
  CHECK_FALSE(is_page_navigation("same-origin", "*/*"));
  CHECK_FALSE(is_page_navigation("", "application/json"));
  CHECK_FALSE(is_page_navigation("", ""));  // curl
}

TEST_CASE("the attempt cookie holds four ids and nothing else comes back from it") {
  oauth_attempt a{"ws1", "app_2", "local-crm", "0123abcd"};
  CHECK(to_cookie_value(a) == "ws1.app_2.local-crm.0123abcd");
  auto back = parse_oauth_attempt(to_cookie_value(a));
  REQUIRE(back);
  CHECK(back->workspace_id == "ws1");
  CHECK(back->app_id == "app_2");
  CHECK(back->provider_key == "local-crm");
  CHECK(back->state == "0123abcd");
  auto wide = parse_oauth_attempt("ws1..crm.s1");
  REQUIRE(wide);
  CHECK(wide->app_id.empty());
  for (const char* bad : {"", "ws1", "ws1.app.crm", "ws1.app.crm.", ".app.crm.s", "ws1.app..s", "ws1.a/b.crm.s",
                          "ws1.app.crm.s.x", "ws1.app.cr m.s", "//evil.example.app.crm", "ws1.app.crm.s?x=1"}) {
    CHECK_MESSAGE(!parse_oauth_attempt(bad), bad);
  }
}

TEST_CASE("a callback is this browser's attempt only with the state its cookie holds") {
  oauth_attempt a{"ws1", "app1", "crm", "5f3c"};
  CHECK(is_this_browsers_attempt(a, "5f3c"));
  CHECK_FALSE(is_this_browsers_attempt(a, "5f3d"));
  CHECK_FALSE(is_this_browsers_attempt(a, "5f3c0"));
  CHECK_FALSE(is_this_browsers_attempt(a, ""));
  CHECK_FALSE(is_this_browsers_attempt({"ws1", "app1", "crm", ""}, ""));  // only the page known
}

TEST_CASE("every failure of connect or callback becomes one of the page's codes") {
  CHECK(to_string(page_error_of("invalid_state")) == "invalid_state");
  CHECK(to_string(page_error_of("forbidden")) == "forbidden");
  CHECK(to_string(page_error_of("oauth_denied")) == "oauth_denied");
  CHECK(to_string(page_error_of("oauth_provider_error")) == "oauth_provider_error");
  CHECK(to_string(page_error_of("invalid_body")) == "oauth_provider_error");
  CHECK(to_string(page_error_of("not_found")) == "not_found");
  CHECK(to_string(page_error_of("oauth_token_refused")) == "oauth_token_refused");
  CHECK(to_string(page_error_of("oauth_token_failed")) == "oauth_token_failed");
  CHECK(to_string(page_error_of("oauth_provider_invalid")) == "oauth_token_failed");
  CHECK(to_string(page_error_of("unauthenticated")) == "unauthenticated");
  CHECK(to_string(page_error_of("store_unavailable")) == "connect_failed");
  CHECK(to_string(page_error_of("")) == "connect_failed");
}

TEST_CASE("the provider's answer at the callback") {
  CHECK(check_provider_answer("", "abc"));
  auto denied = check_provider_answer("access_denied", "");
  REQUIRE_FALSE(denied);
  CHECK(denied.error().code == platform::api_error::oauth_denied);
  auto scope = check_provider_answer("invalid_scope", "");
  REQUIRE_FALSE(scope);
  CHECK(scope.error().code == platform::api_error::oauth_provider_error);
  CHECK(scope.error().message == "the provider answered invalid_scope");
  // Text the provider made up is not repeated.
  auto odd = check_provider_answer("<b>call us</b>", "abc");
  REQUIRE_FALSE(odd);
  CHECK(odd.error().message == "the provider answered an error");
  auto none = check_provider_answer("", "");
  REQUIRE_FALSE(none);
  CHECK(none.error().code == platform::api_error::oauth_provider_error);
}

TEST_CASE("the page a browser is sent back to") {
  oauth_attempt r{"ws1", "app1", "crm", "s1"};
  CHECK(connected_location(r) == "/w/ws1/apps/app1/integrations?connected=crm");
  CHECK(connected_location({"ws1", "", "crm", "s1"}) == "/w/ws1?connected=crm");
  CHECK(failure_location(r, "oauth_denied") == "/w/ws1/apps/app1/integrations?oauthError=oauth_denied&provider=crm");
  CHECK(failure_location(r, "store_unavailable") ==
        "/w/ws1/apps/app1/integrations?oauthError=connect_failed&provider=crm");
  CHECK(failure_location(std::nullopt, "invalid_state") == "/?oauthError=invalid_state");
}

}  // namespace oauth_return_test
