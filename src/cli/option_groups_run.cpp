#include "option_fields.hpp"
#include "option_groups.hpp"
#include "option_rows.hpp"

namespace netprof::cli {

namespace {

constexpr char test_heading[] = "Test";

void add_message_size_and_length(std::vector<CoreOption>& rows)
{
  rows.insert(rows.end(),
              {
                  {test_heading,
                   spec("size,s", "BYTES", bytes(1, max_size), "128",
                        "payload bytes per message (>= 1; 1K = 1024, M and G too)"),
                   Readers::both, field<&RunConfig::payload_size>},
                  {test_heading,
                   spec("queue-length,q", "BYTES", bytes(0, max_size), "1000000",
                        "socket buffers or ring capacity in bytes; 0 = OS default"),
                   Readers::both, field<&RunConfig::queue_length>},
                  {test_heading,
                   spec("time,t", "SECONDS", positive_seconds(), "10",
                        "length of the measured phase; fractions allowed (0.001 to 86400)"),
                   Readers::publisher, field<&RunConfig::test_seconds>},
                  {test_heading,
                   spec("count", "N", whole(1, unbounded), std::nullopt,
                        "measure N messages instead of a time (>= 1)"),
                   Readers::both, field<&RunConfig::count>},
                  {test_heading,
                   spec("count-received", "N", whole(1, unbounded), std::nullopt,
                        "measure until every subscriber has received N measured messages "
                        "(ping-pong: round trips; at most -t, whose default is 10 s; a "
                        "subscriber short of N fails the run)",
                        PairRoute::publisher_only),
                   Readers::publisher, field<&RunConfig::count_received>},
              });
}

void add_sending(std::vector<CoreOption>& rows)
{
  rows.insert(
      rows.end(),
      {
          {test_heading,
           spec("send-hz", "HZ",
                RealNumber{0.0, true, max_hz,
                           "a rate in Hz from 0 to 1e9 (0 = as fast as possible)"},
                "0", "messages per second; 0 = as fast as possible (at most 1e9)"),
           Readers::publisher, field<&RunConfig::send_hz>},
          {test_heading,
           spec("pace", "sleep|spin|hybrid",
                Choice{{to_string(PaceMode::sleep), to_string(PaceMode::spin),
                        to_string(PaceMode::hybrid)}},
                to_string(PaceMode::hybrid),
                "with --send-hz, how the publisher waits for each message's due time: sleep "
                "(the wait strategy's wait; the kernel wakes it late), spin (polls; burns the "
                "core), hybrid (sleeps until shortly before, then polls)",
                PairRoute::publisher_only),
           Readers::publisher, field<&RunConfig::pace>},
          {test_heading,
           spec("num-vars", "N", whole(0, 65'535), "0",
                "variables per message (at most 65535); 0 = one opaque payload"),
           Readers::publisher, field<&RunConfig::num_vars>},
          {test_heading,
           spec("payload-fill", "once|every-message",
                Choice{{to_string(PayloadFill::once), to_string(PayloadFill::every_message)}},
                to_string(PayloadFill::once),
                "where the transport lends the memory a message is written into (iceoryx, shm): "
                "once writes the payload the first time a buffer is lent and then only the "
                "header, as iceperf does; every-message writes the whole payload every time, "
                "so the run measures that copy too",
                PairRoute::publisher_only),
           Readers::publisher, field<&RunConfig::payload_fill>},
          {test_heading,
           spec("payload-type", "bytes|struct|nested",
                Choice{{to_string(PayloadType::bytes), to_string(PayloadType::flat_struct),
                        to_string(PayloadType::nested)}},
                to_string(PayloadType::bytes),
                "the sample type a transport that serializes (dds) carries the payload in: "
                "bytes, opaque octets; struct, a flat struct with a fixed-size array; nested, a "
                "sequence of structs holding a string and numbers (docs/transport-dds.md). "
                "Refused by transports that move opaque bytes"),
           Readers::both, field<&RunConfig::payload_type>},
          {test_heading,
           spec("fanout", "all|round-robin",
                Choice{{to_string(Fanout::all), to_string(Fanout::round_robin)}},
                to_string(Fanout::all),
                "whom each data message goes to: all, every subscriber; round-robin, one "
                "subscriber in turn (as RMR and NNG push/pull deal them), each subscriber's loss "
                "counted against what was sent to it. Round-robin needs a transport that "
                "addresses subscribers one by one (udp, tcp, uds, mq), or nng pushpull, whose "
                "push0 deals them itself (then loss is counted in total)",
                PairRoute::publisher_only),
           Readers::publisher, field<&RunConfig::fanout>},
      });
}

void add_peers_and_warmup(std::vector<CoreOption>& rows)
{
  rows.insert(rows.end(),
              {
                  // The local pair starts its subscribers and tells its publisher so itself.
                  {test_heading,
                   spec("subscribers", "N", whole(0, 1'024), "1",
                        "the publisher waits for hellos from N subscribers; 0 = start at once (at "
                        "most 1024). With --local-pair: start N subscriber processes, a local "
                        "group (1 to 64)",
                        PairRoute::neither),
                   Readers::publisher, field<&RunConfig::subscribers>},
                  {test_heading,
                   spec("publishers", "P", whole(1, 16), "1",
                        "ids 0 to P-1 publish, each on a stream of its own (stream k: the "
                        "addresses given, each port moved up by k, each name given .k; publisher "
                        "p's is stream p, or p*T with --topics T), the others subscribe to all "
                        "P (at most 16). With --local-pair: start P publisher processes beside "
                        "the --subscribers"),
                   Readers::both, field<&RunConfig::publishers>},
                  {test_heading,
                   spec("lead", "HOST:PORT", Text{}, std::nullopt,
                        "under --publishers P run by hand: where publisher 0 listens (tcp) for "
                        "the other publishers' reports, and they send them, so that it prints "
                        "every publisher's; give every publisher the same, an address of "
                        "publisher 0's host. Without it they meet on this host only",
                        PairRoute::neither),
                   Readers::publisher, field<&RunConfig::lead>},
                  {test_heading,
                   spec("topics", "T", whole(1, 16), "1",
                        "each publisher sends T independent streams, each on addresses of its "
                        "own and a thread of its own, each measured apart: topic t of "
                        "publisher p moves the addresses given as stream p*T+t does under "
                        "--publishers (at most 16)"),
                   Readers::both, field<&RunConfig::topics>},
                  {test_heading,
                   spec("wait", "SECONDS", positive_seconds(), "10",
                        "how long either side waits for its peer (0.001 to 86400)"),
                   Readers::both, field<&RunConfig::wait_seconds>},
                  {test_heading,
                   spec("warmup-time", "SECONDS",
                        RealNumber{0.0, true, max_seconds, "seconds from 0 to 86400"}, "0.5",
                        "unmeasured warm-up before the measured phase"),
                   Readers::publisher, field<&RunConfig::warmup_seconds>},
                  {test_heading,
                   spec("warmup-count", "N", whole(0, unbounded), std::nullopt,
                        "warm up with N messages instead of a time"),
                   Readers::publisher, field<&RunConfig::warmup_count>},
              });
}

void add_loss(std::vector<CoreOption>& rows)
{
  rows.insert(
      rows.end(),
      {
          {test_heading,
           spec("max-loss", "PERCENT", RealNumber{0.0, true, 100.0, "a percentage from 0 to 100"},
                std::nullopt,
                "FAIL when a subscriber loses more than this share of messages (0 to 100)"),
           Readers::both, field<&RunConfig::max_loss_percent>},
          {test_heading,
           spec("drop-rate", "PERCENT", RealNumber{0.0, true, 100.0, "a percentage from 0 to 100"},
                "0",
                "subscriber: drop this share of received data before counting it (a known "
                "loss, to check loss handling against)",
                PairRoute::subscriber_only),
           Readers::subscriber, field<&RunConfig::drop_percent>},
          {test_heading,
           spec("drop-seed", "N", whole(0, unbounded), "1",
                "seed of --drop-rate's choice of messages: the same seed drops the same ones",
                PairRoute::subscriber_only),
           Readers::subscriber, field<&RunConfig::drop_seed>},
      });
}

} // namespace

void add_general(std::vector<CoreOption>& rows)
{
  const std::string heading = "General";
  const PairRoute none = PairRoute::neither;
  rows.insert(
      rows.end(),
      {
          {heading,
           switch_spec("help,h",
                       "print this help and exit; --help TRANSPORT: that transport's options; "
                       "--help all: every option",
                       none),
           Readers::none},
          {heading, switch_spec("version", "print the version and exit", none), Readers::none},
          {heading,
           switch_spec("list-transports",
                       "print the name and summary of every transport in "
                       "this build, one per line, and exit (for scripts); with --json, one "
                       "JSON object that also gives each transport's options and its "
                       "arguments on loopback, for a local pair and for a publisher and "
                       "--subscribers N subscribers",
                       none),
           Readers::none},
          {heading,
           spec("id,i", "N", whole(0, 65'535), "0",
                "0: the publisher; N >= 1: subscriber N (at most 65535)", none),
           Readers::both, field<&RunConfig::id>},
          {heading,
           switch_spec("local-pair",
                       "run a subscriber and a publisher as two processes on "
                       "loopback and print the publisher's report (transport: udp unless one "
                       "is given)",
                       none),
           Readers::none, field<&RunConfig::local_pair>},
          {heading,
           switch_spec("threads",
                       "with --local-pair: run the publisher and the subscriber as two threads "
                       "of one process, each with an endpoint of its own (zmq also over "
                       "inproc://).",
                       none),
           Readers::none, field<&RunConfig::threads>},
      });
}

void add_test(std::vector<CoreOption>& rows)
{
  add_message_size_and_length(rows);
  add_sending(rows);
  add_peers_and_warmup(rows);
  add_loss(rows);
}

} // namespace netprof::cli
