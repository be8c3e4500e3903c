// What --reliability and --history mean whatever the transport: an unknown value, and the local
// pair checking both roles before anything starts. Each transport's own mapping is tested in its
// folder (transports/<name>/tests/<name>_qos_mapping_test.cpp), built into this executable too.

#include "support/qos_mapping.hpp"

#include <string>

namespace netprof {
namespace {

TEST_F(QosMappingTest, RefusesAnUnknownReliability)
{
  EXPECT_TRUE(starts_with(refusal({"-u", "127.0.0.1:40000", "--reliability", "best_effort"}),
                          "invalid value 'best_effort' for --reliability"));
}

TEST_F(QosMappingTest, TheLocalPairChecksBothRolesBeforeAnythingStarts)
{
  EXPECT_TRUE(starts_with(refusal({"--local-pair", "--reliability", "reliable"}),
                          "--reliability reliable is not available on udp: "));
}

} // namespace
} // namespace netprof
