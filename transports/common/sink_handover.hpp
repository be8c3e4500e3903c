#pragma once

#include <netprof/transport.hpp>

#include <atomic>

namespace netprof::transport_common {

// Lends the core's sink to a DDS receive thread (Cyclone's or Fast DDS's listener) for as long as
// the core's own thread waits inside Endpoint::receive, so that with --dds-notify listener (or
// --fastdds-notify listener) a sample is handled (and a probe echoed) on the thread that
// received it, as ddsperf answers in its listener. The core's state behind the sink is then
// touched by one thread at a time: by the listener only between borrow() and give_back() while
// it is lent, by the core only after revoke() returned. The atomic state's acquire/release
// orders every write either side made before handing it on.
class SinkHandover {
public:
  // Core thread: the listener may use `sink` from now until revoke().
  void lend(MessageSink& sink) noexcept;
  // Core thread: takes the sink back, waiting while the listener is inside it (a take and an
  // echo, microseconds). Afterwards the listener cannot borrow it until the next lend().
  void revoke() noexcept;

  // Listener thread: the sink, or nullptr when the core is not waiting (the core then takes the
  // sample itself on its next receive). Non-null must be given back.
  MessageSink* borrow() noexcept;
  void give_back() noexcept;

  // Listener thread, having marked a sample it could not hand over: whether the core lent the
  // sink since (it waits, or is about to). Sequentially consistent, as is lend(), so that of a
  // listener marking a sample and a core lending, at least one sees the other's write.
  bool lent_since() const noexcept { return m_state.load() != State::kept; }

private:
  enum class State { kept, lent, borrowed };
  std::atomic<State> m_state{State::kept};
  MessageSink* m_sink = nullptr; // written by the core before lending, read by the borrower
};

} // namespace netprof::transport_common
