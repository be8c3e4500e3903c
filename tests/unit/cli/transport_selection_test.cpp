// The registry-generic logic (several transports, conflicts, validation) with a fake
// transport beside the real UDP one. The fake lives here only.

#include <netprof/cli.hpp>
#include <netprof/errors.hpp>

#include <gtest/gtest.h>

#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace netprof {
namespace {

namespace po = boost::program_options;

// What the fake saw, shared with the test because the parser owns the transport.
struct FakeLog {
  std::optional<Role> validated_role;
};

class FakeTransport final : public Transport {
public:
  explicit FakeTransport(std::shared_ptr<FakeLog> log)
    : m_log(std::move(log)), m_options("Fake medium")
  {
    m_options.add_options()("fake", po::value<std::string>(&m_name)->value_name("NAME"),
                            "name of the fake medium");
  }

  po::options_description& options() override { return m_options; }

  bool selected(const po::variables_map& given) const override { return given.count("fake") != 0; }

  void validate(Role role) const override
  {
    m_log->validated_role = role;
    if (m_name == "bad") {
      throw UsageError("bad --fake value 'bad'");
    }
  }

  std::unique_ptr<Endpoint> open(const EndpointRequest&) override { return nullptr; }

  LocalPairArguments local_pair_arguments() const override { return {}; }

  const std::string& name() const { return m_name; }

private:
  std::shared_ptr<FakeLog> m_log;
  po::options_description m_options;
  std::string m_name;
};

class TransportSelectionTest : public ::testing::Test {
protected:
  ParsedCommandLine parse(const TransportRegistry& registry,
                          std::initializer_list<std::string> arguments) const
  {
    std::vector<std::string> storage{"netprof"};
    storage.insert(storage.end(), arguments);
    std::vector<const char*> argv;
    for (const auto& argument : storage) {
      argv.push_back(argument.c_str());
    }
    return parse_command_line(static_cast<int>(argv.size()), argv.data(), registry);
  }

  std::string usage_error(const TransportRegistry& registry,
                          std::initializer_list<std::string> arguments) const
  {
    try {
      parse(registry, arguments);
    } catch (const UsageError& error) {
      return error.what();
    }
    return "(parsed without error)";
  }

  void add_fake(TransportRegistry& registry) const
  {
    registry.add({"fake", "a fake medium for tests: --fake NAME",
                  [log = m_log] { return std::make_unique<FakeTransport>(log); }});
  }

  TransportRegistry with_udp_and_fake() const
  {
    TransportRegistry registry;
    register_builtin_transports(registry);
    add_fake(registry);
    return registry;
  }

  std::shared_ptr<FakeLog> m_log = std::make_shared<FakeLog>();
};

TEST_F(TransportSelectionTest, SelectsTheTransportWhoseOptionWasGiven)
{
  const auto registry = with_udp_and_fake();

  const auto sut = parse(registry, {"--fake", "m1"});

  EXPECT_EQ(sut.config.transport_name, "fake");
  const auto* fake = dynamic_cast<const FakeTransport*>(sut.transport.get());
  ASSERT_NE(fake, nullptr);
  EXPECT_EQ(fake->name(), "m1");
}

TEST_F(TransportSelectionTest, ValidatesTheSelectedTransportWithTheRole)
{
  const auto registry = with_udp_and_fake();

  parse(registry, {"-i", "2", "--fake", "m1"});

  EXPECT_EQ(m_log->validated_role, Role::subscriber);
}

TEST_F(TransportSelectionTest, PassesOnTheTransportsValidationMessage)
{
  const auto registry = with_udp_and_fake();

  EXPECT_EQ(usage_error(registry, {"--fake", "bad"}), "bad --fake value 'bad'");
}

TEST_F(TransportSelectionTest, RejectsTwoTransports)
{
  const auto registry = with_udp_and_fake();

  EXPECT_EQ(usage_error(registry, {"-u", "127.0.0.1:40000", "--fake", "m1"}),
            "conflicting transports: udp and fake; give only one");
}

TEST_F(TransportSelectionTest, LocalPairPrefersTheGivenTransport)
{
  const auto registry = with_udp_and_fake();

  const auto sut = parse(registry, {"--local-pair", "--fake", "m1"});

  EXPECT_EQ(sut.config.transport_name, "fake");
}

TEST_F(TransportSelectionTest, LocalPairWithoutUdpNeedsATransport)
{
  TransportRegistry registry;
  add_fake(registry);

  EXPECT_EQ(usage_error(registry, {"--local-pair"}),
            "--local-pair needs a transport: this build has no udp (see --help)");
}

TEST_F(TransportSelectionTest, WithoutTransportOptionsMulticastIsTheDefault)
{
  TransportRegistry registry;
  registry.add({"multicast", "a fake multicast for tests",
                [log = m_log] { return std::make_unique<FakeTransport>(log); }});

  const auto sut = parse(registry, {"-i", "1"});

  EXPECT_EQ(sut.config.transport_name, "multicast");
  EXPECT_EQ(m_log->validated_role, Role::subscriber);
}

TEST_F(TransportSelectionTest, WithoutTransportOptionsOrMulticastItAsksForOne)
{
  TransportRegistry registry;
  add_fake(registry);

  EXPECT_EQ(usage_error(registry, {"-i", "0"}), "no transport given: use -u host:port (see --help)");
}

TEST_F(TransportSelectionTest, ListTransportsPrintsOneNameAndSummaryPerLine)
{
  const auto registry = with_udp_and_fake();

  const auto sut = parse(registry, {"--list-transports"});

  EXPECT_EQ(sut.action, ParsedCommandLine::Action::list_transports);
  EXPECT_NE(sut.text.find("udp\tUDP unicast"), std::string::npos);
  EXPECT_NE(sut.text.find("fake\ta fake medium for tests: --fake NAME\n"), std::string::npos);
}

TEST_F(TransportSelectionTest, HelpListsEveryRegisteredTransport)
{
  const auto registry = with_udp_and_fake();

  const std::string sut = help_text(registry);

  EXPECT_NE(sut.find("\nudp  UDP unicast"), std::string::npos);
  EXPECT_NE(sut.find("\nfake  a fake medium for tests: --fake NAME"), std::string::npos);
  EXPECT_NE(sut.find("--fake NAME"), std::string::npos);
}

TEST_F(TransportSelectionTest, HelpPutsTransportsBeforeTheExitCodes)
{
  const auto registry = with_udp_and_fake();

  const std::string sut = help_text(registry);

  EXPECT_LT(sut.find("--fake NAME"), sut.find("Exit status:"));
}

} // namespace
} // namespace netprof
