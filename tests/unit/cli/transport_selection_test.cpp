// The registry-generic logic (several transports, conflicts, validation) with a fake
// transport beside the real UDP one. The fake lives here only.

#include <netprof/cli.hpp>
#include <netprof/errors.hpp>
#include <netprof/wire.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace netprof {
namespace {

// What the fake saw, shared with the test because the parser plans the transport.
struct FakeLog {
  std::optional<PlanRole> planned_role; // whom it was last asked to plan for
  std::vector<std::string> also_reads;  // options of other groups it reads, like UDP's shared ones
  bool allows_threads = false;          // its TransportFlags::threads
  bool told_threads = false;            // it was told its roles are threads of one process
  std::vector<Role> asked_qos_for;      // the roles its QoS was planned for
  bool typed_payloads = false;          // its TransportFlags::typed_payloads
  std::optional<PayloadType> payload_type; // the --payload-type its endpoints were planned with
};

const OptionGroup& fake_options()
{
  static const OptionGroup group{
      "Fake medium",
      {OptionSpec("fake", "NAME", Text{}, "name of the fake medium").passed(PairRoute::neither)}};
  return group;
}

// Best-effort only, so a test can see a refusal reach the command line.
EffectiveQos fake_qos(FakeLog& log, const EndpointRequest& request)
{
  log.asked_qos_for.push_back(request.role);
  if (request.qos.reliability == Reliability::reliable)
    qos::refuse("--reliability reliable", "fake", "the fake medium loses what it likes");
  return {};
}

TransportPlan plan_fake(FakeLog& log, const PlanRequest& request)
{
  log.planned_role = request.role;
  log.told_threads = request.threads_of_one_process;
  log.payload_type = request.endpoint.payload_type;
  const std::string given = request.values.text(fake_options()["fake"]).value_or("");
  if (given == "bad")
    throw UsageError("bad --fake value 'bad'");
  TransportPlan plan;
  plan_qos(plan, request, [&](const EndpointRequest& endpoint) { return fake_qos(log, endpoint); });
  const std::string name = given.empty() ? "pair" : given;
  plan.addresses = {name};
  if (request.role == PlanRole::local_pair)
    plan.local_pair = {
        {"--fake", name},
        std::vector(request.pair_subscribers, std::vector<std::string>{"--fake", name}),
        {"/tmp/" + name}};
  return plan;
}

TransportDescriptor fake_transport(const std::shared_ptr<FakeLog>& log, std::string name,
                                   std::string summary)
{
  return {.name = std::move(name),
          .summary = std::move(summary),
          .options = fake_options(),
          .also_reads = log->also_reads,
          .flags = {.threads = log->allows_threads, .typed_payloads = log->typed_payloads},
          .remote_launch = std::nullopt,
          .plan = [log](const PlanRequest& request) { return plan_fake(*log, request); }};
}

class TransportSelectionTest : public ::testing::Test {
protected:
  ParsedCommandLine parse(const TransportRegistry& registry,
                          std::initializer_list<std::string> arguments,
                          PairLayout layout = PairLayout::none) const
  {
    std::vector<std::string> storage{"netprof"};
    storage.insert(storage.end(), arguments);
    std::vector<const char*> argv;
    for (const auto& argument : storage) {
      argv.push_back(argument.c_str());
    }
    return parse_command_line(static_cast<int>(argv.size()), argv.data(), registry, layout);
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
    registry.add(fake_transport(m_log, "fake", "a fake medium for tests: --fake NAME"));
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
  EXPECT_EQ(sut.plan.addresses, std::vector<std::string>{"m1"}) << "the fake's plan";
}

TEST_F(TransportSelectionTest, PlansTheSelectedTransportForTheRole)
{
  const auto registry = with_udp_and_fake();

  parse(registry, {"-i", "2", "--fake", "m1"});

  EXPECT_EQ(m_log->planned_role, PlanRole::subscriber);
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

TEST_F(TransportSelectionTest, RefusesAnOptionTheChosenTransportDoesNotRead)
{
  const auto registry = with_udp_and_fake();

  EXPECT_EQ(usage_error(registry, {"--fake", "m1", "--fragment-size", "1000"}),
            "--fragment-size does not apply to the fake transport (it is an option of udp, "
            "multicast and broadcast)");
}

TEST_F(TransportSelectionTest, RefusesAnOptionGivenAtItsDefaultValueToo)
{
  const auto registry = with_udp_and_fake();

  EXPECT_EQ(usage_error(registry, {"--fake", "m1", "--udp-batch", "1"}),
            "--udp-batch does not apply to the fake transport (it is an option of udp, "
            "multicast and broadcast)");
}

TEST_F(TransportSelectionTest, AcceptsAnOptionOfAnotherGroupThatTheTransportReads)
{
  m_log->also_reads = {"fragment-size"};
  const auto registry = with_udp_and_fake();

  const auto sut = parse(registry, {"--fake", "m1", "--fragment-size", "1000"});

  EXPECT_EQ(sut.config.transport_name, "fake");
}

TEST_F(TransportSelectionTest, ASettingBesideAnotherTransportsNameIsRefusedByName)
{
  // Each of these selects its own transport when given alone (--mc-ttl means multicast on
  // MADARA's group); beside another transport's name it is that transport's wrong option,
  // not a second transport.
  TransportRegistry registry;
  register_builtin_transports(registry);
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"-b", "127.255.255.255:4150", "--mc-ttl", "3"},
       "--mc-ttl does not apply to the broadcast transport (it is an option of multicast)"},
      {{"-u", "127.0.0.1:40000", "--mc-loopback", "off"},
       "--mc-loopback does not apply to the udp transport (it is an option of multicast)"},
      {{"-u", "127.0.0.1:40000", "--zmq-nodrop"},
       "--zmq-nodrop does not apply to the udp transport (it is an option of zmq)"},
      {{"-m", "239.255.0.1:4150", "--shm-history", "keep-all"},
       "--shm-history does not apply to the multicast transport (it is an option of shm)"},
      {{"--shm", "h", "--zmq-io-threads", "2"},
       "--zmq-io-threads does not apply to the shm transport (it is an option of zmq)"},
      {{"--zmq", "tcp://127.0.0.1:5555", "--reassembly-timeout", "2"},
       "--reassembly-timeout does not apply to the zmq transport (it is an option of udp, "
       "multicast and broadcast)"},
      {{"-u", "127.0.0.1:40000", "--dds-keys", "8"},
       "--dds-keys does not apply to the udp transport (it is an option of dds)"},
      {{"--fastdds", "t", "--dds-keys", "8"},
       "--dds-keys does not apply to the fastdds transport (it is an option of dds)"},
  };
  for (const auto& [arguments, expected] : cases) {
    std::vector<std::string> storage{"netprof"};
    storage.insert(storage.end(), arguments.begin(), arguments.end());
    std::vector<const char*> argv;
    for (const auto& argument : storage) {
      argv.push_back(argument.c_str());
    }
    std::string message = "(parsed without error)";
    try {
      parse_command_line(static_cast<int>(argv.size()), argv.data(), registry);
    } catch (const UsageError& error) {
      message = error.what();
    }
    EXPECT_EQ(message, expected) << arguments[0] << " " << arguments[2];
  }
}

TEST_F(TransportSelectionTest, EveryUdpModeTakesTheSharedUdpOptions)
{
  TransportRegistry registry;
  register_builtin_transports(registry);

  EXPECT_EQ(parse(registry, {"-m", "239.255.0.1:4150", "--udp-batch", "4"}).config.transport_name,
            "multicast");
  EXPECT_EQ(parse(registry, {"-u", "127.0.0.1:40000", "--udp-gso", "off"}).config.transport_name,
            "udp");
  EXPECT_EQ(parse(registry, {"--fragment-size", "1000"}).config.transport_name, "multicast");
  EXPECT_EQ(parse(registry, {"--local-pair", "--fragment-size", "1000"}).config.transport_name,
            "udp");
}

TEST_F(TransportSelectionTest, TwoTransportsSelectedOnlyBySettingsConflict)
{
  TransportRegistry registry;
  register_builtin_transports(registry);

  EXPECT_EQ(usage_error(registry, {"--mc-ttl", "3", "--zmq-nodrop"}),
            "conflicting transports: multicast and zmq; give only one");
}

TEST_F(TransportSelectionTest, LocalPairPlansThePairNotARole)
{
  // Each child plans its own arguments with its role; the parent is neither.
  const auto registry = with_udp_and_fake();

  const auto sut = parse(registry, {"--local-pair", "--fake", "m1"});

  EXPECT_EQ(m_log->planned_role, PlanRole::local_pair);
  EXPECT_EQ(sut.plan.local_pair.pair().subscriber, (std::vector<std::string>{"--fake", "m1"}));
}

TEST_F(TransportSelectionTest, APublishersOwnEndpointNeedsAPortOutsideTheLocalPair)
{
  TransportRegistry registry;
  register_builtin_transports(registry);

  EXPECT_EQ(usage_error(registry, {"-u", "127.0.0.1:0"})
                .rfind("bad -u value '127.0.0.1:0': a "
                       "publisher needs a port other "
                       "than 0",
                       0),
            0u);
  EXPECT_EQ(usage_error(registry, {"--zmq", "tcp://127.0.0.1:*"})
                .rfind("bad --zmq value 'tcp://127.0.0.1:*': a publisher needs", 0),
            0u);
  EXPECT_EQ(usage_error(registry, {"--zmq", "ipc://*"}).rfind("bad --zmq value 'ipc://*'", 0), 0u);
  // A subscriber may leave its own open; the local pair makes the publisher's definite.
  EXPECT_EQ(parse(registry, {"-i", "1", "-u", "127.0.0.1:0", "-u", "127.0.0.1:40000"})
                .config.transport_name,
            "udp");
  EXPECT_EQ(parse(registry, {"--local-pair", "--zmq", "tcp://127.0.0.1:*"}).config.transport_name,
            "zmq");
  EXPECT_EQ(parse(registry, {"--local-pair", "--zmq", "ipc://*"}).config.transport_name, "zmq");
}

TEST_F(TransportSelectionTest, ThreadsAreRefusedForATransportThatDoesNotAllowThem)
{
  const auto registry = with_udp_and_fake();

  const std::string message = usage_error(registry, {"--local-pair", "--threads", "--fake", "m1"});

  EXPECT_EQ(message.rfind("--threads: the fake transport cannot run its publisher and subscriber "
                          "as threads of one process (udp, ",
                          0),
            0u)
      << message;
  EXPECT_FALSE(m_log->planned_role) << "refused before planning";
}

TEST_F(TransportSelectionTest, PayloadTypesAreRefusedByATransportThatMovesOpaqueBytes)
{
  const auto registry = with_udp_and_fake();

  for (const std::string type : {"struct", "nested"}) {
    const std::string message =
        usage_error(registry, {"-u", "127.0.0.1:4000", "--payload-type", type});

    EXPECT_EQ(message.rfind("--payload-type " + type + ": the udp transport moves opaque bytes", 0),
              0u)
        << message;
  }
  EXPECT_EQ(usage_error(registry, {"--local-pair", "--fake", "m1", "--payload-type", "nested"})
                .rfind("--payload-type nested: the fake transport moves opaque bytes", 0),
            0u);
  EXPECT_FALSE(m_log->planned_role) << "refused before planning";
}

TEST_F(TransportSelectionTest, BytesIsEveryTransportsPayloadType)
{
  const auto registry = with_udp_and_fake();

  const auto sut = parse(registry, {"--fake", "m1", "--payload-type", "bytes"});

  EXPECT_EQ(sut.config.payload_type, PayloadType::bytes);
  EXPECT_EQ(m_log->payload_type, PayloadType::bytes);
}

TEST_F(TransportSelectionTest, ATransportThatSerializesIsPlannedWithThePayloadType)
{
  m_log->typed_payloads = true;
  const auto registry = with_udp_and_fake();

  const auto sut = parse(registry, {"--local-pair", "--fake", "m1", "--payload-type", "struct"});

  EXPECT_EQ(sut.config.payload_type, PayloadType::flat_struct);
  EXPECT_EQ(m_log->payload_type, PayloadType::flat_struct) << "its endpoints will be asked for it";
}

TEST_F(TransportSelectionTest, ATransportThatAllowsThreadsIsToldBeforeItDerivesArguments)
{
  m_log->allows_threads = true;
  const auto registry = with_udp_and_fake();

  const auto pair = parse(registry, {"--local-pair", "--threads", "--fake", "m1"});

  EXPECT_TRUE(pair.config.threads);
  EXPECT_EQ(m_log->planned_role, PlanRole::local_pair);
  EXPECT_TRUE(m_log->told_threads);
  EXPECT_EQ(pair.config.pair_layout, PairLayout::none) << "the parent is no role";
}

TEST_F(TransportSelectionTest, ARoleOfAThreadPairIsParsedAsOne)
{
  m_log->allows_threads = true;
  const auto registry = with_udp_and_fake();

  const auto role = parse(registry, {"-i", "1", "--fake", "m1"}, PairLayout::threads);

  EXPECT_EQ(role.config.pair_layout, PairLayout::threads);
  EXPECT_EQ(m_log->planned_role, PlanRole::subscriber);
  EXPECT_TRUE(m_log->told_threads);
  parse(registry, {"-i", "1", "--fake", "m1"});
  EXPECT_FALSE(m_log->told_threads) << "a role on its own is a process of its own";
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
  registry.add(fake_transport(m_log, "multicast", "a fake multicast for tests"));

  const auto sut = parse(registry, {"-i", "1"});

  EXPECT_EQ(sut.config.transport_name, "multicast");
  EXPECT_EQ(m_log->planned_role, PlanRole::subscriber);
}

TEST_F(TransportSelectionTest, WithoutTransportOptionsOrMulticastItAsksForOne)
{
  TransportRegistry registry;
  add_fake(registry);

  EXPECT_EQ(usage_error(registry, {"-i", "0"}),
            "no transport given: use -u host:port (see --help)");
}

TEST_F(TransportSelectionTest, ListTransportsPrintsOneNameAndSummaryPerLine)
{
  const auto registry = with_udp_and_fake();

  const auto sut = parse(registry, {"--list-transports"});

  EXPECT_EQ(sut.action, ParsedCommandLine::Action::list_transports);
  EXPECT_NE(sut.text.find("udp\tUDP unicast"), std::string::npos);
  EXPECT_NE(sut.text.find("fake\ta fake medium for tests: --fake NAME\n"), std::string::npos);
}

TEST_F(TransportSelectionTest, ListTransportsAsJsonGivesWhatScriptsNeedOfEachTransport)
{
  m_log->also_reads = {"fragment-size"};
  const auto registry = with_udp_and_fake();

  // --json takes a FILE everywhere else; beside --list-transports, given bare, it asks for JSON.
  for (const auto& arguments :
       {std::initializer_list<std::string>{"--list-transports", "--json"},
        std::initializer_list<std::string>{"--json", "--list-transports"}}) {
    const auto sut = parse(registry, arguments);

    EXPECT_EQ(sut.action, ParsedCommandLine::Action::list_transports);
    const auto listing = nlohmann::json::parse(sut.text);
    EXPECT_EQ(listing["schema_version"], 1);
    EXPECT_EQ(listing["version"], NETPROF_VERSION);
    EXPECT_EQ(listing["wire_header_bytes"], wire::header_size);
    EXPECT_EQ(listing["wire_echo_bytes"], wire::header_size + wire::echo_stamps_size);
    const auto& fake = listing["transports"].back();
    EXPECT_EQ(fake["name"], "fake");
    EXPECT_EQ(fake["summary"], "a fake medium for tests: --fake NAME");
    EXPECT_EQ(fake["named_by"]["option"], "--fake");
    EXPECT_EQ(fake["named_by"]["value_optional"], false) << "--fake takes a NAME";
    EXPECT_EQ(fake["options"], (std::vector<std::string>{"fake", "fragment-size"}))
        << "its own options, then those of other groups it reads";
    EXPECT_EQ(fake["local_pair"]["publisher"], (std::vector<std::string>{"--fake", "pair"}));
    EXPECT_EQ(fake["local_pair"]["subscriber"], (std::vector<std::string>{"--fake", "pair"}));
    EXPECT_EQ(fake["loopback"]["subscribers"].size(), 1u);
    EXPECT_EQ(fake["loopback"]["files"], std::vector<std::string>{"/tmp/pair"});
    EXPECT_EQ(fake["needs_private_netns"], false);
    EXPECT_EQ(fake["allows_threads"], false);
    EXPECT_EQ(listing["transports"][0]["allows_threads"], true); // udp
    EXPECT_EQ(listing["transports"][1]["name"], "multicast");
    EXPECT_EQ(listing["transports"][1]["needs_private_netns"], true);
    EXPECT_EQ(fake["flags"], nlohmann::json::parse(R"({"threads": false, "private_netns": false,
                                                       "pair_service": false,
                                                       "host_local": false,
                                                       "typed_payloads": false,
                                                       "sends_to_one": false,
                                                       "deals_in_turn": false})"));
    EXPECT_TRUE(fake["remote_launch"].is_null()) << "it gave no template";
    EXPECT_EQ(listing["transports"][1]["flags"]["private_netns"], true); // multicast
    EXPECT_EQ(listing["transports"][0]["remote_launch"]["subscriber"],
              (std::vector<std::string>{"-u", "{own}", "-u", "{publisher}"})); // udp
  }
}

TEST_F(TransportSelectionTest, ListTransportsAsJsonDerivesLoopbackArgumentsFromWhatWasGiven)
{
  const auto registry = with_udp_and_fake();

  const auto sut =
      parse(registry, {"--list-transports", "--json", "--subscribers", "2", "--fake", "medium"});

  const auto fake = nlohmann::json::parse(sut.text)["transports"].back();
  const std::vector<std::string> arguments = {"--fake", "medium"};
  EXPECT_EQ(fake["loopback"]["publisher"], arguments);
  EXPECT_EQ(fake["loopback"]["subscribers"],
            (std::vector<std::vector<std::string>>{arguments, arguments}));
  EXPECT_EQ(fake["local_pair"]["subscriber"], arguments);
}

TEST_F(TransportSelectionTest, HelpListsEveryRegisteredTransport)
{
  const auto registry = with_udp_and_fake();

  const std::string sut = help_text(registry);

  EXPECT_NE(sut.find("\n  udp "), std::string::npos) << sut;
  EXPECT_NE(sut.find("UDP unicast"), std::string::npos) << sut;
  EXPECT_NE(sut.find("\n  fake "), std::string::npos) << sut;
  EXPECT_NE(sut.find("a fake medium for tests: --fake NAME"), std::string::npos) << sut;
  EXPECT_NE(help_text(registry, "all").find("--fake NAME"), std::string::npos);
  EXPECT_NE(help_text(registry, "fake").find("--fake NAME"), std::string::npos);
}

TEST_F(TransportSelectionTest, HelpAllPutsTransportsBeforeTheExitCodes)
{
  const auto registry = with_udp_and_fake();

  const std::string sut = help_text(registry, "all");

  EXPECT_LT(sut.find("--fake NAME"), sut.find("Exit status:"));
}

TEST_F(TransportSelectionTest, AsksTheTransportWhatTheQosMeansForTheRoleItRuns)
{
  const auto registry = with_udp_and_fake();

  const auto sut = parse(registry, {"-i", "3", "--fake", "m1", "--reliability", "best-effort"});

  EXPECT_EQ(m_log->asked_qos_for, std::vector<Role>{Role::subscriber});
  EXPECT_EQ(sut.config.qos.reliability, Reliability::best_effort);
  EXPECT_FALSE(sut.config.qos.history.has_value());
}

TEST_F(TransportSelectionTest, AsksAboutBothRolesForTheLocalPair)
{
  const auto registry = with_udp_and_fake();

  parse(registry, {"--local-pair", "--fake", "m1", "--history", "keep-last:8"});

  EXPECT_EQ(m_log->asked_qos_for, (std::vector<Role>{Role::publisher, Role::subscriber}));
}

TEST_F(TransportSelectionTest, PassesOnTheTransportsQosRefusal)
{
  const auto registry = with_udp_and_fake();

  EXPECT_EQ(usage_error(registry, {"--fake", "m1", "--reliability", "reliable"}),
            "--reliability reliable is not available on fake: the fake medium loses what it "
            "likes");
}

TEST_F(TransportSelectionTest, TheLocalPairPassesTheQosToBothProcesses)
{
  const auto registry = with_udp_and_fake();

  const auto sut = parse(registry, {"--local-pair", "--fake", "m1", "--reliability", "best-effort",
                                    "--history=keep-last:4"});

  const std::vector<std::string> expected = {"--reliability", "best-effort",
                                             "--history=keep-last:4"};
  EXPECT_EQ(sut.local_pair_options.publisher, expected);
  EXPECT_EQ(sut.local_pair_options.subscriber, expected);
}

} // namespace
} // namespace netprof
