#pragma once

// What the message-queue transport's tests share: a run name of their own, whose queues and
// markers are removed when the test ends, and the settings an endpoint opens with.

#include "abandoned_queues.hpp"
#include "kernel_limits.hpp"
#include "mq_endpoint.hpp"
#include "queue_names.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <mqueue.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <string>

namespace netprof::mq::testing {

inline bool queue_exists(const std::string& name)
{
  const mqd_t fd = mq_open(name.c_str(), O_RDONLY | O_NONBLOCK);
  if (fd == static_cast<mqd_t>(-1))
    return false;
  mq_close(fd);
  return true;
}

inline bool any_note_contains(const EndpointFacts& facts, const std::string& text)
{
  return std::any_of(facts.notes.begin(), facts.notes.end(),
                     [&](const std::string& note) { return note.find(text) != std::string::npos; });
}

class MqTest : public ::testing::Test {
protected:
  MqTest()
  {
    static std::atomic<int> next{0};
    name = "unit-" + std::to_string(getpid()) + "-" + std::to_string(next++);
  }

  ~MqTest() override
  {
    for (const std::string& queue :
         {publisher_queue(name), subscriber_queue(name, 1), subscriber_queue(name, 2)}) {
      mq_unlink(queue.c_str());
      unlink(marker_path(queue).c_str());
    }
  }

  EndpointSettings settings() const
  {
    EndpointSettings settings;
    settings.name = name;
    settings.limits = KernelLimits::read();
    settings.depth = choose_depth(std::nullopt, settings.limits, settings.depth_note);
    return settings;
  }

  std::string name;
};

} // namespace netprof::mq::testing
