#pragma once

// What the ZeroMQ tests share: byte strings, free loopback endpoints, a temporary directory
// for ipc:// files, endpoint settings as the transport derives them, and receiving until
// enough arrived. Test code only.

#include "zmq/zmq_address.hpp"
#include "zmq/zmq_endpoint.hpp"

#include "support/test_sinks.hpp"

#include <gtest/gtest.h>

#include <stdlib.h>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

namespace netprof::testing {

using Bytes = std::vector<std::byte>;

inline Bytes bytes(std::initializer_list<int> values)
{
  Bytes result;
  for (const int value : values) {
    result.push_back(static_cast<std::byte>(value));
  }
  return result;
}

// Receives until `count` messages arrived, for at most 5 s; false if they did not.
inline bool receive_until(Endpoint& endpoint, CollectingSink& sink, std::size_t count)
{
  using namespace std::chrono_literals;
  const auto deadline = Clock::now() + 5s;
  while (sink.messages.size() < count && Clock::now() < deadline) {
    if (endpoint.receive(sink, 10ms) == ReceiveResult::failed) {
      return false;
    }
  }
  return sink.messages.size() >= count;
}

// Says hello ('N'-led bytes) until the publisher hears one: the subscriber's subscription is in
// place by then (the core repeats hellos too).
inline void say_hello(Endpoint& subscriber, Endpoint& publisher)
{
  using namespace std::chrono_literals;
  CollectingSink heard;
  const auto deadline = Clock::now() + 5s;
  while (heard.messages.empty() && Clock::now() < deadline) {
    ASSERT_EQ(subscriber.send(bytes({'N', 'h'})).result, SendResult::sent);
    ASSERT_NE(publisher.receive(heard, 20ms), ReceiveResult::failed);
  }
  ASSERT_FALSE(heard.messages.empty()) << "the hello never arrived";
}

inline std::string free_tcp_endpoint()
{
  return "tcp://127.0.0.1:" + std::to_string(zeromq::pick_free_tcp_ports("127.0.0.1", 1)[0]);
}

class TemporaryDirectory {
public:
  TemporaryDirectory()
  {
    std::string pattern = (std::filesystem::temp_directory_path() / "zmq-test-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error("mkdtemp failed");
    }
    m_path = pattern;
  }
  ~TemporaryDirectory() { std::filesystem::remove_all(m_path); }
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;

  std::string file(const std::string& name) const { return (m_path / name).string(); }

private:
  std::filesystem::path m_path;
};

// A 180 B message (the core's 52 B header and -s 128), -q 1 MiB.
inline zeromq::EndpointSettings settings_for(Role role, const std::string& own,
                                             const std::vector<std::string>& peers)
{
  zeromq::EndpointSettings settings;
  settings.role = role;
  settings.own = zeromq::parse_address(own, zeromq::Use::bind);
  for (const std::string& peer : peers) {
    settings.peers.push_back(zeromq::parse_address(peer, zeromq::Use::connect));
  }
  settings.queue_length_bytes = 1 << 20;
  settings.message_bytes = 180;
  return settings;
}

} // namespace netprof::testing
