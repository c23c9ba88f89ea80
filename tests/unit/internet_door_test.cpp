#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "platform/api_error.hpp"
#include "platform/internet_door.hpp"
#include "platform/sandbox_jail.hpp"

namespace internet_door_test {

using namespace platform;

namespace {

ip_address v4(const char* text) { return *parse_ipv4_strict(text); }

address_allow_list allow(const char* text) { return *address_allow_list::parse(text); }

}  // namespace

TEST_CASE("a CONNECT head names its host and port") {
  auto t = parse_connect_head("CONNECT registry.npmjs.org:443 HTTP/1.1\r\nHost: registry.npmjs.org:443\r\n\r\n");
  REQUIRE(t.has_value());
  CHECK(t->host == "registry.npmjs.org");
  CHECK(t->port == 443);
  CHECK_FALSE(t->address);
  auto v6 = parse_connect_head("CONNECT [2001:db8::1]:8443 HTTP/1.1\r\n\r\n");
  REQUIRE(v6.has_value());
  CHECK(v6->host == "2001:db8::1");
  REQUIRE(v6->address);
  CHECK(*v6->address == *parse_ipv6("2001:db8::1"));
  // The resolver's reading of numeric hosts: 127.1 is loopback, and is guarded as such.
  auto odd = parse_connect_head("CONNECT 127.1:443 HTTP/1.1\r\n\r\n");
  REQUIRE(odd.has_value());
  CHECK(odd->host == "127.0.0.1");
  CHECK(odd->address == v4("127.0.0.1"));
}

TEST_CASE("anything but a clean CONNECT is refused with a sentence") {
  for (const char* head : {
           "GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n",  // plain http through the proxy
           "CONNECT example.com HTTP/1.1\r\n\r\n",                           // no port
           "CONNECT example.com: HTTP/1.1\r\n\r\n",
           "CONNECT user@example.com:443 HTTP/1.1\r\n\r\n",
           "CONNECT example.com:443/x HTTP/1.1\r\n\r\n",
           "CONNECT example.com:99999 HTTP/1.1\r\n\r\n",
           "CONNECT example.com:443 HTTP/2\r\n\r\n",
           "CONNECT  example.com:443 HTTP/1.1\r\n\r\n",
           "CONNECT example.com:443 HTTP/1.1\r\nX: a\rb\r\n\r\n",
           "CONNECT example.com:443 HTTP/1.1\r\n folded\r\n\r\n",
           "CONNECT example.com:443 HTTP/1.1\r\n",
           "CONNECT ex%41mple.com:443 HTTP/1.1\r\n\r\n",
       }) {
    auto t = parse_connect_head(head);
    CAPTURE(head);
    REQUIRE_FALSE(t.has_value());
    CHECK(is(t.error(), api_error::egress_refused));
  }
  auto plain = parse_connect_head("GET http://example.com/ HTTP/1.1\r\n\r\n");
  CHECK(plain.error().message.find("CONNECT only") != std::string::npos);
}

TEST_CASE("the door connects only where the address guard allows") {
  connect_target t{"example.com", 443, std::nullopt};
  auto ok = internet_door_addresses(t, {v4("93.184.216.34")}, {});
  REQUIRE(ok.has_value());
  CHECK(ok->size() == 1);
  // Loopback, private, link-local and metadata: refused, saying which.
  for (const char* a : {"127.0.0.1", "10.1.2.3", "192.168.1.1", "169.254.169.254", "172.16.0.5", "0.0.0.0"}) {
    auto no = internet_door_addresses(t, {v4(a)}, {});
    CAPTURE(a);
    REQUIRE_FALSE(no.has_value());
    CHECK(is(no.error(), api_error::egress_refused));
    CHECK(no.error().message.find(a) != std::string::npos);
  }
  // A name that resolves to a public and a private address: only the public one is used.
  auto mixed = internet_door_addresses(t, {v4("10.0.0.1"), v4("93.184.216.34")}, {});
  REQUIRE(mixed.has_value());
  CHECK(*mixed == std::vector<ip_address>{v4("93.184.216.34")});
  CHECK_FALSE(internet_door_addresses(t, {}, {}).has_value());
}

TEST_CASE("ports other than 443 and 80 only when the allow-list names them") {
  connect_target ssh{"example.com", 22, std::nullopt};
  auto no = internet_door_addresses(ssh, {v4("93.184.216.34")}, {});
  REQUIRE_FALSE(no.has_value());
  CHECK(no.error().message.find("443 and 80") != std::string::npos);
  connect_target stand_in{"127.0.0.1", 40123, v4("127.0.0.1")};
  CHECK_FALSE(internet_door_addresses(stand_in, {v4("127.0.0.1")}, {}).has_value());
  CHECK(internet_door_addresses(stand_in, {v4("127.0.0.1")}, allow("127.0.0.1:40123")).has_value());
  // The entry is for that port only.
  CHECK_FALSE(internet_door_addresses({"127.0.0.1", 40124, v4("127.0.0.1")}, {v4("127.0.0.1")}, allow("127.0.0.1:40123")).has_value());
}

TEST_CASE("a jail with the internet door gets the proxy variables, and they replace the worker's own") {
  sandbox_request r;
  r.identity = {61001, 61001};
  r.workspace = "/data/apps/a";
  r.home = "/data/sandboxes/x/home";
  r.tmp = "/data/sandboxes/x/tmp";
  r.doors_dir = "/data/sandboxes/x/doors";
  r.cwd = r.workspace;
  r.env = {"PATH=/usr/bin", "HTTPS_PROXY=http://corp-proxy:3128"};
  r.egress = {sandbox_egress::internet};
  auto j = jail_for(r);
  REQUIRE(j.has_value());
  auto has = [&](const std::string& e) { return std::find(j->env.begin(), j->env.end(), e) != j->env.end(); };
  CHECK(has("HTTPS_PROXY=http://127.0.0.1:47803"));
  CHECK(has("http_proxy=http://127.0.0.1:47803"));
  CHECK(has("NO_PROXY=127.0.0.1,localhost,::1"));
  CHECK_FALSE(has("HTTPS_PROXY=http://corp-proxy:3128"));
  // Without the door, no proxy is named for it.
  r.egress = {sandbox_egress::provider};
  auto plain = jail_for(r);
  REQUIRE(plain.has_value());
  CHECK(std::none_of(plain->env.begin(), plain->env.end(), [](const std::string& e) { return e.find("47803") != std::string::npos; }));
}

}  // namespace internet_door_test
