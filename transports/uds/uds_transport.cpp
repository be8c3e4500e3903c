#include "uds_transport.hpp"

#include "uds_address.hpp"
#include "uds_sockets.hpp"

#include "common/address_plan.hpp"
#include "common/option_specs.hpp"
#include "common/socket_file.hpp"
#include "stream/stream_endpoint.hpp"
#include "stream/stream_limits.hpp"

#include <netprof/errors.hpp>

#include <algorithm>
#include <optional>
#include <string>

namespace netprof {

namespace {

constexpr std::size_t seqpacket = 0; // --uds-type seqpacket|stream
// A record is one allocation in the kernel, contiguous apart from 17 pages: beyond a few MiB it
// fails however large the buffers (measured: 4.26 MB on Linux 6.18 with -q 4 MiB).
constexpr std::size_t max_record_message = std::size_t{4} << 20;

const OptionGroup& uds_options()
{
  static const OptionGroup group{
      "Unix-domain sockets",
      {transport_common::naming_option(
           "uds", "PATH|@NAME",
           "Unix-domain socket on this host, one connection per subscriber: the publisher "
           "listens at PATH (a socket file made 0600 and removed at the end; a stale one "
           "nobody listens on is replaced, anything else there is refused) or at @NAME in "
           "Linux's abstract namespace (no file, so any local process may connect); "
           "subscribers connect to it. At most 107 bytes. --local-pair takes none (a "
           "fresh file in $TMPDIR) or one. Under --publishers, publisher k (k >= 1) "
           "listens at PATH.k.")
           .per_stream(StreamRule::name_suffix),
       OptionSpec("uds-type", "seqpacket|stream", Choice{{"seqpacket", "stream"}},
                  "seqpacket: each message one record, its boundaries kept by the kernel "
                  "(a message of up to -q bytes, at most 4 MiB); stream: a byte stream, each "
                  "message length-framed as over tcp (up to 16 MiB). Give both sides the same")
           .with_default("seqpacket")}};
  return group;
}

EffectiveQos uds_qos(const EndpointRequest& request)
{
  return qos::always_reliable(request.qos, "uds",
                              "a Unix-domain socket never drops a message: a full socket pushes "
                              "back on the publisher, which waits (it is reliable and keeps all)",
                              "the kernel never drops on a Unix-domain socket; a reader that "
                              "lags fills its socket's buffers (-q) and the publisher waits");
}

uds::UdsAddress parse_address(const std::optional<std::string>& given)
{
  if (!given) {
    throw UsageError("the uds transport needs the socket's place: --uds PATH (a socket file) "
                     "or --uds @NAME (abstract), the same for publisher and subscribers");
  }
  return uds::parse_uds_address(*given);
}

std::unique_ptr<Endpoint> open_uds(const uds::UdsAddress& where, bool kernel_records,
                                   const EndpointRequest& request)
{
  auto sockets = std::make_unique<uds::UdsSockets>(uds::UdsSettings{
      where, kernel_records ? SOCK_SEQPACKET : SOCK_STREAM, request.queue_length_bytes});
  const std::size_t granted = sockets->buffers().granted_send;
  // A record waits whole in its sender's buffer until read, and the kernel takes one only
  // when the buffer has room for all of it: one of -q bytes fits beside others queued.
  stream::StreamSetup setup{
      .transport = "uds",
      .role = request.role,
      .framing =
          kernel_records ? stream::Framing::kernel_records : stream::Framing::length_prefixed,
      .publisher_address = where.text,
      .limits = kernel_records
                    ? stream::stream_limits(request, std::min(granted, max_record_message),
                                            max_record_message)
                    : stream::stream_limits(request, stream::framed_sendable(granted),
                                            stream::max_framed_message),
      .notes = {kernel_records ? "SOCK_SEQPACKET: each message one record, kept whole by the "
                                 "kernel"
                               : "SOCK_STREAM: each message length-framed, as over tcp"},
      .size_hint = kernel_records
                       ? "a larger -q raises it, up to 4 MiB; --uds-type stream carries 16 MiB"
                       : "a larger -q raises it, up to 16 MiB",
      .sockets = std::move(sockets)};
  return std::make_unique<stream::StreamEndpoint>(std::move(setup));
}

LocalPairPlan local_pair_plan(const std::optional<std::string>& given, std::size_t subscribers)
{
  const std::string text =
      given ? parse_address(given).text
            : transport_common::temporary_socket_path("netprof-uds", "publisher", ".sock");
  LocalPairPlan arguments{
      {"--uds", text}, std::vector(subscribers, std::vector<std::string>{"--uds", text}), {}};
  if (text.front() != '@') {
    arguments.files.push_back(text);
  }
  return arguments;
}

TransportPlan plan_uds(const PlanRequest& request)
{
  const bool kernel_records = *request.values.choice(uds_options()["uds-type"]) == seqpacket;
  // None for a bare --uds too, which asks the local pair to pick the place.
  std::optional<std::string> given = request.values.text(uds_options()["uds"]);
  if (given && given->empty())
    given.reset();
  return transport_common::plan_pair_or_single(
      request, uds_qos, [&] { return local_pair_plan(given, request.pair_subscribers); },
      [&]() -> transport_common::SingleRolePlan {
        const uds::UdsAddress where = parse_address(given);
        return {{where.text}, [where, kernel_records](const EndpointRequest& endpoint) {
                  return open_uds(where, kernel_records, endpoint);
                }};
      });
}

} // namespace

TransportDescriptor uds_transport()
{
  return {.name = "uds",
          .summary = "Unix-domain sockets: --uds PATH or @NAME, where the publisher listens",
          .options = uds_options(),
          .also_reads = {},
          // Each endpoint owns its sockets and buffers; nothing is shared through the process.
          .flags = {.threads = true, .host_local = true, .sends_to_one = true},
          .remote_launch = std::nullopt,
          .plan = plan_uds};
}

} // namespace netprof
