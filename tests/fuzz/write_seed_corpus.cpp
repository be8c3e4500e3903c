// Writes the fuzz targets' seed corpus from the real encoders: valid messages and fragments of
// every kind, and the edge cases just inside and just outside each rule. Run by hand when a
// format changes (docs/hardening.md):
//   build-fuzz/tests/fuzz/fuzz_write_seeds tests/fuzz/corpus
// Files are named after what they hold; existing files of the same name are overwritten.

#include "reassembler_script.hpp"

#include "udp/fragmenter.hpp"

#include <netprof/records.hpp>
#include <netprof/wire.hpp>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
namespace wire = netprof::wire;
namespace udp = netprof::udp;
using netprof::fuzz::ScriptWriter;
using Bytes = std::vector<std::byte>;

class CorpusDir {
public:
  CorpusDir(const fs::path& root, const std::string& target) : m_dir(root / target)
  {
    fs::create_directories(m_dir);
  }

  void write(const std::string& name, std::span<const std::byte> data)
  {
    std::ofstream out(m_dir / name, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data.data()),
              static_cast<std::streamsize>(data.size()));
    if (!out) {
      throw std::runtime_error("cannot write " + (m_dir / name).string());
    }
  }

private:
  fs::path m_dir;
};

Bytes message(const wire::Header& header, std::span<const std::byte> payload)
{
  Bytes out(wire::header_size + payload.size());
  wire::Header h = header;
  h.payload_length = static_cast<std::uint32_t>(payload.size());
  wire::encode_header(h, out);
  std::copy(payload.begin(), payload.end(), out.begin() + wire::header_size);
  return out;
}

Bytes records(std::size_t size, std::uint32_t count)
{
  Bytes out(size);
  netprof::RecordLayout(size, count).write(out);
  return out;
}

wire::Header header_of(wire::MessageKind kind, std::uint32_t sender, std::uint64_t sequence,
                       std::uint16_t flags = 0)
{
  wire::Header h;
  h.kind = kind;
  h.flags = flags;
  h.sender_id = sender;
  h.run_id = 0x1122334455667788;
  h.sequence = sequence;
  h.intended_ns = 1'000'000'000;
  h.sent_ns = 1'000'000'750;
  return h;
}

void write_wire_header(CorpusDir dir)
{
  using wire::MessageKind;
  const Bytes none;
  const Bytes opaque = records(16, 0);

  wire::Header hello = header_of(MessageKind::hello, 1, 0);
  hello.run_id = 0;
  dir.write("hello", message(hello, none));
  dir.write("hello_ack", message(header_of(MessageKind::hello_ack, 0, 1), none));
  dir.write("data_probe_opaque",
            message(header_of(MessageKind::data, 0, 7, wire::flags::probe), opaque));
  dir.write("data_warmup_empty",
            message(header_of(MessageKind::data, 0, 0, wire::flags::warmup), none));
  wire::Header with_records = header_of(MessageKind::data, 0, 8);
  with_records.record_count = 3;
  dir.write("data_records_3", message(with_records, records(64, 3)));
  dir.write("echo", message(header_of(MessageKind::echo, 2, 7, wire::flags::probe), none));
  Bytes stamps(wire::echo_stamps_size);
  wire::encode_echo_stamps({5'000'000'000, 5'000'002'000}, stamps);
  dir.write("echo_stamped",
            message(header_of(MessageKind::echo, 2, 7, wire::flags::probe), stamps));
  wire::encode_echo_stamps({5'000'002'000, 5'000'000'000}, stamps);
  dir.write("echo_stamps_backwards",
            message(header_of(MessageKind::echo, 2, 7, wire::flags::probe), stamps));
  dir.write("end", message(header_of(MessageKind::end, 0, 1000), none));
  wire::SubscriberCounters counters;
  counters.received = 1000;
  counters.unique = 999;
  counters.duplicates = 1;
  counters.wire_bytes = 68'000;
  counters.records_decoded = 3000;
  Bytes encoded_counters(wire::final_counters_size);
  wire::encode_counters(counters, encoded_counters);
  dir.write("final_counters_departing",
            message(header_of(MessageKind::final_counters, 1, 0, wire::flags::departing),
                    encoded_counters));
  dir.write("final_ack", message(header_of(MessageKind::final_ack, 0, 1), none));
  dir.write("progress", message(header_of(MessageKind::progress, 1, 10'000), none));

  // Just outside each rule.
  Bytes valid = message(header_of(MessageKind::data, 0, 9), opaque);
  dir.write("truncated_header", std::span(valid).first(wire::header_size - 1));
  Bytes bad = valid;
  bad[0] = std::byte{'X'};
  dir.write("bad_magic", bad);
  bad = valid;
  bad[4] = std::byte{2};
  dir.write("bad_version", bad);
  bad = valid;
  bad[5] = std::byte{0};
  dir.write("kind_0", bad);
  bad[5] = std::byte{8};
  dir.write("kind_8", bad);
  bad = valid;
  bad[6] = std::byte{0x08};
  dir.write("unknown_flag", bad);
  bad = valid;
  bad[44] = std::byte{15};
  dir.write("payload_length_one_short", bad);
  bad = valid;
  std::memset(bad.data() + 44, 0xff, 4);
  dir.write("payload_length_max", bad);
  Bytes short_counters(encoded_counters.begin(), encoded_counters.end() - 1);
  dir.write("final_counters_one_short",
            message(header_of(MessageKind::final_counters, 1, 0), short_counters));
  wire::Header too_many = with_records;
  too_many.record_count = 0xFFFFFFFF;
  dir.write("data_record_count_max", message(too_many, records(64, 3)));
  dir.write("empty", none);
}

Bytes records_input(std::uint8_t expected, std::uint8_t announced,
                    std::span<const std::byte> payload)
{
  Bytes out{std::byte{expected}, std::byte{announced}};
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

void write_wire_records(CorpusDir dir)
{
  const Bytes three = records(64, 3);
  dir.write("three_records", records_input(3, 3, three));
  dir.write("one_record_minimum",
            records_input(1, 1, records(netprof::RecordLayout::minimum_payload_size(1), 1)));
  dir.write("twelve_records", records_input(12, 12, records(300, 12)));
  dir.write("opaque", records_input(0, 0, records(16, 0)));
  dir.write("count_mismatch", records_input(3, 2, three));
  dir.write("truncated", records_input(3, 3, std::span(three).first(three.size() - 1)));
  Bytes trailing = three;
  trailing.push_back(std::byte{0});
  dir.write("trailing_byte", records_input(3, 3, trailing));
  Bytes long_name = three;
  long_name[0] = long_name[1] = std::byte{0xff};
  dir.write("name_length_max", records_input(3, 3, long_name));
  Bytes long_value = three;
  std::memset(long_value.data() + 2 + 4, 0xff, 4); // after "var0"
  dir.write("value_length_max", records_input(3, 3, long_value));
  Bytes renamed = three;
  renamed[2 + 3] = std::byte{'9'}; // var0 -> var9: framed well, but not a name the reader knows
  dir.write("unknown_name", records_input(3, 3, renamed));
}

// A real message split by the sender's Fragmenter, each fragment as a raw datagram.
std::vector<Bytes> fragmenter_datagrams(std::size_t size, std::size_t fragment_size,
                                        std::uint32_t id)
{
  Bytes whole(size);
  for (std::size_t i = 0; i < size; ++i) {
    whole[i] = static_cast<std::byte>(i * 7);
  }
  udp::Fragmenter fragmenter(fragment_size, 64);
  const std::size_t count = fragmenter.prepare(whole, id, 0);
  std::vector<Bytes> out;
  for (std::size_t i = 0; i < count; ++i) {
    const iovec* v = fragmenter.iovecs() + 2 * i;
    Bytes datagram;
    for (int part = 0; part < 2; ++part) {
      const auto* p = static_cast<const std::byte*>(v[part].iov_base);
      datagram.insert(datagram.end(), p, p + v[part].iov_len);
    }
    out.push_back(std::move(datagram));
  }
  return out;
}

std::span<const std::byte> after_magic(const Bytes& datagram)
{
  return std::span(datagram).subspan(sizeof udp::fragment_magic);
}

void write_udp_reassembler(CorpusDir dir)
{
  {
    ScriptWriter s(4, 8192, 100);
    for (std::uint16_t i = 0; i < 3; ++i) {
      s.fragment(1, 0, 3000, 1000, i);
    }
    dir.write("in_order", s.data());
  }
  {
    ScriptWriter s(4, 8192, 100);
    for (const int i : {2, 1, 1, 0}) {
      s.fragment(1, 1, 2500, 1000, static_cast<std::uint16_t>(i), 1);
    }
    s.fragment(1, 1, 2500, 1000, 0); // after delivery: late
    dir.write("reversed_duplicate_late", s.data());
  }
  {
    ScriptWriter s(4, 16384, 100);
    for (std::uint16_t i = 0; i < 4; ++i) {
      s.fragment(1, 2, 4000, 1024, i);
      s.fragment(2, 2, 3000, 600, static_cast<std::uint16_t>(i % 5), 1);
      s.fragment(3, 5, 9000, 4600, static_cast<std::uint16_t>(i % 2));
    }
    s.fragment(2, 2, 3000, 600, 4);
    dir.write("interleaved_sources", s.data());
  }
  {
    ScriptWriter s(4, 8192, 100);
    s.fragment(1, 3, 300, 512, 0);
    s.fragment(4, 3, 512, 512, 0);
    dir.write("single_fragment_messages", s.data());
  }
  {
    ScriptWriter s(1, 8192, 100);
    s.fragment(1, 0, 2000, 512, 0);
    s.fragment(1, 1, 2000, 512, 0, 1); // takes the only slot
    for (std::uint16_t i = 1; i < 4; ++i) {
      s.fragment(1, 0, 2000, 512, i); // the evicted message's stragglers
    }
    dir.write("evicted_for_room", s.data());
  }
  {
    ScriptWriter s(2, 8192, 50);
    s.fragment(1, 0, 1500, 512, 0);
    s.expire(60);
    s.fragment(1, 0, 1500, 512, 1);
    s.fragment(1, 0, 1500, 512, 2);
    dir.write("evicted_stale", s.data());
  }
  {
    ScriptWriter s(4, 1000, 100);
    s.fragment(1, 0, 3000, 1000, 0);
    s.fragment(1, 1, 1000, 512, 1);
    dir.write("too_large", s.data());
  }
  {
    ScriptWriter s(4, 8192, 100);
    s.fragment(1, 0, 3000, 1000, 0);
    s.fragment(1, 0, 2900, 1000, 1); // same message id, another total
    s.fragment(1, 0, 3000, 1500, 1); // another fragment size
    dir.write("inconsistent", s.data());
  }
  {
    ScriptWriter s(4, 65535, 100);
    udp::FragmentHeader h{7, 1024, 2, 2, 512};
    s.free_header(1, h, 512); // index == count
    h = udp::FragmentHeader{7, 1024, 1, 2, 511};
    s.free_header(1, h, 513); // offset not index * fragment size
    h = udp::FragmentHeader{7, 600, 0, 2, 0};
    s.free_header(1, h, 300); // fragments below min_fragment_payload
    h = udp::FragmentHeader{7, 0xFFFFFFFF, 0, 0xFFFFFFFF, 0};
    s.free_header(1, h, 4096); // beyond every limit
    h = udp::FragmentHeader{8, 1500, 1, 2, 1000};
    s.free_header(2, h, 500); // a valid last fragment ...
    h = udp::FragmentHeader{8, 1500, 0, 2, 0};
    s.free_header(2, h, 1000); // ... and its first
    dir.write("free_headers", s.data());
  }
  {
    ScriptWriter s(4, 65535, 100);
    for (const Bytes& datagram : fragmenter_datagrams(1500, 512, 11)) {
      s.raw(after_magic(datagram));
    }
    for (const Bytes& datagram : fragmenter_datagrams(16000, 4096, 12)) {
      s.raw(after_magic(datagram));
    }
    dir.write("fragmenter_datagrams", s.data());
  }
  {
    ScriptWriter s(4, 65535, 100);
    Bytes datagram = fragmenter_datagrams(1500, 512, 13).front();
    datagram[4] = std::byte{2};
    s.raw(after_magic(datagram)); // unknown version
    datagram[4] = std::byte{1};
    datagram[6] = std::byte{1};
    s.raw(after_magic(datagram));              // reserved byte set
    s.raw(std::span(datagram).subspan(4, 20)); // shorter than a fragment header
    s.raw({});                                 // the magic alone
    dir.write("raw_malformed", s.data());
  }
  {
    ScriptWriter s(0, 0, 1);
    s.fragment(1, 0, 1, 512, 0);
    s.expire(255);
    dir.write("no_room_at_all", s.data());
  }
}

} // namespace

int main(int argc, char** argv)
{
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CORPUS_ROOT   (writes CORPUS_ROOT/<target>/<seed>)\n", argv[0]);
    return 2;
  }
  try {
    const fs::path root(argv[1]);
    write_wire_header(CorpusDir(root, "wire_header"));
    write_wire_records(CorpusDir(root, "wire_records"));
    write_udp_reassembler(CorpusDir(root, "udp_reassembler"));
  } catch (const std::exception& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
  return 0;
}
