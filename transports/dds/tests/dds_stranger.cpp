// A stranger in a netprof DDS run's domain, for transports/dds/tests/test_dds.py: it writes samples
// of random bytes and sizes (0 to 2,000 B) to both of the run's topics, one every millisecond, for
// the seconds given, with the QoS netprof uses by default so that they match and arrive.
//
//   dds_stranger TOPIC_PREFIX SECONDS   (domain 0, netprof's --dds-loopback configuration)

#include "dds_domain.hpp"
#include "dds_message.h"
#include "dds_qos.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

int main(int argc, char** argv)
{
  if (argc != 3) {
    std::fprintf(stderr, "usage: dds_stranger TOPIC_PREFIX SECONDS\n");
    return 2;
  }
  const std::string prefix = argv[1];
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(std::atoi(argv[2]));
  std::string origin;
  netprof::dds_parts::DomainLease domain(0, netprof::dds_parts::domain_config(true, origin));
  const dds_entity_t participant = dds_create_participant(0, nullptr, nullptr);
  if (participant < 0) {
    std::fprintf(stderr, "dds_stranger: no participant: %s\n", dds_strretcode(participant));
    return 3;
  }
  dds_qos_t* qos = netprof::dds_parts::make_qos(netprof::dds_parts::QosChoice{}, 16);
  std::vector<dds_entity_t> writers;
  for (const char* suffix : {"_data", "_echo"}) {
    const dds_entity_t topic = dds_create_topic(participant, &netprof_dds_Message_desc,
                                                (prefix + suffix).c_str(), nullptr, nullptr);
    writers.push_back(dds_create_writer(participant, topic, qos, nullptr));
  }
  dds_delete_qos(qos);
  std::mt19937 random(42);
  std::vector<std::uint8_t> bytes(2000);
  std::size_t written = 0;
  while (std::chrono::steady_clock::now() < until) {
    for (const dds_entity_t writer : writers) {
      for (auto& byte : bytes) {
        byte = static_cast<std::uint8_t>(random());
      }
      netprof_dds_Message sample{};
      sample.bytes._buffer = bytes.data();
      sample.bytes._length = static_cast<std::uint32_t>(random() % (bytes.size() + 1));
      sample.bytes._maximum = sample.bytes._length;
      written += dds_write(writer, &sample) == DDS_RETCODE_OK;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  dds_delete(participant);
  std::printf("%zu\n", written);
  return 0;
}
