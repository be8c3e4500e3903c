// FrameReader and PendingOutput on their own: frames cut from bytes however they arrive, and
// refused before anything is allocated for them; output kept in order while a socket is full.

#include "stream/frame_reader.hpp"
#include "stream/pending_output.hpp"

#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace {

using netprof::stream::encode_frame_header;
using netprof::stream::frame_header_size;
using netprof::stream::FrameError;
using netprof::stream::FrameReader;
using netprof::stream::PendingOutput;

using Bytes = std::vector<std::byte>;

Bytes text(const std::string& characters)
{
  Bytes bytes(characters.size());
  std::memcpy(bytes.data(), characters.data(), characters.size());
  return bytes;
}

Bytes frame(const Bytes& message)
{
  const auto header = encode_frame_header(static_cast<std::uint32_t>(message.size()));
  Bytes bytes(header.size() + message.size());
  std::copy(header.begin(), header.end(), bytes.begin());
  std::copy(message.begin(), message.end(), bytes.begin() + frame_header_size);
  return bytes;
}

// Feeds `bytes` to the reader `step` bytes per "recv", collecting every message it cuts.
std::vector<Bytes> feed(FrameReader& reader, const Bytes& bytes, std::size_t step)
{
  std::vector<Bytes> messages;
  for (std::size_t at = 0; at < bytes.size();) {
    const std::span<std::byte> space = reader.space();
    if (space.empty()) {
      break;
    }
    const std::size_t count = std::min({step, space.size(), bytes.size() - at});
    std::memcpy(space.data(), bytes.data() + at, count);
    reader.filled(count);
    at += count;
    while (const auto message = reader.next()) {
      messages.emplace_back(message->begin(), message->end());
    }
  }
  return messages;
}

TEST(FrameReader, CutsMessagesThatArriveAByteAtATime)
{
  FrameReader sut(1000, 16);
  Bytes stream = frame(text("first message"));
  const Bytes second = frame(text("second, somewhat longer than the first"));
  stream.insert(stream.end(), second.begin(), second.end());

  const std::vector<Bytes> messages = feed(sut, stream, 1);

  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0], text("first message"));
  EXPECT_EQ(messages[1], text("second, somewhat longer than the first"));
  EXPECT_EQ(sut.partial_bytes(), 0u);
  EXPECT_EQ(sut.error(), FrameError::none);
}

TEST(FrameReader, CutsManyMessagesFromOneRead)
{
  FrameReader sut(100, 4096);
  Bytes stream;
  for (int i = 0; i < 50; ++i) {
    const Bytes one = frame(text("message " + std::to_string(i)));
    stream.insert(stream.end(), one.begin(), one.end());
  }
  const std::vector<Bytes> messages = feed(sut, stream, stream.size());
  ASSERT_EQ(messages.size(), 50u);
  EXPECT_EQ(messages[49], text("message 49"));
}

TEST(FrameReader, AnEmptyMessageIsAMessage)
{
  FrameReader sut(100, 64);
  const std::vector<Bytes> messages = feed(sut, frame({}), 64);
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_TRUE(messages[0].empty());
}

TEST(FrameReader, RefusesAFrameAnnouncingMoreThanItsLimitBeforeGrowing)
{
  FrameReader sut(300, 64);
  const Bytes huge = {std::byte{'n'},  std::byte{'p'},  std::byte{0},    std::byte{0},
                      std::byte{0xff}, std::byte{0xff}, std::byte{0xff}, std::byte{0xff}};
  EXPECT_TRUE(feed(sut, huge, 8).empty());
  EXPECT_EQ(sut.error(), FrameError::too_large);
  EXPECT_EQ(sut.announced(), 0xffffffffu);
  EXPECT_TRUE(sut.space().empty()) << "a refused stream is read no further";
}

TEST(FrameReader, RefusesWhatIsNotItsFraming)
{
  for (const std::string& garbage :
       {std::string("GET / HTTP/1.1\r\n\r\n"), std::string("np\x01\0\x04\0\0\0abcd", 12),
        std::string("pn\0\0\x04\0\0\0abcd", 12)}) {
    FrameReader sut(1 << 20, 64);
    EXPECT_TRUE(feed(sut, text(garbage), garbage.size()).empty()) << garbage;
    EXPECT_EQ(sut.error(), FrameError::not_a_frame) << garbage;
  }
}

TEST(FrameReader, GrowsOnceForALongerMessageWithinItsLimit)
{
  FrameReader sut(100000, 64);
  const Bytes big(70000, std::byte{7});
  const std::vector<Bytes> messages = feed(sut, frame(big), 4096);
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0], big);
}

TEST(FrameReader, SaysHowMuchOfAMessageCameWhenItStops)
{
  FrameReader sut(1000, 64);
  const Bytes whole = frame(Bytes(100, std::byte{1}));
  feed(sut, Bytes(whole.begin(), whole.begin() + 30), 30);
  EXPECT_EQ(sut.partial_bytes(), 30u);
  ASSERT_TRUE(sut.partial_length());
  EXPECT_EQ(*sut.partial_length(), 100u);
}

class SocketPairTest : public ::testing::Test {
protected:
  void SetUp() override
  {
    ASSERT_EQ(socketpair(AF_UNIX, type() | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, m_ends), 0);
    const int small = 4096;
    setsockopt(m_ends[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
  }
  void TearDown() override
  {
    close(m_ends[0]);
    close(m_ends[1]);
  }
  virtual int type() const { return SOCK_STREAM; }

  // Fills the writing end until the kernel takes nothing more.
  void fill()
  {
    const Bytes chunk(512, std::byte{0});
    while (send(m_ends[0], chunk.data(), chunk.size(), MSG_DONTWAIT) > 0) {
    }
  }

  Bytes drain(std::size_t at_most)
  {
    Bytes got(at_most);
    const ssize_t n = recv(m_ends[1], got.data(), got.size(), MSG_DONTWAIT);
    got.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    return got;
  }

  int m_ends[2] = {-1, -1};
};

TEST_F(SocketPairTest, PendingBytesLeaveInOrderOnceTheSocketHasRoom)
{
  PendingOutput sut;
  sut.reserve(64);
  fill();
  ASSERT_TRUE(sut.append(text("abc"), text("def")));
  ASSERT_TRUE(sut.has_room(10));
  ASSERT_TRUE(sut.append(text("ghi"), {}));
  EXPECT_EQ(sut.write_to(m_ends[0]), PendingOutput::Flush::blocked);
  EXPECT_FALSE(sut.empty());

  Bytes received;
  while (!sut.empty()) {
    const Bytes got = drain(1 << 16);
    received.insert(received.end(), got.begin(), got.end());
    ASSERT_NE(sut.write_to(m_ends[0]), PendingOutput::Flush::failed);
  }
  const Bytes rest = drain(1 << 16);
  received.insert(received.end(), rest.begin(), rest.end());
  ASSERT_GE(received.size(), 9u);
  EXPECT_EQ(Bytes(received.end() - 9, received.end()), text("abcdefghi"));
}

TEST_F(SocketPairTest, AFullQueueHasRoomOnlyWithinItsCapacity)
{
  PendingOutput sut;
  sut.reserve(16);
  EXPECT_TRUE(sut.has_room(1000)) << "an empty queue takes any one message";
  ASSERT_TRUE(sut.append(Bytes(12, std::byte{1}), {}));
  EXPECT_FALSE(sut.has_room(1000));
}

class RecordPairTest : public SocketPairTest {
protected:
  int type() const override { return SOCK_SEQPACKET; }
};

TEST_F(RecordPairTest, PendingRecordsKeepTheirBoundaries)
{
  PendingOutput sut(true);
  fill();
  ASSERT_TRUE(sut.append(text("one"), {}));
  ASSERT_TRUE(sut.append(text("record two"), {}));
  while (!sut.empty()) {
    ASSERT_NE(sut.write_to(m_ends[0]), PendingOutput::Flush::failed);
    if (!sut.empty()) {
      drain(1 << 16);
    }
  }
  std::vector<Bytes> records;
  for (Bytes got = drain(1 << 16); !got.empty(); got = drain(1 << 16)) {
    records.push_back(got);
  }
  ASSERT_GE(records.size(), 2u);
  EXPECT_EQ(records[records.size() - 2], text("one"));
  EXPECT_EQ(records.back(), text("record two"));
}

} // namespace
