// The payload checks after the endpoint opened: the transport and the wire layer say what fits,
// the command line words the refusal, naming the options.

#include <netprof/cli.hpp>
#include <netprof/errors.hpp>
#include <netprof/wire.hpp>

#include <gtest/gtest.h>

#include <string>

namespace netprof {
namespace {

std::string refusal(const RunConfig& config, const EndpointFacts& facts)
{
  try {
    check_payload(config, facts);
  } catch (const UsageError& error) {
    return error.what();
  }
  return "(fits)";
}

EndpointFacts carrying(std::size_t max_message_size, std::string hint = "")
{
  EndpointFacts facts;
  facts.transport = "udp";
  facts.max_message_size = max_message_size;
  facts.size_hint = std::move(hint);
  return facts;
}

TEST(CheckPayload, APayloadTheTransportCannotCarryIsRefusedWithItsLimitAndHint)
{
  RunConfig config;
  config.payload_size = 1000;

  EXPECT_EQ(refusal(config, carrying(wire::header_size + 999, "a larger -q helps")),
            "-s 1000 is too large for udp: at most 999 B of payload per message (a larger -q "
            "helps)");
  EXPECT_EQ(refusal(config, carrying(wire::header_size + 1000)), "(fits)");
  EXPECT_EQ(refusal(config, carrying(10)),
            "-s 1000 is too large for udp: at most 0 B of payload per message");
}

// Shared memory's back rings hold 64 KiB whatever -q is: a full echo must fit the way back.
TEST(CheckPayload, AFullEchoLargerThanTheWayBackIsRefusedAtStart)
{
  RunConfig config;
  config.payload_size = 40'000;
  EndpointFacts facts = carrying(1'000'000);
  facts.transport = "shm";
  facts.max_received_message_size = wire::header_size + 32'708;

  EXPECT_EQ(refusal(config, facts), "(fits)"); // --echo record: 68 B come back
  config.echo = EchoSize::full;
  EXPECT_EQ(refusal(config, facts),
            "--echo full with -s 40000 is too large for shm's way back: at most 32708 B of "
            "payload per echo (use --echo record or a smaller -s)");
  config.payload_size = 32'708;
  EXPECT_EQ(refusal(config, facts), "(fits)");
}

TEST(CheckPayload, APublishersRecordsMustFitThePayload)
{
  RunConfig config;
  config.payload_size = 128;
  config.num_vars = 100;

  EXPECT_EQ(refusal(config, carrying(1 << 20)),
            "--num-vars 100 needs a payload of at least 1190 B; -s is 128");
  config.role = Role::subscriber;
  EXPECT_EQ(refusal(config, carrying(1 << 20)), "(fits)")
      << "a subscriber decodes whatever the header announces";
}

TEST(CheckPayload, APayloadBeyondTheWireFormatIsRefused)
{
  RunConfig config;
  config.payload_size = std::size_t{1} << 32;

  EXPECT_EQ(refusal(config, carrying(std::size_t{1} << 40)),
            "-s 4294967296 exceeds the wire format's limit of 4294967295 B");
}

} // namespace
} // namespace netprof
