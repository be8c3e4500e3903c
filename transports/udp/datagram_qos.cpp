#include "datagram_qos.hpp"

#include <string>

namespace netprof::udp {

EffectiveQos datagram_qos(const QosRequest& request, std::string_view transport)
{
  if (request.reliability == Reliability::reliable)
    qos::refuse(qos::reliability_option(Reliability::reliable), transport,
                "UDP has no retransmission: a datagram the network or a full receive buffer "
                "drops is lost (use tcp, or zmq with --reliability reliable)");
  if (request.history)
    qos::refuse(qos::history_option(*request.history), transport,
                "UDP keeps no history: a datagram is delivered once or dropped by the kernel "
                "when the receive buffer is full (size that with -q)");
  EffectiveQos effective;
  effective.reliability = Reliability::best_effort;
  effective.history = HistoryKind::none;
  effective.set_by = QosSetBy::transport;
  effective.meaning = "datagrams without retransmission: what the network or a full receive "
                      "buffer (-q) drops is lost, and counted as loss";
  return effective;
}

} // namespace netprof::udp
