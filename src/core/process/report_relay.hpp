#pragma once

// Under --publishers P run by hand, publisher 0 leads the run: publishers 1 to P-1 each send it
// their JSON report once their run is over, and it prints them with its own and puts them in
// its --json (publishers[]); a local group's pair gathers them itself (publisher_reports.hpp).
// They meet at --lead HOST:PORT (tcp: publishers on other hosts), or by default on this host at
// an abstract Unix socket named after the run's first stream, which only processes of the same
// user may send to. The frame and its MAC: protocol/report_frame.hpp.

#include "core/process/stop_flag.hpp"
#include "core/protocol/control_authentication.hpp"

#include <netprof/clock.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace netprof {

struct LeadAddress {
  bool tcp = false;
  std::string text; // as a user reads it: "HOST:PORT", or "@netprof-lead-<16 hex>"
  std::string host; // tcp: the host and port apart
  std::string port;
};

// --lead's HOST:PORT ([V6]:PORT too), or where `lead` is empty this host's default for the run
// whose first stream `first_stream` names (its transport and addresses). Throws UsageError for a
// malformed --lead.
LeadAddress lead_address(const std::string& lead, const std::string& first_stream);

struct RelayedReport {
  std::uint32_t id = 0;
  std::string json; // as that publisher sent it, not yet parsed
};

// Publisher 0's side.
class ReportListener {
public:
  // Listens at `address`. Throws TransportError when it cannot (the address is taken: another
  // publisher 0 of this run, or another program).
  ReportListener(const LeadAddress& address, std::uint32_t publishers,
                 std::span<const std::byte> shared_secret);
  ~ReportListener();
  ReportListener(const ReportListener&) = delete;
  ReportListener& operator=(const ReportListener&) = delete;

  // Takes reports until each of publishers 1 to P-1 has sent one, `deadline` passes, or `stop`
  // is requested. Returns every report taken so far (by this call or an earlier one), in id
  // order. Anything else that connects (a stranger, a second report of one id, a frame that
  // is not one) is refused and counted.
  const std::vector<RelayedReport>& gather(Clock::time_point deadline, const StopFlag& stop);

  std::uint64_t refused() const noexcept { return m_refused; }
  // The last refusal's reason, for the report; empty when none.
  const std::string& last_refusal() const noexcept { return m_last_refusal; }

private:
  struct Connection;
  void accept_waiting(std::vector<Connection>& connections);
  // Reads what `connection` sent; false once it is done with (answered, or refused).
  bool serve(Connection& connection);
  void refuse(Connection& connection, const std::string& why);

  LeadAddress m_address;
  std::uint32_t m_publishers;
  ControlAuthentication m_authentication; // its key hashed once, not per read
  int m_listener = -1;
  std::vector<RelayedReport> m_reports;
  std::uint64_t m_refused = 0;
  std::string m_last_refusal;
};

// Publisher k's side: sends its report to the lead, trying to reach it until `deadline` (the
// lead may start later, or still be running). Returns an empty string once the lead took it,
// else why it did not, as one phrase.
std::string send_report_to_lead(const LeadAddress& address, std::uint32_t id,
                                const std::string& json, std::span<const std::byte> shared_secret,
                                Clock::time_point deadline, const StopFlag& stop);

} // namespace netprof
