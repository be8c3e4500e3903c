// The shared option machinery on a small group of its own: parsing, each kind's check and
// wording, and how the local pair's routing passes each option on.

#include <netprof/errors.hpp>
#include <netprof/options.hpp>

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace netprof {
namespace {

using Arguments = std::vector<std::string>;

const OptionGroup& sample()
{
  static const OptionGroup group{
      "Sample",
      {OptionSpec("count,c", "N", WholeNumber{1, 10}, "a range stated whole").with_default("5"),
       OptionSpec("limit", "N", WholeNumber{0, 100, true}, "too large said apart"),
       OptionSpec("rate", "HZ", RealNumber{0.0, false, 1e3, "a rate > 0, at most 1000"}, "")
           .passed(PairRoute::publisher_only),
       OptionSpec("colour", "red|blue", Choice{{"red", "blue"}}, "").with_default("red"),
       OptionSpec("name", "NAME", Text{}, "").with_implicit("").passed(PairRoute::neither),
       OptionSpec("peer", "ADDR", Text{}, "").repeatable(),
       OptionSpec("pin", "LIST", CpuList{}, "").passed(PairRoute::split),
       OptionSpec("verbose", "", Switch{}, "")}};
  return group;
}

OptionValues parsed(const Arguments& arguments)
{
  return parse_options(arguments, {&sample()});
}

template <typename Action> std::string refusal(Action&& action)
{
  try {
    action();
  } catch (const UsageError& error) {
    return error.what();
  }
  return "(accepted)";
}

TEST(ParseOptions, RefusesWhatIsNoOptionInOneLine)
{
  EXPECT_EQ(refusal([] { parsed({"--bogus"}); }), "unknown option '--bogus' (see --help)");
  EXPECT_EQ(refusal([] { parsed({"--count"}); }), "option '--count' needs a value");
  EXPECT_EQ(refusal([] {
              parsed({"--name", "a", "--name", "b"});
            }),
            "option '--name' given more than once");
  EXPECT_EQ(refusal([] { parsed({"stray"}); }), "unexpected argument 'stray'");
  EXPECT_EQ(refusal([] { parsed({"--rate", "--verbose"}); }), "option '--rate' needs a value");
  EXPECT_EQ(refusal([] { parsed({"--verbose=yes"}); }), "option '--verbose' takes no value");
}

TEST(OptionValues, GivenValueElseImplicitElseDefault)
{
  const OptionGroup& options = sample();
  EXPECT_EQ(parsed({}).whole_number(options["count"]), 5u);
  EXPECT_EQ(parsed({"-c", "7"}).whole_number(options["count"]), 7u);
  EXPECT_FALSE(parsed({}).whole_number(options["limit"]));
  EXPECT_EQ(parsed({"--name"}).text(options["name"]), "");
  EXPECT_FALSE(parsed({}).text(options["name"]));
  EXPECT_EQ(parsed({"--colour", "blue"}).choice(options["colour"]), 1u);
  EXPECT_EQ(parsed({"--peer", "a", "--peer", "b"}).texts(options["peer"]), (Arguments{"a", "b"}));
  EXPECT_TRUE(parsed({"--verbose"}).on(options["verbose"]));
  EXPECT_FALSE(parsed({}).on(options["verbose"]));
}

TEST(OptionValues, EachKindRefusesInTheSharedWording)
{
  const OptionGroup& options = sample();
  EXPECT_EQ(refusal([&] {
              parsed({"-c", "11"}).whole_number(options["count"]);
            }),
            "invalid value '11' for --count: expected a whole number from 1 to 10");
  EXPECT_EQ(refusal([&] {
              parsed({"--limit", "101"}).whole_number(options["limit"]);
            }),
            "invalid value '101' for --limit: too large (at most 100)");
  EXPECT_EQ(refusal([&] {
              parsed({"--limit", "-1"}).whole_number(options["limit"]);
            }),
            "invalid value '-1' for --limit: expected a whole number from 0 to 100");
  EXPECT_EQ(refusal([&] {
              parsed({"--rate", "0"}).real_number(options["rate"]);
            }),
            "invalid value '0' for --rate: expected a rate > 0, at most 1000");
  EXPECT_EQ(refusal([&] {
              parsed({"--colour", "green"}).choice(options["colour"]);
            }),
            "invalid value 'green' for --colour: expected red or blue");
  EXPECT_EQ(refusal([&] {
              parsed({"--pin", "0,x"}).cpu_list(options["pin"]);
            }).rfind("invalid value '0,x' for --pin: expected comma-separated CPU numbers", 0),
            0u);
}

TEST(OptionValues, ReadingAnOptionAsAnotherKindIsABugInTheCode)
{
  EXPECT_THROW(parsed({}).real_number(sample()["count"]), std::logic_error);
  EXPECT_THROW(sample()["no-such-option"], std::logic_error);
}

TEST(RouteToLocalPair, PassesEachOptionAsWrittenWhereItsRouteSays)
{
  const Arguments given = {"-c7", "--rate=5", "--name", "x", "--pin", "0,1", "--verbose"};
  const LocalPairArguments sut = route_to_local_pair(parsed(given), {&sample()});

  EXPECT_EQ(sut.publisher, (Arguments{"-c7", "--rate=5", "--pin", "0", "--verbose"}));
  EXPECT_EQ(sut.subscriber, (Arguments{"-c7", "--pin", "1", "--verbose"}));
}

TEST(RouteToLocalPair, LeavesOutOptionsOfOtherGroups)
{
  const OptionGroup other{"Other", {OptionSpec("other", "X", Text{}, "")}};
  const OptionValues values = parse_options({"--other", "1", "-c", "2"}, {&sample(), &other});

  EXPECT_EQ(route_to_local_pair(values, {&sample()}).publisher, (Arguments{"-c", "2"}));
}

} // namespace
} // namespace netprof
