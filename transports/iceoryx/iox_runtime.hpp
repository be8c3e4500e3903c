#pragma once

// iceoryx allows one runtime per process, registered with RouDi under a name. Every iceoryx
// endpoint of this process holds a lease on it: the first creates it, the last destroys it, so
// that it unregisters from RouDi while netprof still runs (a RouDi stopped with clients still
// registered sends them SIGTERM) and a later endpoint (the contract test opens many, one after
// another) registers afresh.

#include <memory>
#include <string>

namespace netprof::iox_parts {

class RuntimeLease {
public:
  // Registers this process with RouDi unless it already is; throws TransportError when no
  // RouDi answers (checked first: iceoryx itself would wait a minute and end the process).
  static std::shared_ptr<RuntimeLease> acquire();

  ~RuntimeLease();
  RuntimeLease(const RuntimeLease&) = delete;
  RuntimeLease& operator=(const RuntimeLease&) = delete;

  // The name this process registered under.
  const std::string& name() const noexcept { return m_name; }

private:
  explicit RuntimeLease(std::string name) : m_name(std::move(name)) {}

  std::string m_name;
};

} // namespace netprof::iox_parts
