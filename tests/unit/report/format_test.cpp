#include <netprof/report.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace netprof {
namespace {

// No formatter may ever fall back to scientific notation.
void expect_no_exponent(const std::string& text)
{
  EXPECT_EQ(text.find("e+"), std::string::npos) << text;
  EXPECT_EQ(text.find("e-"), std::string::npos) << text;
  EXPECT_EQ(text.find("inf"), std::string::npos) << text;
  EXPECT_EQ(text.find("nan"), std::string::npos) << text;
}

TEST(FormatCount, GroupsThousands)
{
  EXPECT_EQ(format_count(0), "0");
  EXPECT_EQ(format_count(7), "7");
  EXPECT_EQ(format_count(999), "999");
  EXPECT_EQ(format_count(1000), "1,000");
  EXPECT_EQ(format_count(1234567), "1,234,567");
  EXPECT_EQ(format_count(1'000'000'000'000'000), "1,000,000,000,000,000");
  EXPECT_EQ(format_count(std::numeric_limits<std::uint64_t>::max()), "18,446,744,073,709,551,615");
}

TEST(FormatDuration, PicksAReadableUnit)
{
  EXPECT_EQ(format_duration_ns(0), "0 ns");
  EXPECT_EQ(format_duration_ns(812), "812 ns");
  EXPECT_EQ(format_duration_ns(406.6), "407 ns");
  EXPECT_EQ(format_duration_ns(2.5), "2.50 ns");
  EXPECT_EQ(format_duration_ns(12'345), "12.3 us");
  EXPECT_EQ(format_duration_ns(4'560'000), "4.56 ms");
  EXPECT_EQ(format_duration_ns(1'200'000'000), "1.20 s");
}

TEST(FormatDuration, RoundingCarriesIntoTheNextUnit)
{
  EXPECT_EQ(format_duration_ns(999.4), "999 ns");
  EXPECT_EQ(format_duration_ns(999.7), "1.00 us");
  EXPECT_EQ(format_duration_ns(9.996), "10.0 ns");
  EXPECT_EQ(format_duration_ns(999'999), "1.00 ms");
}

TEST(FormatDuration, HugeValuesStayInSecondsWithoutExponent)
{
  EXPECT_EQ(format_duration_ns(1e15), "1,000,000 s");
  std::string huge = format_duration_ns(1e300);
  expect_no_exponent(huge);
  EXPECT_EQ(huge.substr(huge.size() - 2), " s");
}

TEST(FormatDuration, TinyAndNegativeValues)
{
  EXPECT_EQ(format_duration_ns(0.5), "0.500 ns");
  EXPECT_EQ(format_duration_ns(1e-9), "0.000 ns");
  EXPECT_EQ(format_duration_ns(-12'345), "-12.3 us");
  EXPECT_EQ(format_duration_ns(-0.0), "0 ns");
}

TEST(FormatDuration, NonFiniteIsGuarded)
{
  EXPECT_EQ(format_duration_ns(std::nan("")), "n/a");
  EXPECT_EQ(format_duration_ns(std::numeric_limits<double>::infinity()), "n/a");
  EXPECT_EQ(format_duration_ns(-std::numeric_limits<double>::infinity()), "n/a");
}

TEST(FormatBytes, UsesDecimalPrefixes)
{
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(1000), "1.00 kB");
  EXPECT_EQ(format_bytes(1'234'567), "1.23 MB");
  EXPECT_EQ(format_bytes(45'600'000'000), "45.6 GB");
  EXPECT_EQ(format_bytes(1e15), "1.00 PB");
  EXPECT_EQ(format_bytes(0.25), "0.250 B");
  EXPECT_EQ(format_bytes(std::nan("")), "n/a");
  expect_no_exponent(format_bytes(1e30));
}

TEST(FormatByteTotal, ShowsExactBytesBesideTheReadableForm)
{
  EXPECT_EQ(format_byte_total(0), "0 B");
  EXPECT_EQ(format_byte_total(999), "999 B");
  EXPECT_EQ(format_byte_total(127'998'720), "128 MB (127,998,720 B)");
  EXPECT_EQ(format_byte_total(1'000'000'000'000'000), "1.00 PB (1,000,000,000,000,000 B)");
}

TEST(FormatRate, PrefixesCountsAndBytes)
{
  EXPECT_EQ(format_rate(0, "msg"), "0 msg/s");
  EXPECT_EQ(format_rate(456, "msg"), "456 msg/s");
  EXPECT_EQ(format_rate(1'234'567, "msg"), "1.23 M msg/s");
  EXPECT_EQ(format_rate(99'999.5, "msg"), "100 k msg/s");
  EXPECT_EQ(format_rate(12'800'000, "B"), "12.8 MB/s");
  EXPECT_EQ(format_rate(0.5, "msg"), "0.500 msg/s");
  EXPECT_EQ(format_rate(1e15, "B"), "1.00 PB/s");
  EXPECT_EQ(format_rate(1.2e9, "msg"), "1.20 G msg/s");
  EXPECT_EQ(format_rate(std::numeric_limits<double>::infinity(), "B"), "n/a");
  EXPECT_EQ(format_rate(std::nan(""), "msg"), "n/a");
  expect_no_exponent(format_rate(1e40, "msg"));
}

TEST(FormatNumber, EchoesSettingsAsTyped)
{
  EXPECT_EQ(format_number(0), "0");
  EXPECT_EQ(format_number(10), "10");
  EXPECT_EQ(format_number(0.5), "0.5");
  EXPECT_EQ(format_number(1000), "1,000");
  EXPECT_EQ(format_number(2.125), "2.125");
  EXPECT_EQ(format_number(1e15), "1,000,000,000,000,000");
  EXPECT_EQ(format_number(-0.0001), "0");
  EXPECT_EQ(format_number(std::nan("")), "n/a");
}

TEST(FormatPercent, NeverHidesASmallLoss)
{
  EXPECT_EQ(format_percent(0), "0%");
  EXPECT_EQ(format_percent(12.5), "12.5%");
  EXPECT_EQ(format_percent(100), "100%");
  EXPECT_EQ(format_percent(0.00001), "< 0.001%");
  EXPECT_EQ(format_percent(std::nan("")), "n/a");
}

TEST(FormatRunId, IsSixteenHexDigits)
{
  EXPECT_EQ(format_run_id(0), "0000000000000000");
  EXPECT_EQ(format_run_id(0x0123456789abcdefULL), "0123456789abcdef");
  EXPECT_EQ(format_run_id(std::numeric_limits<std::uint64_t>::max()), "ffffffffffffffff");
}

} // namespace
} // namespace netprof
