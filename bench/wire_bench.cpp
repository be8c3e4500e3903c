// Cost of the wire codec on the hot path: every message is encoded once and decoded once.

#include <netprof/records.hpp>
#include <netprof/wire.hpp>

#include <benchmark/benchmark.h>

#include <array>
#include <vector>

namespace {

using netprof::wire::Header;
using netprof::wire::header_size;

Header sample_header()
{
  Header h;
  h.kind = netprof::wire::MessageKind::data;
  h.flags = netprof::wire::flags::probe;
  h.sender_id = 0;
  h.run_id = 0x0123456789ABCDEF;
  h.sequence = 1;
  h.intended_ns = 123'456'789;
  h.sent_ns = 123'456'999;
  return h;
}

void encode_header(benchmark::State& state)
{
  Header header = sample_header();
  std::array<std::byte, header_size> buffer{};
  for (auto _ : state) {
    ++header.sequence;
    netprof::wire::encode_header(header, buffer);
    benchmark::DoNotOptimize(buffer.data());
    benchmark::ClobberMemory();
  }
}
BENCHMARK(encode_header);

void decode_header(benchmark::State& state)
{
  std::array<std::byte, header_size> buffer{};
  netprof::wire::encode_header(sample_header(), buffer);
  Header out;
  for (auto _ : state) {
    benchmark::DoNotOptimize(buffer.data());
    auto result = netprof::wire::decode_header(buffer, out);
    benchmark::DoNotOptimize(result);
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(decode_header);

void encode_decode_header(benchmark::State& state)
{
  Header header = sample_header();
  std::array<std::byte, header_size> buffer{};
  Header out;
  for (auto _ : state) {
    ++header.sequence;
    netprof::wire::encode_header(header, buffer);
    benchmark::ClobberMemory();
    auto result = netprof::wire::decode_header(buffer, out);
    benchmark::DoNotOptimize(result);
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(encode_decode_header);

// --num-vars on the subscriber: walk every record and look its name up.
void read_records(benchmark::State& state)
{
  const auto count = static_cast<std::uint32_t>(state.range(0));
  const netprof::RecordLayout layout(netprof::RecordLayout::minimum_payload_size(count) + 64,
                                     count);
  std::vector<std::byte> payload(layout.payload_size());
  layout.write(payload);
  netprof::RecordReader reader(count);
  for (auto _ : state) {
    benchmark::DoNotOptimize(payload.data());
    auto found = reader.read(payload, count);
    benchmark::DoNotOptimize(found);
  }
  state.SetItemsProcessed(state.iterations() * count);
}
BENCHMARK(read_records)->Arg(1)->Arg(10)->Arg(100);

} // namespace

BENCHMARK_MAIN();
