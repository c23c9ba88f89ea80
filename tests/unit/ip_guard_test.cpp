// The SSRF matrix: every URL below must be refused before a socket is opened, whether its host
// is refused by the URL reader (zone ids, bad numbers) or by the address guard. Names that
// resolve to internal addresses (localhost) are covered by the executor test.
#include <doctest/doctest.h>

#include <string>

#include "platform/ip_guard.hpp"
#include "platform/url.hpp"

namespace ip_guard_test {

using namespace platform;

namespace {

// Why the URL may not be called without an allow-list, or "" when it may. The reason is the
// URL error code or the address class.
std::string refusal(const std::string& text, const address_allow_list& allow = {}) {
  auto u = parse_url(text);
  if (!u) return std::string(platform::code_name(u.error()));
  auto a = u->address();
  REQUIRE_MESSAGE(a.has_value(), text);  // the matrix only holds IP literals
  auto refused = refused_address(*a, u->port, u->host, allow);
  return refused ? std::string(to_string(*refused)) : "";
}

struct row {
  const char* url;
  const char* why;
};

}  // namespace

TEST_CASE("IPv4 text in every inet_aton form reads as the address it is") {
  for (const auto& row : {std::pair{"127.0.0.1", "127.0.0.1"}, {"127.1", "127.0.0.1"}, {"2130706433", "127.0.0.1"},
                                 {"0x7f000001", "127.0.0.1"}, {"0177.0.0.1", "127.0.0.1"}, {"0x7f.1", "127.0.0.1"},
                                 {"0x7F.0.0.0x1", "127.0.0.1"}, {"127.0.1", "127.0.0.1"}, {"0", "0.0.0.0"},
                                 {"0x", "0.0.0.0"}, {"4294967295", "255.255.255.255"}, {"10.1.65535", "10.1.255.255"},
                                 {"00000000000000000000010.1", "8.0.0.1"}}) {
    const char* text = row.first;
    const char* canonical = row.second;
    auto a = parse_ipv4(text);
    REQUIRE_MESSAGE(a, text);
    CHECK_MESSAGE(to_string(*a) == canonical, text);
  }
  for (const char* bad : {"", ".", "1.2.3.4.5", "256.0.0.1", "1.256.1", "4294967296", "0x100000000", "08", "09.1",
                          "1..2", "1.2.3.", "0xg", "1.2.3.256", "1.16777216", "a.b.c.d", "-1", "1.2.3.4 "}) {
    CHECK_MESSAGE(!parse_ipv4(bad), bad);
  }
  CHECK(parse_ipv4_strict("10.0.0.1"));
  for (const char* bad : {"127.1", "010.0.0.1", "1.2.3", "256.1.1.1", "0x7f.0.0.1"}) CHECK_MESSAGE(!parse_ipv4_strict(bad), bad);
}

TEST_CASE("IPv6 text parses per RFC 4291 and prints per RFC 5952") {
  for (const auto& row : {std::pair{"::1", "::1"}, {"::", "::"}, {"0:0:0:0:0:0:0:1", "::1"},
                                 {"2001:DB8:0:0:1:0:0:1", "2001:db8::1:0:0:1"}, {"2001:db8::", "2001:db8::"},
                                 {"::ffff:127.0.0.1", "::ffff:127.0.0.1"}, {"::ffff:7f00:1", "::ffff:127.0.0.1"},
                                 {"64:ff9b::10.0.0.1", "64:ff9b::a00:1"}, {"fe80::", "fe80::"},
                                 {"1:0:0:2:0:0:0:3", "1:0:0:2::3"}, {"0001:0002:0003:0004:0005:0006:0007:0008", "1:2:3:4:5:6:7:8"}}) {
    const char* text = row.first;
    const char* canonical = row.second;
    auto a = parse_ipv6(text);
    REQUIRE_MESSAGE(a, text);
    CHECK_MESSAGE(to_string(*a) == canonical, text);
  }
  for (const char* bad : {"", ":", ":::", "1:::2", "1::2::3", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "12345::",
                          "::g", "fe80::1%eth0", "::ffff:127.1", "::ffff:1.2.3.4.5", "1.2.3.4::", ":1:2:3:4:5:6:7",
                          "1:2:3:4:5:6:7::8", "[::1]"}) {
    CHECK_MESSAGE(!parse_ipv6(bad), bad);
  }
}

TEST_CASE("the SSRF matrix: internal, reserved and disguised addresses are refused") {
  const row rows[] = {
      // loopback, in every spelling
      {"http://127.0.0.1/", "loopback"}, {"http://127.1/", "loopback"}, {"http://2130706433/", "loopback"},
      {"http://0x7f000001/", "loopback"}, {"http://0177.0.0.1/", "loopback"}, {"http://0x7f.1/", "loopback"},
      {"http://127.255.255.254:8080/", "loopback"}, {"http://[::1]/", "loopback"}, {"http://[0:0:0:0:0:0:0:1]/", "loopback"},
      {"http://[::ffff:127.0.0.1]/", "loopback"}, {"http://[::ffff:7f00:1]/", "loopback"},
      {"http://[::ffff:0:127.0.0.1]/", "loopback"}, {"http://[::127.0.0.1]/", "loopback"}, {"HTTP://0X7F.0.0.1/", "loopback"},
      // private
      {"http://10.0.0.1/", "private"}, {"http://012.0.0.1/", "private"}, {"http://167772161/", "private"},
      {"http://172.16.0.1/", "private"}, {"http://172.31.255.255/", "private"}, {"http://192.168.1.1/", "private"},
      {"http://0xc0a80101/", "private"}, {"http://3232235777/", "private"}, {"http://[::ffff:10.0.0.1]/", "private"},
      {"http://[::ffff:c0a8:101]/", "private"},
      // link-local and cloud metadata
      {"http://169.254.1.1/", "link-local"}, {"http://[fe80::1]/", "link-local"}, {"http://[febf:ffff::1]/", "link-local"},
      {"http://169.254.169.254/latest/meta-data/", "cloud metadata"}, {"http://2852039166/", "cloud metadata"},
      {"http://0xa9fea9fe/", "cloud metadata"}, {"http://0xa9.0xfe.0xa9.0xfe/", "cloud metadata"},
      {"http://0251.0376.0251.0376/", "cloud metadata"}, {"http://169.254.43518/", "cloud metadata"},
      {"http://[::ffff:169.254.169.254]/", "cloud metadata"}, {"http://[::ffff:a9fe:a9fe]/", "cloud metadata"},
      {"http://[fd00:ec2::254]/", "cloud metadata"}, {"http://100.100.100.200/", "cloud metadata"},
      {"http://169.254.170.2/", "cloud metadata"},
      // NAT64 and 6to4 carry an IPv4 address: the carried address decides
      {"http://[64:ff9b::7f00:1]/", "loopback"}, {"http://[64:ff9b::127.0.0.1]/", "loopback"},
      {"http://[64:ff9b::a9fe:a9fe]/", "cloud metadata"}, {"http://[64:ff9b::a00:1]/", "private"},
      {"http://[64:ff9b:1::1]/", "reserved"}, {"http://[2002:7f00:1::]/", "loopback"},
      {"http://[2002:a9fe:a9fe::1]/", "cloud metadata"}, {"http://[2002:c0a8:101::1]/", "private"},
      {"http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", "Teredo"},
      // shared (CGNAT), unspecified, multicast, broadcast
      {"http://100.64.0.1/", "shared (carrier-grade NAT)"}, {"http://100.127.255.255/", "shared (carrier-grade NAT)"},
      {"http://0.0.0.0/", "unspecified"}, {"http://0/", "unspecified"}, {"http://0.1.2.3/", "unspecified"},
      {"http://[::]/", "unspecified"}, {"http://224.0.0.1/", "multicast"}, {"http://239.255.255.250/", "multicast"},
      {"http://[ff02::1]/", "multicast"}, {"http://[::ffff:224.0.0.1]/", "multicast"},
      {"http://255.255.255.255/", "broadcast"}, {"http://4294967295/", "broadcast"},
      // reserved, benchmarking, protocol assignments, documentation
      {"http://240.0.0.1/", "reserved"}, {"http://192.88.99.1/", "reserved"}, {"http://[100::1]/", "reserved"},
      {"http://[::8.8.8.8]/", "reserved"}, {"http://[4000::1]/", "reserved"},
      {"http://198.18.0.1/", "benchmarking"}, {"http://198.19.255.255/", "benchmarking"},
      {"http://[2001:2::1]/", "benchmarking"}, {"http://192.0.0.1/", "IETF protocol assignments"},
      {"http://192.0.0.192/", "IETF protocol assignments"}, {"http://[2001:10::1]/", "IETF protocol assignments"},
      {"http://192.0.2.1/", "documentation"}, {"http://198.51.100.1/", "documentation"},
      {"http://203.0.113.1/", "documentation"}, {"http://[2001:db8::1]/", "documentation"},
      {"http://[3fff::1]/", "documentation"},
      // IPv6 unique-local and site-local
      {"http://[fc00::1]/", "unique local"}, {"http://[fdff:ffff::1]/", "unique local"},
      {"http://[fec0::1]/", "site-local"},
      // hosts the URL reader refuses outright
      {"http://[::1%25eth0]/", "invalid_host"}, {"http://[fe80::1%eth0]/", "invalid_host"},
      {"http://256.0.0.1/", "invalid_host"}, {"http://1.2.3.4.5/", "invalid_host"},
      {"http://0x100000000/", "invalid_host"}, {"http://08.0.0.1/", "invalid_host"},
      {"http://127.0.0.1./", "invalid_host"}, {"http://%31%32%37.0.0.1/", "invalid_host"},
      {"http://127.0.0.1\\@evil.example/", "invalid_host"}, {"http://[v1.fe]/", "invalid_host"},
      {"http://user@127.0.0.1/", "userinfo_not_allowed"}, {"http://public.example@127.0.0.1/", "userinfo_not_allowed"},
      {"http://\xef\xbc\x91\xef\xbc\x92\xef\xbc\x97.0.0.1/", "invalid_host"},
      {"file:///etc/passwd", "scheme_not_allowed"}, {"gopher://127.0.0.1/", "scheme_not_allowed"},
  };
  for (const auto& r : rows) CHECK_MESSAGE(refusal(r.url) == r.why, r.url);
}

TEST_CASE("public addresses pass, also the neighbours of every refused block and carried public IPv4") {
  for (const char* url : {"https://8.8.8.8/", "https://1.1.1.1/", "http://93.184.216.34:8080/x", "https://134744072/",
                          "https://[2606:4700:4700::1111]/", "https://[::ffff:8.8.8.8]/", "https://[64:ff9b::808:808]/",
                          "https://[2002:808:808::1]/", "http://100.63.255.255/", "http://100.128.0.0/",
                          "http://172.15.255.255/", "http://172.32.0.0/", "http://192.167.255.255/", "http://192.169.0.0/",
                          "http://169.253.255.255/", "http://169.255.0.0/", "http://11.0.0.0/", "http://9.255.255.255/",
                          "http://126.255.255.255/", "http://128.0.0.0/", "http://223.255.255.255/", "http://1.0.0.0/",
                          "http://198.17.255.255/", "http://198.20.0.0/", "http://192.0.1.0/", "http://[2a00:1450::1]/"}) {
    CHECK_MESSAGE(refusal(url).empty(), url);
  }
}

TEST_CASE("CIDR blocks contain what they should") {
  auto n = parse_ip_network("172.16.0.0/12");
  REQUIRE(n);
  CHECK(n->contains(*parse_ipv4("172.31.255.255")));
  CHECK(!n->contains(*parse_ipv4("172.32.0.0")));
  CHECK(!n->contains(*parse_ipv6("::ffff:172.16.0.1")));  // families never mix
  auto v6 = parse_ip_network("fc00::/7");
  REQUIRE(v6);
  CHECK(v6->contains(*parse_ipv6("fdff::1")));
  CHECK(!v6->contains(*parse_ipv6("fe00::1")));
  CHECK(parse_ip_network("0.0.0.0/0")->contains(*parse_ipv4("8.8.8.8")));
  CHECK(parse_ip_network("10.1.2.3/8").error().message.find("10.0.0.0/8") != std::string::npos);
  for (const char* bad : {"10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0/8", "x/8", "10.0.0.0/a"}) {
    CHECK_MESSAGE(!parse_ip_network(bad), bad);
  }
}

TEST_CASE("the operator allow-list is explicit: networks, address:port and name:port") {
  auto list = address_allow_list::parse("127.0.0.1:8443, 10.9.0.0/16 [::1]:9000\tmock.internal:7000 ::1/128");
  REQUIRE(list);
  REQUIRE(list->rules.size() == 5);
  auto lo = *parse_ipv4("127.0.0.1");
  CHECK(list->allows(lo, 8443, "127.0.0.1"));
  CHECK(!list->allows(lo, 8444, "127.0.0.1"));
  CHECK(list->allows(*parse_ipv4("10.9.200.1"), 1, "x"));
  CHECK(list->allows(*parse_ipv6("::1"), 5, "x"));
  CHECK(list->allows(*parse_ipv4("192.168.1.1"), 7000, "mock.internal"));
  CHECK(!list->allows(*parse_ipv4("192.168.1.1"), 7001, "mock.internal"));
  CHECK(!refused_address(lo, 8443, "127.0.0.1", *list));
  CHECK(refused_address(lo, 8444, "127.0.0.1", *list) == address_class::loopback);
  CHECK(refused_address(lo, 8443, "127.0.0.1", {}) == address_class::loopback);  // off by default
  CHECK(address_allow_list::parse("")->empty());
  CHECK(address_allow_list::parse(" , ")->empty());
  for (const char* bad : {"localhost", "127.0.0.1:0", "127.0.0.1:65536", "[::1]", "[::1]:x", "host name:80", "10.1.2.3/8"}) {
    CHECK_MESSAGE(!address_allow_list::parse(bad), bad);
  }
}

TEST_CASE("every address class has a readable name") {
  CHECK(to_string(address_class::metadata) == "cloud metadata");
  CHECK(to_string(address_class::global) == "global");
}

}  // namespace ip_guard_test
