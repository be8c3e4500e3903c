#include "dds_domain.hpp"

#include <netprof/errors.hpp>

#include <cstdlib>
#include <map>
#include <mutex>

namespace netprof::dds_parts {

namespace {

// Cyclone's ports for participant index i of domain d are 7400 + 250 d + 10 + 2 i (and + 1):
// up to 50 participants on one host in any domain up to 232 stay below 65536.
constexpr int max_auto_participant_index = 50;

struct SharedDomain {
  dds_entity_t handle = 0;
  std::string config;
  std::size_t users = 0;
};

std::mutex& domains_lock()
{
  static std::mutex lock;
  return lock;
}

std::map<std::uint32_t, SharedDomain>& domains()
{
  static std::map<std::uint32_t, SharedDomain> shared;
  return shared;
}

// What netprof adds to any configuration: the sample limit, and write batching, so that a
// stream's small samples share datagrams until the core flushes (after every probe, before it
// waits, at the end of each phase: DdsEndpoint::flush).
std::string netprof_config()
{
  return "<CycloneDDS><Domain id=\"any\"><Internal><MaxSampleSize>" +
         std::to_string(max_serialized_sample) +
         "B</MaxSampleSize><WriteBatch>true</WriteBatch></Internal></Domain></CycloneDDS>";
}

} // namespace

std::string loopback_config()
{
  return "<CycloneDDS><Domain id=\"any\"><General><Interfaces><NetworkInterface name=\"lo\"/>"
         "</Interfaces><AllowMulticast>false</AllowMulticast></General><Discovery>"
         "<ParticipantIndex>auto</ParticipantIndex><MaxAutoParticipantIndex>" +
         std::to_string(max_auto_participant_index) +
         "</MaxAutoParticipantIndex><Peers><Peer address=\"127.0.0.1\"/></Peers></Discovery>"
         "</Domain></CycloneDDS>";
}

std::string interface_config(const transport_common::DdsInterface& interface)
{
  // The address was found among the host's interfaces, so it is a dotted quad: nothing in it
  // needs escaping in XML.
  return "<CycloneDDS><Domain id=\"any\"><General><Interfaces><NetworkInterface address=\"" +
         interface.address + "\"/></Interfaces></General></Domain></CycloneDDS>";
}

std::string domain_config(bool loopback, std::string& origin,
                          const std::optional<transport_common::DdsInterface>& interface)
{
  const char* uri = std::getenv("CYCLONEDDS_URI");
  const bool user_config = uri != nullptr && *uri != '\0';
  if (interface) {
    origin = "--dds-interface: Cyclone on " + interface->name + " (" + interface->address +
             ") only, multicast discovery on it" +
             (user_config ? " (CYCLONEDDS_URI is set and ignored)" : "");
    return interface_config(*interface) + "," + netprof_config();
  }
  if (loopback) {
    origin = std::string("--dds-loopback: Cyclone on lo only, multicast off, discovery by "
                         "unicast to 127.0.0.1") +
             (user_config ? " (CYCLONEDDS_URI is set and ignored)" : "");
    return loopback_config() + "," + netprof_config();
  }
  if (user_config) {
    origin = std::string("CYCLONEDDS_URI=") + uri;
    return std::string(uri) + "," + netprof_config();
  }
  origin = "Cyclone's defaults (CYCLONEDDS_URI not set): its chosen interface, multicast "
           "discovery";
  return netprof_config();
}

DomainLease::DomainLease(std::uint32_t id, const std::string& config) : m_id(id)
{
  const std::lock_guard<std::mutex> hold(domains_lock());
  SharedDomain& domain = domains()[id];
  if (domain.users > 0) {
    if (domain.config != config) {
      throw TransportError("DDS domain " + std::to_string(id) +
                           " is already open in this process under another configuration");
    }
    ++domain.users;
    return;
  }
  const dds_entity_t created = dds_create_domain(id, config.c_str());
  if (created < 0) {
    domains().erase(id);
    throw TransportError("cannot create DDS domain " + std::to_string(id) + ": " +
                         dds_strretcode(created) +
                         " (is the Cyclone configuration valid? see CYCLONEDDS_URI)");
  }
  domain.handle = created;
  domain.config = config;
  domain.users = 1;
}

DomainLease::~DomainLease()
{
  const std::lock_guard<std::mutex> hold(domains_lock());
  auto found = domains().find(m_id);
  if (found == domains().end() || --found->second.users > 0) {
    return;
  }
  dds_delete(found->second.handle);
  domains().erase(found);
}

} // namespace netprof::dds_parts
