// The bash completion as the build writes it: every option of this build, and after an option
// its values where they are a fixed set. (tests/package runs it in bash.)

#include "cli/bash_completion.hpp"
#include "cli/command_summary.hpp"
#include "cli/option_table.hpp"

#include <netprof/registry.hpp>

#include <gtest/gtest.h>

#include <string>

namespace netprof::cli {
namespace {

class BashCompletionTest : public ::testing::Test {
protected:
  BashCompletionTest() { register_builtin_transports(m_registry); }

  // The words offered when the word being completed is an option.
  std::string offered_options() const
  {
    const std::string script = bash_completion(m_registry);
    const std::string start = "  COMPREPLY=($(compgen -W '";
    const std::size_t from = script.rfind(start) + start.size();
    std::string words = " ";
    words.append(script, from, script.find('\'', from) - from);
    return words.append(" ");
  }

  TransportRegistry m_registry;
};

TEST_F(BashCompletionTest, OffersEveryCoreAndTransportOption)
{
  const std::string sut = offered_options();

  for (const CoreOption& row : core_option_table()) {
    EXPECT_NE(sut.find(" --" + row.spec.long_name + " "), std::string::npos) << row.spec.long_name;
  }
  for (const TransportOptions& transport : transport_options(m_registry)) {
    for (const OptionSpec& spec : transport.options.options) {
      EXPECT_NE(sut.find(" --" + spec.long_name + " "), std::string::npos) << spec.long_name;
      if (spec.short_name != '\0') {
        EXPECT_NE(sut.find(std::string{' ', '-', spec.short_name, ' '}), std::string::npos);
      }
    }
  }
}

TEST_F(BashCompletionTest, OffersTheModesAfterMode)
{
  const std::string sut = bash_completion(m_registry);

  EXPECT_NE(sut.find("    --mode)\n      COMPREPLY=($(compgen -W 'stream ping-pong' -- \"$cur\"))"),
            std::string::npos)
      << sut;
}

TEST_F(BashCompletionTest, OffersFileNamesAfterAFileAndNothingAfterANumber)
{
  const std::string sut = bash_completion(m_registry);

  const std::size_t files = sut.find("--json|--key-file");
  ASSERT_NE(files, std::string::npos) << sut;
  EXPECT_EQ(sut.find("compgen -f", files), sut.find("compgen", files));
  EXPECT_NE(sut.find("|-s|--size|"), std::string::npos);
}

TEST_F(BashCompletionTest, RegistersTheFunctionForNetprof)
{
  const std::string sut = bash_completion(m_registry);

  EXPECT_TRUE(sut.ends_with("\ncomplete -F _netprof netprof\n"));
}

} // namespace
} // namespace netprof::cli
