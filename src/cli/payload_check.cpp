// The payload checks once the endpoint is open: the wire layer and the transport say what
// fits, in numbers and statuses; the messages, which name the options, are worded here.

#include <netprof/cli.hpp>
#include <netprof/errors.hpp>
#include <netprof/records.hpp>
#include <netprof/wire.hpp>

#include <string>

namespace netprof {

namespace {

// --echo full sends each probe's size back: the way back must take it too.
void check_full_echo(const RunConfig& config, const EndpointFacts& facts)
{
  if (config.echo != EchoSize::full || facts.max_received_message_size == 0)
    return;
  const std::size_t echo = wire::header_size + wire::full_echo_payload_size(config.payload_size);
  if (echo <= facts.max_received_message_size)
    return;
  const std::size_t back = facts.max_received_message_size > wire::header_size
                               ? facts.max_received_message_size - wire::header_size
                               : 0;
  throw UsageError("--echo full with -s " + std::to_string(config.payload_size) +
                   " is too large for " + facts.transport + "'s way back: at most " +
                   std::to_string(back) +
                   " B of payload per echo (use --echo record or a "
                   "smaller -s)");
}

} // namespace

void check_payload(const RunConfig& config, const EndpointFacts& facts)
{
  const std::size_t limit =
      facts.max_message_size > wire::header_size ? facts.max_message_size - wire::header_size : 0;
  const std::string size = std::to_string(config.payload_size);
  if (config.payload_size > limit) {
    throw UsageError("-s " + size + " is too large for " + facts.transport + ": at most " +
                     std::to_string(limit) + " B of payload per message" +
                     (facts.size_hint.empty() ? std::string() : " (" + facts.size_hint + ")"));
  }
  // Only the publisher lays records out and asks for full echoes; a subscriber decodes
  // whatever the header announces and echoes what it is asked.
  if (config.role != Role::publisher) {
    return;
  }
  check_full_echo(config, facts);
  switch (RecordLayout::check(config.payload_size, config.num_vars)) {
  case LayoutStatus::fits:
    return;
  case LayoutStatus::beyond_wire_limit:
    throw UsageError("-s " + size + " exceeds the wire format's limit of " +
                     std::to_string(RecordLayout::max_payload_size) + " B");
  case LayoutStatus::too_small_for_records:
    throw UsageError(
        "--num-vars " + std::to_string(config.num_vars) + " needs a payload of at least " +
        std::to_string(RecordLayout::minimum_payload_size(config.num_vars)) + " B; -s is " + size);
  }
}

} // namespace netprof
