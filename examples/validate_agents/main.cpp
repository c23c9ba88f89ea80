// A C++ host linking the installed libplatform through pkg-config:
//   c++ -std=c++20 main.cpp $(pkg-config --cflags --libs platform)
// Reads agents.json on stdin, prints the violation report and the v1 approval hash.
#include <iostream>
#include <iterator>
#include <string>

#include <platform/agents_config.hpp>
#include <platform/approval_hash.hpp>

int main() {
  std::string text(std::istreambuf_iterator<char>(std::cin), {});
  auto report = platform::validate_agents_config(text);
  std::cout << platform::violations_to_json(report.problems) << '\n';
  if (!report.config) return 1;
  auto approval = platform::approval_hash_of(text);
  if (!approval) return 1;
  std::cout << approval->hash << '\n';
  return 0;
}
