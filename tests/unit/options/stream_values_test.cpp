// --publishers: how one command line gives each publisher addresses of its own.

#include <netprof/errors.hpp>
#include <netprof/options.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace netprof {
namespace {

using Arguments = std::vector<std::string>;

const OptionGroup& addresses()
{
  static const OptionGroup group{
      "Addresses",
      {OptionSpec("peer", "host:port", Text{}, "").repeatable().per_stream(StreamRule::port_offset),
       OptionSpec("path", "PATH", Text{}, "").with_implicit("").per_stream(StreamRule::name_suffix),
       OptionSpec("depth", "N", WholeNumber{1, 10}, "")}};
  return group;
}

std::vector<std::string> peers_of(const Arguments& arguments, std::uint32_t stream)
{
  const OptionValues moved =
      values_for_stream(parse_options(arguments, {&addresses()}), addresses(), stream);
  return moved.texts(addresses()["peer"]);
}

TEST(StreamValues, EveryPortMovesUpByThePublishersId)
{
  const Arguments given = {"--peer", "127.0.0.1:40000", "--peer", "tcp://10.0.0.2:5000"};
  EXPECT_EQ(peers_of(given, 0),
            (std::vector<std::string>{"127.0.0.1:40000", "tcp://10.0.0.2:5000"}));
  EXPECT_EQ(peers_of(given, 3),
            (std::vector<std::string>{"127.0.0.1:40003", "tcp://10.0.0.2:5003"}));
}

TEST(StreamValues, APortAloneMovesToo)
{
  // Broadcast's -b 4150 beside --bc-interface.
  EXPECT_EQ(peers_of({"--peer", "4150"}, 2), (std::vector<std::string>{"4152"}));
  EXPECT_THROW(peers_of({"--peer", "123456"}, 1), UsageError) << "no port has six digits";
}

TEST(StreamValues, PortZeroAsksForAnyOnEveryStream)
{
  EXPECT_EQ(peers_of({"--peer", "127.0.0.1:0"}, 2), (std::vector<std::string>{"127.0.0.1:0"}));
}

TEST(StreamValues, APortPast65535IsRefusedNamingTheStream)
{
  try {
    peers_of({"--peer", "127.0.0.1:65534"}, 2);
    FAIL() << "port 65536 was accepted";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what())
                  .find("stream 2 (publisher p's topic t is stream p*T+t) "
                        "would need port 65536"),
              std::string::npos)
        << error.what();
  }
  EXPECT_EQ(peers_of({"--peer", "127.0.0.1:65534"}, 1),
            (std::vector<std::string>{"127.0.0.1:65535"}));
}

TEST(StreamValues, AnAddressWithoutAPortCannotMove)
{
  EXPECT_THROW(peers_of({"--peer", "localhost"}, 1), UsageError);
  EXPECT_THROW(peers_of({"--peer", "host:http"}, 1), UsageError);
  EXPECT_NO_THROW(peers_of({"--peer", "localhost"}, 0)); // publisher 0 is as given
}

TEST(StreamValues, ANameGetsThePublishersIdAfterADot)
{
  const auto path = [](const Arguments& arguments, std::uint32_t stream) {
    return *values_for_stream(parse_options(arguments, {&addresses()}), addresses(), stream)
                .text(addresses()["path"]);
  };
  EXPECT_EQ(path({"--path", "/tmp/x.sock"}, 0), "/tmp/x.sock");
  EXPECT_EQ(path({"--path", "/tmp/x.sock"}, 2), "/tmp/x.sock.2");
  EXPECT_EQ(path({"--path"}, 2), ""); // none given: the local pair picks one, and passes it on
}

TEST(StreamValues, SettingsStayAsGiven)
{
  const OptionValues moved =
      values_for_stream(parse_options({"--depth", "7"}, {&addresses()}), addresses(), 4);
  EXPECT_EQ(*moved.whole_number(addresses()["depth"]), 7u);
}

TEST(StreamValues, AGroupHasStreamsWhenAnOptionMoves)
{
  EXPECT_TRUE(has_streams(addresses()));
  const OptionGroup settings{"Settings", {OptionSpec("depth", "N", WholeNumber{1, 10}, "")}};
  EXPECT_FALSE(has_streams(settings));
}

// A URL: its port moves where it has one, else its path gets the stream's number.
TEST(StreamValues, AnAddressMovesItsPortOrNamesItsPath)
{
  static const OptionGroup urls{
      "Urls", {OptionSpec("url", "URL", Text{}, "").repeatable().per_stream(StreamRule::address)}};
  const auto moved = [](const Arguments& arguments, std::uint32_t stream) {
    return values_for_stream(parse_options(arguments, {&urls}), urls, stream).texts(urls["url"]);
  };
  EXPECT_EQ(moved({"--url", "tcp://127.0.0.1:5000", "--url", "ipc:///tmp/x.ipc"}, 2),
            (std::vector<std::string>{"tcp://127.0.0.1:5002", "ipc:///tmp/x.ipc.2"}));
  EXPECT_EQ(moved({"--url", "tcp://127.0.0.1:*"}, 2),
            (std::vector<std::string>{"tcp://127.0.0.1:*"}));
}

// NNG's streams each take three ports (data, back and control channels): the next stream's
// starts three further on, and a stream whose last port would pass 65535 is refused.
TEST(StreamValues, AStreamOfSeveralPortsMovesByThemAll)
{
  static const OptionGroup urls{
      "Urls", {OptionSpec("url", "URL", Text{}, "").per_stream(StreamRule::address, 3)}};
  const auto moved = [](const std::string& url, std::uint32_t stream) {
    return *values_for_stream(parse_options({"--url", url}, {&urls}), urls, stream)
                .text(urls["url"]);
  };
  EXPECT_EQ(moved("tcp://127.0.0.1:5000", 0), "tcp://127.0.0.1:5000");
  EXPECT_EQ(moved("tcp://127.0.0.1:5000", 2), "tcp://127.0.0.1:5006");
  EXPECT_EQ(moved("ipc:///tmp/x.ipc", 2), "ipc:///tmp/x.ipc.2");
  EXPECT_EQ(moved("tcp://127.0.0.1:65530", 1), "tcp://127.0.0.1:65533");
  try {
    moved("tcp://127.0.0.1:65530", 2);
    FAIL() << "ports 65536 to 65538 were accepted";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what())
                  .find("stream 2 (publisher p's topic t is stream p*T+t) "
                        "would need port 65538"),
              std::string::npos)
        << error.what();
  }
}

} // namespace
} // namespace netprof
