// "did you mean": the option a mistyped flag most likely meant.

#include "options/option_suggestion.hpp"

#include <gtest/gtest.h>

namespace netprof::options {
namespace {

OptionGroup table()
{
  return {"T",
          {OptionSpec("subscribers", "N", WholeNumber{0, 9}, "h"),
           OptionSpec("size,s", "BYTES", WholeNumber{1, 9}, "h"),
           OptionSpec("wait", "S", Text{}, "h"), OptionSpec("wait-strategy", "S", Text{}, "h"),
           OptionSpec("shm-history", "H", Text{}, "h"), OptionSpec("zmq", "E", Text{}, "h")}};
}

std::optional<std::string> suggested(std::string_view typed)
{
  const OptionGroup group = table();
  return suggested_option(typed, {&group});
}

TEST(EditDistance, CountsInsertionsDeletionsReplacementsAndSwaps)
{
  EXPECT_EQ(edit_distance("size", "size"), 0U);
  EXPECT_EQ(edit_distance("sise", "size"), 1U);
  EXPECT_EQ(edit_distance("wiat", "wait"), 1U);
  EXPECT_EQ(edit_distance("siz", "size"), 1U);
  EXPECT_EQ(edit_distance("", "abc"), 3U);
}

TEST(SuggestedOption, CompletesTheOnlyOptionATypoBegins)
{
  EXPECT_EQ(suggested("--subscriber"), "subscribers");
  EXPECT_EQ(suggested("--shm-hist"), "shm-history");
}

TEST(SuggestedOption, FindsTheNearestWithinACoupleOfEdits)
{
  EXPECT_EQ(suggested("--sise"), "size");
  EXPECT_EQ(suggested("--wiat=3"), "wait");
  EXPECT_EQ(suggested("--subscirbers"), "subscribers");
}

TEST(SuggestedOption, SuggestsNothingFarOrAmbiguous)
{
  EXPECT_EQ(suggested("--colour"), std::nullopt);
  EXPECT_EQ(suggested("-x"), std::nullopt);
  EXPECT_EQ(suggested("--"), std::nullopt);
}

TEST(SuggestionFor, SaysDidYouMeanOrPointsToHelp)
{
  const OptionGroup group = table();
  EXPECT_EQ(suggestion_for("--subscriber", {&group}), " (did you mean '--subscribers'?)");
  EXPECT_EQ(suggestion_for("--colour", {&group}), " (see --help)");
}

} // namespace
} // namespace netprof::options
