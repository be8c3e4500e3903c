// The core's option table as data: what each row promises about the roles and the local pair,
// and that every option of this build has one name and a default its own check accepts.

#include "cli/option_table.hpp"

#include <netprof/registry.hpp>

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace netprof::cli {
namespace {

bool reads(Readers readers, Role role)
{
  return readers == Readers::both ||
         (role == Role::publisher ? readers == Readers::publisher : readers == Readers::subscriber);
}

TEST(OptionTable, ThePairGivesOneChildOnlyWhatThatChildsRoleReads)
{
  for (const CoreOption& row : core_option_table()) {
    if (row.spec.pair == PairRoute::publisher_only) {
      EXPECT_TRUE(reads(row.read_by, Role::publisher)) << row.spec.long_name;
    }
    if (row.spec.pair == PairRoute::split) {
      EXPECT_EQ(row.read_by, Readers::both) << row.spec.long_name;
    }
  }
}

TEST(OptionTable, WhatOnlyTheSubscriberReadsReachesThePairsSubscriber)
{
  for (const CoreOption& row : core_option_table()) {
    if (row.read_by == Readers::subscriber) {
      EXPECT_TRUE(row.spec.pair == PairRoute::both || row.spec.pair == PairRoute::split ||
                  row.spec.pair == PairRoute::subscriber_only)
          << row.spec.long_name;
    }
  }
}

TEST(OptionTable, EveryRowButTheActionsSetsAField)
{
  for (const CoreOption& row : core_option_table()) {
    const bool action = row.read_by == Readers::none && row.spec.long_name != "local-pair" &&
                        row.spec.long_name != "threads";
    EXPECT_EQ(row.assign == nullptr, action) << row.spec.long_name;
  }
}

TEST(OptionTable, EveryOptionOfThisBuildHasANameOfItsOwn)
{
  TransportRegistry registry;
  register_builtin_transports(registry);
  std::vector<OptionGroup> groups = core_option_groups();
  for (const TransportDescriptor& transport : registry.entries()) {
    groups.push_back(transport.options);
  }
  std::set<std::string> long_names;
  std::set<char> short_names;
  for (const OptionGroup& group : groups) {
    for (const OptionSpec& spec : group.options) {
      EXPECT_TRUE(long_names.insert(spec.long_name).second) << spec.long_name;
      if (spec.short_name != '\0') {
        EXPECT_TRUE(short_names.insert(spec.short_name).second) << spec.short_name;
      }
    }
  }
}

TEST(OptionTable, EveryDefaultPassesItsOwnCheck)
{
  const RunConfig defaults = core_config(OptionValues{});
  EXPECT_EQ(defaults.payload_size, 128u);
  EXPECT_EQ(defaults.mode, Mode::stream);
  EXPECT_EQ(defaults.wait_strategy, WaitStrategy::block);
  EXPECT_EQ(defaults.role, Role::publisher);
}

} // namespace
} // namespace netprof::cli
