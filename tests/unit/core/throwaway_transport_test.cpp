// What adding a transport takes, shown with a throwaway one that exists only in this test: its
// code (a Transport with its option group and an Endpoint) plus one registration line. Nothing
// in the core or the command line names it, yet --help shows its options, the command line
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

class ThrowawayTransport final : public Transport {
public:
  explicit ThrowawayTransport(std::map<std::string, ThrowawayMedium>& media) : m_media(media) {}

  const OptionGroup& options() const override { return throwaway_options(); }

  void validate(Role) const override
  {
    if (name().empty())
      throw UsageError("--throwaway needs a NAME");
  }

  // An in-memory queue without a bound: nothing is lost, so reliable and keep-all.
  EffectiveQos effective_qos(const EndpointRequest& request) const override
  {
    return qos::always_reliable(request.qos, "throwaway", "an in-memory queue never drops",
                                "an unbounded in-memory queue");
  }

  std::unique_ptr<Endpoint> open(const EndpointRequest& request) override
  {
    ThrowawayMedium& medium = m_media[name()];
    if (request.role == Role::publisher)
      return std::make_unique<InMemoryEndpoint>(medium.to_publisher,
                                                std::vector{medium.to_subscriber}, Forwarding{});
    return std::make_unique<InMemoryEndpoint>(medium.to_subscriber,
                                              std::vector{medium.to_publisher}, Forwarding{});
  }

  LoopbackArguments loopback_arguments(std::size_t subscribers) const override
  {
    const std::vector<std::string> own = {"--throwaway", "pair"};
    return {own, std::vector(subscribers, own), {}};
  }

private:
  std::string name() const { return option_values().text(options()["throwaway"]).value_or(""); }

  std::map<std::string, ThrowawayMedium>& m_media;
};

class ThrowawayTransportTest : public ::testing::Test {
protected:
  ThrowawayTransportTest()
  {
    register_builtin_transports(registry);
    // The one registration line a new transport needs.
    registry.add({"throwaway", "a test's in-memory medium: --throwaway NAME",
                  [this] { return std::make_unique<ThrowawayTransport>(media); }});
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
}

TEST_F(ThrowawayTransportTest, APublisherAndASubscriberMeasureARunOverIt)
{
  ParsedCommandLine publisher = parse(
      {"-i", "0", "--throwaway", "run", "-t", "0.3", "--send-hz", "2000", "--warmup-count", "20"});
  ParsedCommandLine subscriber = parse({"-i", "1", "--throwaway", "run", "--wait", "5"});
  EndpointRequest request;
  request.role = Role::subscriber;
  request.id = 1;
  const auto subscriber_end = subscriber.transport->open(request);
  request.role = Role::publisher;
  request.id = 0;
  const auto publisher_end = publisher.transport->open(request);

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
