#pragma once

// Every built-in transport is registered in one function, register_builtin_transports().
// --help and the list of transports come from here; adding a transport touches its own
// folder plus one line there.

#include <netprof/transport.hpp>

#include <boost/program_options.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace netprof {

// A transport as the command line sees it: its own option group and how to open it.
// One instance per process; it keeps the values of its own options.
class Transport {
public:
  virtual ~Transport() = default;

  // This transport's option group. The values are stored in the object itself, so
  // open() reads them after the command line was parsed and notified.
  virtual boost::program_options::options_description& options() = 0;

  // True when the user gave an option that selects this transport (e.g. -u for udp, or
  // --mc-ttl for multicast).
  virtual bool selected(const boost::program_options::variables_map& given) const = 0;

  // True when the user gave the option that names this transport (-m for multicast), not just
  // one of its settings (--mc-ttl). A transport named beside another one is a conflict; one
  // that is only selected by a setting beside another transport's name is not chosen, and the
  // setting is refused as an option that does not apply. Most transports are selected only
  // by their name, hence the default.
  virtual bool named(const boost::program_options::variables_map& given) const
  {
    return selected(given);
  }

  // True when this transport reads the option of this long name ("fragment-size") when it is
  // chosen. The command line refuses every option the user gave that neither the core nor the
  // chosen transport reads, so no option is silently ignored. Defaults to the options of its
  // own group; a transport that also reads options shown in another's group says so. Not
  // const only because options() is not.
  virtual bool reads_option(const std::string& long_name)
  {
    return options().find_nothrow(long_name, false) != nullptr;
  }

  // Checks the values of its own options once parsing is done; throws UsageError with one
  // line naming the problem.
  virtual void validate(Role role) const = 0;

  // Opens an endpoint. Throws TransportError when the system refuses (bind failed...).
  virtual std::unique_ptr<Endpoint> open(const EndpointRequest& request) = 0;

  // The one-command local pair runs a publisher and a subscriber as two processes. This gives
  // the transport's own arguments for each, derived from what the user gave (or a loopback
  // default when nothing was given). Called only when selected() or as the default transport.
  struct LocalPairArguments {
    std::vector<std::string> publisher;
    std::vector<std::string> subscriber;
  };
  virtual LocalPairArguments local_pair_arguments() const = 0;
};

struct TransportEntry {
  std::string name;    // "udp"
  std::string summary; // one line for --help
  std::function<std::unique_ptr<Transport>()> make;
};

class TransportRegistry {
public:
  void add(TransportEntry entry) { m_entries.push_back(std::move(entry)); }
  const std::vector<TransportEntry>& entries() const noexcept { return m_entries; }

private:
  std::vector<TransportEntry> m_entries;
};

// Defined in transports/builtin.cpp: one line per built-in transport.
void register_builtin_transports(TransportRegistry& registry);

} // namespace netprof
