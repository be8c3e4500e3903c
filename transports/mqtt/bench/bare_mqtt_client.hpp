#pragma once

// The libmosquitto client the bare MQTT baselines (bare_mqtt_pingpong, bare_mqtt_stream) share,
// still no netprof code: driven by the thread that owns it as netprof's endpoint drives its own
// (poll on the socket, then mosquitto_loop_read, then mosquitto_loop_write for what the read
// queued; no mosquitto_loop_start thread), with TCP_NODELAY as netprof sets it. libmosquitto is
// initialised in each process after the fork (bare_two_processes.hpp).

#include "bare_options.hpp"

#include <mosquitto.h>

#include <poll.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace bare::mqtt {

using Clock = std::chrono::steady_clock;

constexpr auto setup_timeout = std::chrono::seconds(10);

struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Broker {
  std::string host;
  int port = 0;
};

// Takes --broker HOST:PORT into `broker`; false for any other flag.
inline bool take_broker_option(std::string_view flag, std::string_view value, Broker& broker)
{
  if (flag != "--broker")
    return false;
  const std::size_t colon = value.rfind(':');
  if (colon == std::string_view::npos || colon == 0)
    throw UsageError{"--broker takes HOST:PORT"};
  broker.host = std::string(value.substr(0, colon));
  broker.port = parse_number<int>(value.substr(colon + 1), 1, 65535,
                                  "--broker takes HOST:PORT, a port of 1 to 65535");
  return true;
}

// What both MQTT baselines take beside their own flags: the broker, and the QoS of every publish
// and subscription.
struct BrokerOptions {
  Broker broker;
  int qos = 0;
};

// Options{} (a BrokerOptions) from the command line: --broker HOST:PORT, which is required,
// --qos 0|1, and the program's own flags, which take_own(flag, value, options) takes (false for
// a flag it does not know).
template <typename Options, typename TakeOwn>
Options parse_options(int argc, char** argv, TakeOwn&& take_own)
{
  Options options = parse_command_line<Options>(
      argc, argv, [&](std::string_view flag, std::string_view value, Options& taken) {
        if (flag == "--qos") {
          taken.qos = parse_number<int>(value, 0, 1, "--qos must be 0 or 1");
          return true;
        }
        return take_broker_option(flag, value, taken.broker) || take_own(flag, value, taken);
      });
  if (options.broker.host.empty())
    throw UsageError{"--broker HOST:PORT is required (bench_mqtt.sh starts one)"};
  return options;
}

inline void check(int rc, const char* doing)
{
  if (rc != MOSQ_ERR_SUCCESS)
    throw Failure{std::string(doing) + ": " +
                  (rc == MOSQ_ERR_ERRNO ? std::strerror(errno) : mosquitto_strerror(rc))};
}

// One connected client. Messages go to the handler given, on the caller's thread, from inside
// step(); QoS 1 acknowledgements are counted (acknowledged()).
class Client {
public:
  using Handler = std::function<void(const mosquitto_message&)>;

  Client(const Broker& broker, Handler on_message) : m_on_message(std::move(on_message))
  {
    mosquitto_lib_init();
    m_handle = mosquitto_new(nullptr, true, this);
    if (m_handle == nullptr)
      throw Failure{"mosquitto_new failed"};
    mosquitto_int_option(m_handle, MOSQ_OPT_TCP_NODELAY, 1); // as netprof's endpoint
    set_callbacks();
    check(mosquitto_connect(m_handle, broker.host.c_str(), broker.port, 60), "mosquitto_connect");
    run_until([this] { return m_connected >= 0; }, "accept the connection");
    if (m_connected != 0)
      throw Failure{"the broker refused the connection"};
  }

  ~Client()
  {
    mosquitto_disconnect(m_handle);
    mosquitto_loop_write(m_handle, 1);
    mosquitto_destroy(m_handle);
  }

  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // As netprof's publisher at QoS 1: libmosquitto holds back what is beyond `messages`
  // unacknowledged (MOSQ_OPT_SEND_MAXIMUM).
  void set_send_maximum(int messages)
  {
    mosquitto_int_option(m_handle, MOSQ_OPT_SEND_MAXIMUM, messages);
  }

  void subscribe(const std::string& topic, int qos)
  {
    const int before = m_acknowledged_subscriptions;
    check(mosquitto_subscribe(m_handle, nullptr, topic.c_str(), qos), "mosquitto_subscribe");
    run_until([&] { return m_acknowledged_subscriptions > before; },
              "acknowledge the subscription");
  }

  // Written at once by libmosquitto, whole, waiting for the socket to take it when it is full,
  // as netprof's endpoint does (its send() finishes a message, bounded, before it returns).
  // Inside a callback libmosquitto only queues it: the step() that ran the callback writes it.
  void publish(const std::string& topic, const void* bytes, std::size_t size, int qos)
  {
    check(mosquitto_publish(m_handle, nullptr, topic.c_str(), static_cast<int>(size), bytes, qos,
                            false),
          "mosquitto_publish");
    ++m_published;
    if (!m_in_callback)
      finish_writing();
  }

  // Writes what libmosquitto still holds, waiting for room in the socket, at most 10 s.
  void finish_writing()
  {
    const auto give_up = Clock::now() + setup_timeout;
    while (mosquitto_want_write(m_handle)) {
      if (Clock::now() >= give_up)
        throw Failure{"the broker took nothing for 10 s"};
      pollfd watched{mosquitto_socket(m_handle), POLLOUT, 0};
      if (poll(&watched, 1, 100) > 0)
        check(mosquitto_loop_write(m_handle, 1), "mosquitto_loop_write");
    }
  }

  // Waits up to `wait` for the socket, reads (one packet, or as many as libmosquitto has QoS 1
  // messages in flight) and writes what the read queued; false when nothing came.
  bool step(std::chrono::milliseconds wait)
  {
    pollfd watched{mosquitto_socket(m_handle), POLLIN, 0};
    const int ready = poll(&watched, 1, static_cast<int>(wait.count()));
    if (ready < 0 && errno != EINTR)
      throw Failure{std::string("poll: ") + std::strerror(errno)};
    if (ready <= 0)
      return false;
    check(mosquitto_loop_read(m_handle, 1), "mosquitto_loop_read");
    if (mosquitto_want_write(m_handle))
      check(mosquitto_loop_write(m_handle, 1), "mosquitto_loop_write");
    return true;
  }

  // Returns once the broker has everything this client published (acknowledged at QoS 1,
  // written at QoS 0), at most 10 s: a socket closed with anything unread (a PUBACK) is reset,
  // and the broker drops what it had not read yet.
  void wait_until_delivered()
  {
    run_until([this] { return m_acknowledged >= m_published; }, "take every message");
  }

  // Published and not yet acknowledged (at QoS 0 libmosquitto counts a message as
  // acknowledged once it is written).
  std::uint64_t unacknowledged() const noexcept { return m_published - m_acknowledged; }

private:
  void set_callbacks()
  {
    mosquitto_connect_callback_set(m_handle, [](mosquitto*, void* self, int rc) {
      static_cast<Client*>(self)->m_connected = rc;
    });
    mosquitto_subscribe_callback_set(m_handle, [](mosquitto*, void* self, int, int, const int*) {
      ++static_cast<Client*>(self)->m_acknowledged_subscriptions;
    });
    mosquitto_publish_callback_set(m_handle, [](mosquitto*, void* self, int) {
      ++static_cast<Client*>(self)->m_acknowledged;
    });
    mosquitto_message_callback_set(m_handle,
                                   [](mosquitto*, void* self, const mosquitto_message* message) {
                                     // libmosquitto decides from errno whether its read drained the
                                     // socket, as netprof's endpoint knows: the handler's system
                                     // calls must not change it.
                                     const int saved = errno;
                                     auto& me = *static_cast<Client*>(self);
                                     me.m_in_callback = true;
                                     me.m_on_message(*message);
                                     me.m_in_callback = false;
                                     errno = saved;
                                   });
  }

  template <typename Done> void run_until(Done done, const char* what)
  {
    const auto give_up = Clock::now() + setup_timeout;
    while (!done() && Clock::now() < give_up)
      step(std::chrono::milliseconds(100));
    if (!done())
      throw Failure{std::string("the broker did not ") + what + " within 10 s"};
  }

  mosquitto* m_handle = nullptr;
  Handler m_on_message;
  bool m_in_callback = false; // libmosquitto holds its locks: a publish is only queued
  int m_connected = -1;
  int m_acknowledged_subscriptions = 0;
  std::uint64_t m_published = 0;
  std::uint64_t m_acknowledged = 0;
};

} // namespace bare::mqtt
