// netprof(1) as the build writes it: roff that groff reads as text, and every option, transport
// and exit status of this build in it, so a new option appears without anyone editing the page.

#include "cli/command_summary.hpp"
#include "cli/man_page.hpp"
#include "cli/option_table.hpp"

#include <netprof/registry.hpp>

#include <gtest/gtest.h>

#include <string>

namespace netprof::cli {
namespace {

class ManPageTest : public ::testing::Test {
protected:
  ManPageTest() { register_builtin_transports(m_registry); }

  TransportRegistry m_registry;
};

TEST(RoffEscaped, MakesHyphensMinusSignsAndBackslashesPrintable)
{
  EXPECT_EQ(roff_escaped("--mode ping-pong"), "\\-\\-mode ping\\-pong");
  EXPECT_EQ(roff_escaped("a\\b"), "a\\eb");
}

TEST(RoffEscaped, KeepsALineStartingWithAPeriodOrQuoteFromBeingARequest)
{
  EXPECT_EQ(roff_escaped(".so /etc/passwd"), "\\&.so /etc/passwd");
  EXPECT_EQ(roff_escaped("x\n'br"), "x\n\\&'br");
  EXPECT_EQ(roff_escaped("a.b"), "a.b");
}

TEST(RoffOptionTag, NamesBothFlagsAndTheValue)
{
  const OptionSpec sut("size,s", "BYTES", WholeNumber{1, 10}, "payload bytes");

  EXPECT_EQ(roff_option_tag(sut), "\\fB\\-s\\fR, \\fB\\-\\-size\\fR \\fIBYTES\\fR");
}

TEST(RoffOptionTag, ASwitchHasNoValueAndAnImplicitValueIsOptional)
{
  EXPECT_EQ(roff_option_tag(OptionSpec("quiet", "", Switch{}, "")), "\\fB\\-\\-quiet\\fR");
  EXPECT_EQ(roff_option_tag(OptionSpec("shm", "NAME", Text{}, "").with_implicit("")),
            "\\fB\\-\\-shm\\fR [\\fINAME\\fR]");
}

TEST_F(ManPageTest, HasTheSectionsOfACommandsPage)
{
  const std::string sut = man_page(m_registry);

  EXPECT_EQ(sut.find(".TH NETPROF 1 "), sut.find('\n') + 1);
  for (const char* section : {"NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "TRANSPORTS",
                              "EXIT STATUS", "ENVIRONMENT", "FILES", "EXAMPLES", "SEE ALSO"}) {
    EXPECT_NE(sut.find(std::string("\n.SH ") + section + "\n"), std::string::npos) << section;
  }
}

TEST_F(ManPageTest, DescribesEveryCoreOptionUnderItsHeading)
{
  const std::string sut = man_page(m_registry);

  for (const CoreOption& row : core_option_table()) {
    const std::size_t heading = sut.find(".SS " + row.heading + "\n");
    const std::size_t option = sut.find(".TP\n" + roff_option_tag(row.spec) + "\n");
    EXPECT_NE(option, std::string::npos) << row.spec.long_name;
    EXPECT_LT(heading, option) << row.spec.long_name;
  }
}

TEST_F(ManPageTest, DescribesEveryTransportAndItsOptions)
{
  const std::string sut = man_page(m_registry);

  for (const TransportOptions& transport : transport_options(m_registry)) {
    EXPECT_NE(sut.find(".SS " + roff_escaped(transport.name) + "\n"), std::string::npos)
        << transport.name;
    for (const OptionSpec& spec : transport.options.options) {
      EXPECT_NE(sut.find(".TP\n" + roff_option_tag(spec) + "\n"), std::string::npos)
          << spec.long_name;
    }
  }
}

TEST_F(ManPageTest, ListsEveryExitStatus)
{
  const std::string sut = man_page(m_registry);

  for (const ExitStatus& row : exit_statuses()) {
    EXPECT_NE(sut.find(".TP\n\\fB" + std::to_string(row.status) + "\\fR\n" +
                       roff_escaped(row.meaning) + "\n"),
              std::string::npos)
        << row.status;
  }
}

TEST_F(ManPageTest, NoLineOfTextStartsAsARequest)
{
  const std::string sut = man_page(m_registry);

  // Every line that starts with '.' is one of the requests the page means to make.
  std::size_t start = 0;
  while (start < sut.size()) {
    const std::size_t end = sut.find('\n', start);
    const std::string line = sut.substr(start, end - start);
    if (!line.empty() && line[0] == '.') {
      const std::string request = line.substr(0, line.find(' '));
      EXPECT_TRUE(request == ".\\\"" || request == ".TH" || request == ".SH" || request == ".SS" ||
                  request == ".TP" || request == ".PP" || request == ".br" || request == ".RS" ||
                  request == ".RE" || request == ".nf" || request == ".fi" || request == ".nh" ||
                  request == ".ad")
          << line;
    }
    start = end + 1;
  }
}

} // namespace
} // namespace netprof::cli
