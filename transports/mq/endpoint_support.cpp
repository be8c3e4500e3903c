#include "mq_endpoint.hpp"

namespace netprof::mq {

std::string size_hint(const KernelLimits& limits)
{
  return "fs.mqueue.msgsize_max is " + std::to_string(limits.msgsize_max) +
         " B, header included; raise it for larger messages: sysctl -w "
         "fs.mqueue.msgsize_max=BYTES";
}

void add_common_notes(EndpointFacts& facts, const EndpointSettings& settings, const OwnedQueue& own)
{
  facts.notes.push_back(settings.depth_note);
  facts.notes.push_back(
      "queues: the publisher's /netprof-" + settings.name +
      " takes every subscriber's hellos, echoes and final counters, each framed with its "
      "sender's id (8 B); each subscriber's /netprof-" +
      settings.name +
      ":ID takes the publisher's copy of every message, up to fs.mqueue.msgsize_max (" +
      std::to_string(settings.limits.msgsize_max) + " B) each");
  facts.notes.push_back("this process's queue: " + own.name() + ", " + std::to_string(own.depth()) +
                        " messages of up to " + std::to_string(own.message_size()) +
                        " B, mode 0600");
  facts.notes.push_back(settings.limits.note());
  facts.notes.push_back("waiting: receive(0) is one mq_receive on a non-blocking descriptor; a "
                        "blocking receive sleeps in mq_timedreceive, which returns with the "
                        "message; sends never block (a full queue is back-pressure)");
  if (own.replaced())
    facts.notes.push_back("replaced " + own.name() + ", left by a process that was killed");
  if (!own.marked())
    facts.notes.push_back("could not mark " + own.name() +
                          " for clean-up in /dev/shm: if this "
                          "process is killed, the queue stays until reboot");
}

} // namespace netprof::mq
