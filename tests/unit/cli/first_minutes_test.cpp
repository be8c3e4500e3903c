// What a new user meets in the first minutes (issue 31): help per transport, sizes with
// suffixes, --json -, suggestions for a typo, and bare transport flags with --local-pair.

#include <netprof/cli.hpp>
#include <netprof/errors.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <string>
#include <vector>

namespace netprof {
namespace {

class FirstMinutesTest : public ::testing::Test {
protected:
  FirstMinutesTest() { register_builtin_transports(m_registry); }

  ParsedCommandLine parse(std::initializer_list<std::string> arguments) const
  {
    std::vector<std::string> storage{"netprof"};
    storage.insert(storage.end(), arguments);
    std::vector<const char*> argv;
    for (const auto& argument : storage)
      argv.push_back(argument.c_str());
    return parse_command_line(static_cast<int>(argv.size()), argv.data(), m_registry);
  }

  std::string usage_error(std::initializer_list<std::string> arguments) const
  {
    try {
      parse(arguments);
    } catch (const UsageError& error) {
      return error.what();
    }
    return "(parsed without error)";
  }

  bool has(const std::string& transport) const
  {
    const auto& entries = m_registry.entries();
    return std::any_of(entries.begin(), entries.end(),
                       [&](const TransportEntry& entry) { return entry.name == transport; });
  }

  TransportRegistry m_registry;
};

std::size_t lines(const std::string& text)
{
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

bool contains(const std::string& text, const std::string& part)
{
  return text.find(part) != std::string::npos;
}

// ---- --help TRANSPORT ----

TEST_F(FirstMinutesTest, GeneralHelpLeavesTheTransportsOptionsOut)
{
  const std::string sut = help_text(m_registry);

  EXPECT_LT(lines(sut) * 2, lines(help_text(m_registry, "all")));
  EXPECT_FALSE(contains(sut, "--mc-ttl"));
  EXPECT_FALSE(contains(sut, "--fragment-size"));
  EXPECT_TRUE(contains(sut, "--size"));
  EXPECT_TRUE(contains(sut, "netprof --help TRANSPORT"));
}

TEST_F(FirstMinutesTest, GeneralHelpNamesEveryTransportWithItsSummary)
{
  const std::string sut = help_text(m_registry);

  for (const TransportEntry& entry : m_registry.entries())
    EXPECT_TRUE(contains(sut, entry.name + "  ") && contains(sut, entry.summary)) << entry.name;
}

TEST_F(FirstMinutesTest, HelpOfOneTransportGivesItsOptionsAlone)
{
  const std::string sut = help_text(m_registry, "udp");

  EXPECT_TRUE(contains(sut, "-u [ --udp ]"));
  EXPECT_FALSE(contains(sut, "--size"));
  EXPECT_FALSE(contains(sut, "--mc-ttl"));
  EXPECT_TRUE(contains(sut, "netprof --help all"));
}

TEST_F(FirstMinutesTest, HelpTakesItsTopicAfterItOrAfterAnEqualsSign)
{
  for (const auto& arguments : {std::vector<std::string>{"--help", "udp"},
                                std::vector<std::string>{"--help=udp"},
                                std::vector<std::string>{"-s", "64", "-h", "udp"}}) {
    std::vector<const char*> argv = {"netprof"};
    for (const std::string& argument : arguments)
      argv.push_back(argument.c_str());
    const auto sut = parse_command_line(static_cast<int>(argv.size()), argv.data(), m_registry);

    EXPECT_EQ(sut.action, ParsedCommandLine::Action::help);
    EXPECT_EQ(sut.text, help_text(m_registry, "udp"));
  }
}

TEST_F(FirstMinutesTest, HelpOfAnUnknownTopicIsABadCommandLine)
{
  const std::string sut = usage_error({"--help", "udpp"});

  EXPECT_TRUE(contains(sut, "--help udpp: no such transport")) << sut;
  EXPECT_TRUE(contains(sut, "expected all, udp")) << sut;
}

TEST_F(FirstMinutesTest, ThreadsHelpNamesEveryTransportThatRunsAsThreads)
{
  const std::string sut = help_text(m_registry);
  const std::size_t threads = sut.find("--threads");
  ASSERT_NE(threads, std::string::npos);
  const std::string row = sut.substr(threads, sut.find("\n  -", threads) - threads);

  for (const TransportEntry& entry : m_registry.entries()) {
    const bool named = contains(row, " " + entry.name + ",") || contains(row, " " + entry.name + ".");
    EXPECT_EQ(named, entry.make()->allows_threads()) << entry.name << " in: " << row;
  }
}

// ---- sizes ----

TEST_F(FirstMinutesTest, SizesTakeBinarySuffixes)
{
  EXPECT_EQ(parse({"--local-pair", "-s", "1k"}).config.payload_size, 1024U);
  EXPECT_EQ(parse({"--local-pair", "-s", "4KiB"}).config.payload_size, 4096U);
  EXPECT_EQ(parse({"--local-pair", "-q", "2M"}).config.queue_length, 2U * 1024 * 1024);
  EXPECT_EQ(parse({"--local-pair", "-s", "64"}).config.payload_size, 64U);
}

TEST_F(FirstMinutesTest, ABadSizeNamesTheSuffixes)
{
  EXPECT_EQ(usage_error({"--local-pair", "-s", "1.5k"}),
            "invalid value '1.5k' for --size: expected a size in bytes >= 1 (K, M, G = 1024, "
            "1024^2, 1024^3 bytes)");
}

// ---- --json - ----

TEST_F(FirstMinutesTest, JsonDashMeansStandardOutput)
{
  const auto sut = parse({"--local-pair", "--json", "-"});

  EXPECT_EQ(sut.config.json_path, "-");
  EXPECT_TRUE(json_on_stdout(sut.config));
}

// ---- typos ----

TEST_F(FirstMinutesTest, ATypoGetsTheOptionItMeant)
{
  EXPECT_EQ(usage_error({"--local-pair", "--subscriber", "2"}),
            "unknown option '--subscriber' (did you mean '--subscribers'?)");
  EXPECT_EQ(usage_error({"--local-pair", "--wiat", "2"}),
            "unknown option '--wiat' (did you mean '--wait'?)");
}

// ---- bare transport flags ----

TEST_F(FirstMinutesTest, BareTransportFlagsPickLoopbackAddressesForTheLocalPair)
{
  for (const char* transport : {"tcp", "zmq", "uds", "nng"}) {
    if (!has(transport))
      continue;
    const auto sut = parse({"--local-pair", std::string("--") + transport});

    EXPECT_EQ(sut.config.transport_name, transport);
    EXPECT_FALSE(sut.transport->local_pair_arguments().publisher.empty()) << transport;
  }
}

TEST_F(FirstMinutesTest, ABareTransportFlagStillTakesAValue)
{
  const auto sut = parse({"-i", "0", "--tcp", "127.0.0.1:40000"});

  EXPECT_EQ(sut.config.transport_name, "tcp");
}

} // namespace
} // namespace netprof
