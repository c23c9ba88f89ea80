// doctest's runner for every test executable, with one rule doctest lacks: a run whose filters
// match no test case fails. The unit tests are one executable and each meson test runs one
// file's cases by `--source-file`, so a renamed or emptied file must not leave a test that passes
// having run nothing.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

namespace {

bool queried = false;           // --list-test-cases, --count, --help and the like
unsigned cases_matched = 0;

struct matched_cases : doctest::IReporter {
  explicit matched_cases(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override { queried = true; }
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats& s) override { cases_matched = s.numTestCasesPassingFilters; }
  void test_case_start(const doctest::TestCaseData&) override {}
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};

}  // namespace

REGISTER_LISTENER("matched_cases", 1, matched_cases);

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  int rc = context.run();
  if (rc == 0 && !queried && !context.shouldExit() && cases_matched == 0) {
    std::fputs("no test case matched the filters\n", stderr);
    return 1;
  }
  return rc;
}
