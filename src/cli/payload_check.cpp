// The payload checks once the endpoint is open: the wire layer and the transport say what
// fits, in numbers and statuses; the messages, which name the options, are worded here.

#include <netprof/cli.hpp>
#include <netprof/errors.hpp>
#include <netprof/records.hpp>
#include <netprof/wire.hpp>

#include <string>

namespace netprof {

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
  // Only the publisher lays records out; a subscriber decodes whatever the header announces.
  if (config.role != Role::publisher) {
    return;
  }
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
