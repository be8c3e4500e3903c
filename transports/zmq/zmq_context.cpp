#include "zmq_context.hpp"

namespace netprof::zeromq {

std::shared_ptr<ZmqContext> ZmqContext::own(int io_threads)
{
  return std::make_shared<ZmqContext>(io_threads);
}

std::shared_ptr<ZmqContext> ZmqContext::shared_in_process(int io_threads)
{
  // Set-up only (opening an endpoint), never the measured loop: a lock is fine here.
  static std::mutex mutex;
  static std::weak_ptr<ZmqContext> shared;
  const std::lock_guard lock(mutex);
  std::shared_ptr<ZmqContext> context = shared.lock();
  if (!context) {
    context = own(io_threads);
    shared = context;
  }
  return context;
}

void ZmqContext::keep_until_ended(std::shared_ptr<void> object)
{
  const std::lock_guard lock(m_mutex);
  m_kept.push_back(std::move(object));
}

} // namespace netprof::zeromq
