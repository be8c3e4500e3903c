// The private strict number parser, tested directly for the cases the option tests only
// touch through a message.

#include "options/number_parsing.hpp"

#include <gtest/gtest.h>

namespace netprof::options {
namespace {

TEST(ParseUnsignedTest, ParsesDigits)
{
  const auto sut = parse_unsigned("1234");

  EXPECT_EQ(sut.status, NumberStatus::ok);
  EXPECT_EQ(sut.value, 1234U);
}

TEST(ParseUnsignedTest, ParsesTheLargestValue)
{
  EXPECT_EQ(parse_unsigned("18446744073709551615").value, 18446744073709551615U);
}

TEST(ParseUnsignedTest, ReportsOverflowAsOutOfRange)
{
  EXPECT_EQ(parse_unsigned("18446744073709551616").status, NumberStatus::out_of_range);
}

TEST(ParseUnsignedTest, RejectsAMinusSign)
{
  EXPECT_EQ(parse_unsigned("-5").status, NumberStatus::malformed);
}

TEST(ParseUnsignedTest, RejectsAPlusSign)
{
  EXPECT_EQ(parse_unsigned("+5").status, NumberStatus::malformed);
}

TEST(ParseUnsignedTest, RejectsLeadingBlanks)
{
  EXPECT_EQ(parse_unsigned(" 5").status, NumberStatus::malformed);
}

TEST(ParseUnsignedTest, RejectsTrailingJunk)
{
  EXPECT_EQ(parse_unsigned("10x").status, NumberStatus::malformed);
}

TEST(ParseUnsignedTest, RejectsJunkAfterAnOverflow)
{
  EXPECT_EQ(parse_unsigned("99999999999999999999x").status, NumberStatus::malformed);
}

TEST(ParseUnsignedTest, RejectsAHexPrefix)
{
  EXPECT_EQ(parse_unsigned("0x10").status, NumberStatus::malformed);
}

TEST(ParseUnsignedTest, RejectsAnEmptyString)
{
  EXPECT_EQ(parse_unsigned("").status, NumberStatus::malformed);
}

TEST(ParseFiniteDoubleTest, ParsesAFraction)
{
  const auto sut = parse_finite_double("0.25");

  EXPECT_EQ(sut.status, NumberStatus::ok);
  EXPECT_EQ(sut.value, 0.25);
}

TEST(ParseFiniteDoubleTest, ParsesAnExponent)
{
  EXPECT_EQ(parse_finite_double("1e9").value, 1e9);
}

TEST(ParseFiniteDoubleTest, ParsesANegativeNumberForTheCallerToRangeCheck)
{
  EXPECT_EQ(parse_finite_double("-2").value, -2.0);
}

TEST(ParseFiniteDoubleTest, RejectsNan)
{
  EXPECT_EQ(parse_finite_double("nan").status, NumberStatus::malformed);
}

TEST(ParseFiniteDoubleTest, RejectsInfinity)
{
  EXPECT_EQ(parse_finite_double("inf").status, NumberStatus::malformed);
  EXPECT_EQ(parse_finite_double("-infinity").status, NumberStatus::malformed);
}

TEST(ParseFiniteDoubleTest, RejectsAnOverflowingExponent)
{
  EXPECT_NE(parse_finite_double("1e999").status, NumberStatus::ok);
}

TEST(ParseFiniteDoubleTest, RejectsTrailingJunk)
{
  EXPECT_EQ(parse_finite_double("10s").status, NumberStatus::malformed);
}

TEST(ParseFiniteDoubleTest, RejectsHexFloats)
{
  EXPECT_EQ(parse_finite_double("0x1p3").status, NumberStatus::malformed);
}

TEST(ParseFiniteDoubleTest, RejectsAnEmptyString)
{
  EXPECT_EQ(parse_finite_double("").status, NumberStatus::malformed);
}

TEST(ParseFiniteDoubleTest, RejectsLeadingBlanks)
{
  EXPECT_EQ(parse_finite_double(" 1").status, NumberStatus::malformed);
}

} // namespace
} // namespace netprof::options

namespace netprof::options {
namespace {

TEST(ParseByteSizeTest, TakesPlainBytes)
{
  EXPECT_EQ(parse_byte_size("600000").value, 600000U);
}

TEST(ParseByteSizeTest, KMAndGAreBinaryInAnyCase)
{
  EXPECT_EQ(parse_byte_size("1k").value, 1024U);
  EXPECT_EQ(parse_byte_size("1K").value, 1024U);
  EXPECT_EQ(parse_byte_size("4KiB").value, 4096U);
  EXPECT_EQ(parse_byte_size("2M").value, 2U * 1024 * 1024);
  EXPECT_EQ(parse_byte_size("1mib").value, 1024U * 1024);
  EXPECT_EQ(parse_byte_size("1G").value, 1024U * 1024 * 1024);
}

TEST(ParseByteSizeTest, RefusesWhatIsNoSize)
{
  for (const char* text : {"", "k", "KiB", "1.5k", "1kb", "1T", "1 k", "-1k", "1iB", "64ib"})
    EXPECT_EQ(parse_byte_size(text).status, NumberStatus::malformed) << text;
}

TEST(ParseByteSizeTest, ReportsOverflowAsOutOfRange)
{
  EXPECT_EQ(parse_byte_size("17179869184G").status, NumberStatus::out_of_range);
}

} // namespace
} // namespace netprof::options
