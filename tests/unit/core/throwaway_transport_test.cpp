// What adding a transport takes, shown with a throwaway one that exists only in this test: its
// code (a descriptor with its option group and plan, and an Endpoint) plus one registration line.
// Nothing in the core or the command line names it, yet --help shows its options, the command line
// chooses it, --list-transports --json gives its loopback arguments, and a publisher and a
// subscriber measure a whole run over it. (In the tree, the CMake call netprof_add_transport()
// is the third and last piece; docs/transports.md, "Adding a transport".)

#include "in_memory_link.hpp"
#include "role_thread.hpp"

#include <netprof/cli.hpp>
#include <netprof/errors.hpp>

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace netprof::testing {
namespace {

// Its media: a pair of queues per --throwaway NAME, shared by the endpoints opened on it.
struct ThrowawayMedium {
  std::shared_ptr<MessageQueue> to_subscriber = std::make_shared<MessageQueue>();
  std::shared_ptr<MessageQueue> to_publisher = std::make_shared<MessageQueue>();
};

const OptionGroup& throwaway_options()
{
  static const OptionGroup group{
      "Throwaway (a test's)",
      {OptionSpec("throwaway", "NAME", Text{}, "an in-memory medium of this test")
           .passed(PairRoute::neither)}};
  return group;
}

// Its plan: the NAME parsed once, refused here when missing; each endpoint opened on the medium
// of that name.
TransportPlan plan_throwaway(std::map<std::string, ThrowawayMedium>& media,
                             const PlanRequest& request)
{
  const std::string name = request.values.text(throwaway_options()["throwaway"]).value_or("");
  TransportPlan plan;
  // An in-memory queue without a bound: nothing is lost, so reliable and keep-all.
  plan_qos(plan, request, [](const EndpointRequest& endpoint) {
    return qos::always_reliable(endpoint.qos, "throwaway", "an in-memory queue never drops",
                                "an unbounded in-memory queue");
  });
  if (request.role == PlanRole::local_pair) {
    const std::vector<std::string> own = {"--throwaway", "pair"};
    plan.local_pair = {own, std::vector(request.pair_subscribers, own), {}};
    return plan;
  }
  if (name.empty())
    throw UsageError("--throwaway needs a NAME");
  plan.addresses = {name};
  plan.opener = [&media, name](const EndpointRequest& endpoint) -> std::unique_ptr<Endpoint> {
    ThrowawayMedium& medium = media[name];
    if (endpoint.role == Role::publisher)
      return std::make_unique<InMemoryEndpoint>(medium.to_publisher,
                                                std::vector{medium.to_subscriber}, Forwarding{});
    return std::make_unique<InMemoryEndpoint>(medium.to_subscriber,
                                              std::vector{medium.to_publisher}, Forwarding{});
  };
  return plan;
}

class ThrowawayTransportTest : public ::testing::Test {
protected:
  ThrowawayTransportTest()
  {
    register_builtin_transports(registry);
    // The one registration line a new transport needs (in the tree, its descriptor comes from a
    // function in its folder, as udp_transport() does).
    registry.add(
        {.name = "throwaway",
         .summary = "a test's in-memory medium: --throwaway NAME",
         .options = throwaway_options(),
         .also_reads = {},
         .flags = {.threads = true, .host_local = true},
         .remote_launch = std::nullopt,
         .plan = [this](const PlanRequest& request) { return plan_throwaway(media, request); }});
  }

  ParsedCommandLine parse(std::vector<const char*> arguments) const
  {
    arguments.insert(arguments.begin(), "netprof");
    return parse_command_line(static_cast<int>(arguments.size()), arguments.data(), registry);
  }

  std::map<std::string, ThrowawayMedium> media;
  TransportRegistry registry;
};

TEST_F(ThrowawayTransportTest, HelpShowsItsOptionGroup)
{
  const std::string help = help_text(registry, "all");
  EXPECT_NE(help.find("throwaway  a test's in-memory medium"), std::string::npos) << help;
  EXPECT_NE(help.find("--throwaway NAME"), std::string::npos);
  EXPECT_NE(help_text(registry, "throwaway").find("--throwaway NAME"), std::string::npos);
}

TEST_F(ThrowawayTransportTest, ItsOptionChoosesItAndAnotherTransportsOptionIsRefused)
{
  EXPECT_EQ(parse({"-i", "1", "--throwaway", "m"}).config.transport_name, "throwaway");
  try {
    parse({"--throwaway", "m", "--mc-ttl", "0"});
    FAIL() << "--mc-ttl beside --throwaway was accepted";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("does not apply to the throwaway transport"),
              std::string::npos)
        << error.what();
  }
}

TEST_F(ThrowawayTransportTest, ItsPlanRefusesWhatCannotRunBeforeAnythingOpens)
{
  try {
    parse({"-i", "0", "--throwaway", ""});
    FAIL() << "a publisher without a NAME was planned";
  } catch (const UsageError& error) {
    EXPECT_STREQ(error.what(), "--throwaway needs a NAME");
  }
  EXPECT_TRUE(media.empty()) << "nothing was opened";
  const ParsedCommandLine pair = parse({"--local-pair", "--throwaway", "", "--threads"});
  EXPECT_EQ(pair.plan.local_pair.pair().subscriber,
            (std::vector<std::string>{"--throwaway", "pair"}));
  EXPECT_EQ(pair.plan.qos(Role::subscriber).reliability, Reliability::reliable);
}

// Its option names no address per stream, so --publishers and --topics are refused, naming the
// transports that have one (every built-in one does).
TEST_F(ThrowawayTransportTest, WithoutAnAddressPerStreamItTakesOnePublisherAndOneTopic)
{
  for (const char* option : {"--publishers", "--topics"}) {
    try {
      parse({"-i", "0", option, "2", "--throwaway", "m"});
      FAIL() << option << " 2 was accepted";
    } catch (const UsageError& error) {
      const std::string what = error.what();
      EXPECT_EQ(what.rfind(std::string(option) + " 2: the throwaway transport has no address of "
                                                 "its own for each",
                           0),
                0u)
          << what;
      EXPECT_NE(what.find("multicast"), std::string::npos) << what;
    }
  }
}

TEST_F(ThrowawayTransportTest, ListingGivesItsLoopbackArguments)
{
  const ParsedCommandLine parsed = parse({"--list-transports", "--json", "--subscribers", "2"});
  ASSERT_EQ(parsed.action, ParsedCommandLine::Action::list_transports);
  const auto listing = nlohmann::json::parse(parsed.text);
  const auto& transports = listing.at("transports");
  const auto throwaway = std::find_if(transports.begin(), transports.end(),
                                      [](const auto& t) { return t.at("name") == "throwaway"; });
  ASSERT_NE(throwaway, transports.end()) << parsed.text;
  EXPECT_EQ((*throwaway)["loopback"]["subscribers"].size(), 2u);
  EXPECT_EQ((*throwaway)["loopback"]["publisher"], nlohmann::json::array({"--throwaway", "pair"}));
  EXPECT_EQ((*throwaway)["flags"]["threads"], true);
  EXPECT_EQ((*throwaway)["flags"]["host_local"], true);
  EXPECT_EQ((*throwaway)["flags"]["pair_service"], false);
  EXPECT_TRUE((*throwaway)["remote_launch"].is_null()) << "it runs on one host only";
}

TEST_F(ThrowawayTransportTest, APublisherAndASubscriberMeasureARunOverIt)
{
  ParsedCommandLine publisher = parse(
      {"-i", "0", "--throwaway", "run", "-t", "0.3", "--send-hz", "2000", "--warmup-count", "20"});
  ParsedCommandLine subscriber = parse({"-i", "1", "--throwaway", "run", "--wait", "5"});
  EndpointRequest request;
  request.role = Role::subscriber;
  request.id = 1;
  const auto subscriber_end = subscriber.plan.open(request);
  request.role = Role::publisher;
  request.id = 0;
  const auto publisher_end = publisher.plan.open(request);
  ASSERT_EQ(media.size(), 1u) << "both opened on the medium their plans named";

  RoleThread subscriber_role;
  subscriber_role.start_subscriber(subscriber.config, *subscriber_end);
  RoleThread publisher_role;
  publisher_role.start_publisher(publisher.config, *publisher_end);
  const RoleResult published = publisher_role.result.get();
  const RoleResult received = subscriber_role.result.get();

  EXPECT_EQ(published.status, ExitStatus::passed);
  EXPECT_TRUE(published.report.success);
  ASSERT_EQ(published.report.subscribers.size(), 1u);
  EXPECT_GT(published.report.messages_sent, 0u);
  EXPECT_EQ(published.report.subscribers[0].counters.received, published.report.messages_sent);
  EXPECT_GT(published.report.echoes_received, 0u);
  EXPECT_EQ(received.status, ExitStatus::passed);
}

} // namespace
} // namespace netprof::testing
