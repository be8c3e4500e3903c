// Cost of the histogram's hot path (record) and of its reporting path (percentile, summary).
// Time per iteration of BM_histogram_record is the cost of one record() call.

#include <netprof/histogram.hpp>

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace {

// Log-uniform over 1 us .. 1 ms: realistic round trips that land in ten different power-of-two
// buckets, so the counter index is not predictable from one call to the next.
std::vector<std::int64_t> realistic_latencies()
{
  constexpr std::size_t count = std::size_t{1} << 16; // a power of two: wrap with a mask
  std::mt19937_64 random(42);
  std::uniform_real_distribution<double> exponent(std::log(1'000.0), std::log(1'000'000.0));
  std::vector<std::int64_t> values(count);
  for (auto& v : values)
    v = std::llround(std::exp(exponent(random)));
  return values;
}

void BM_histogram_record(benchmark::State& state)
{
  const std::vector<std::int64_t> values = realistic_latencies();
  const std::size_t mask = values.size() - 1;
  netprof::Histogram histogram;
  std::size_t i = 0;
  for (auto _ : state) {
    histogram.record(values[i++ & mask]);
  }
  benchmark::DoNotOptimize(histogram.count());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_histogram_record);

void BM_histogram_percentile(benchmark::State& state)
{
  netprof::Histogram histogram;
  for (const std::int64_t v : realistic_latencies())
    histogram.record(v);
  for (auto _ : state)
    benchmark::DoNotOptimize(histogram.percentile(99.9));
}
BENCHMARK(BM_histogram_percentile);

void BM_histogram_summarize(benchmark::State& state)
{
  netprof::Histogram histogram;
  for (const std::int64_t v : realistic_latencies())
    histogram.record(v);
  for (auto _ : state)
    benchmark::DoNotOptimize(histogram.summarize());
}
BENCHMARK(BM_histogram_summarize);

} // namespace

BENCHMARK_MAIN();
