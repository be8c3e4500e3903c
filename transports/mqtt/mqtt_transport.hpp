#pragma once

// MQTT through a broker (Mosquitto): the publisher publishes to PREFIX/data, each subscriber
// echoes to PREFIX/echo/ITS-CLIENT-ID; --mqtt HOST:PORT names the broker, and a local pair given
// a bare --mqtt starts a mosquitto of its own (mqtt_broker.hpp).

#include <netprof/registry.hpp>

namespace netprof {

TransportDescriptor mqtt_transport();

} // namespace netprof
