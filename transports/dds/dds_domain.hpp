#pragma once

// Which Cyclone configuration a process's DDS domain gets, and the domain itself, shared by
// every endpoint of the process: Cyclone creates a domain once per process (dds_create_domain
// refuses a second), and the contract tests open a publisher and a subscriber in one.

#include "common/dds_endpoint_settings.hpp"

#include <dds/dds.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace netprof::dds_parts {

// The largest serialized sample Cyclone takes in or sends (Internal/MaxSampleSize): a
// stranger's larger sample is dropped by Cyclone before netprof sees it.
inline constexpr std::size_t max_serialized_sample = (std::size_t{1} << 20) + 4096;

// --dds-loopback's configuration: lo only, no multicast, discovery by unicast to 127.0.0.1.
std::string loopback_config();

// --dds-interface's configuration: that interface only (by its address), multicast discovery
// and data on it as Cyclone's defaults have them; nothing goes out on any other interface.
std::string interface_config(const transport_common::DdsInterface& interface);

// What the domain is configured from: loopback_config() for --dds-loopback, interface_config()
// for --dds-interface, else the user's CYCLONEDDS_URI (or Cyclone's defaults); netprof's sample
// limit is added either way. `origin` says which, for the report's notes.
std::string domain_config(bool loopback, std::string& origin,
                          const std::optional<transport_common::DdsInterface>& interface = {});

// One reference to the process's domain `id`; the last one deletes it. Throws TransportError
// when Cyclone refuses it, or when the process already has domain `id` under another
// configuration (a loopback and a non-loopback endpoint of the same domain in one process).
class DomainLease {
public:
  DomainLease(std::uint32_t id, const std::string& config);
  ~DomainLease();

  DomainLease(const DomainLease&) = delete;
  DomainLease& operator=(const DomainLease&) = delete;

  std::uint32_t id() const noexcept { return m_id; }

private:
  std::uint32_t m_id;
};

} // namespace netprof::dds_parts
