#include "fastdds_message_type.hpp"

#include <fastcdr/Cdr.h>
#include <fastcdr/FastBuffer.h>
#include <fastcdr/exceptions/Exception.h>

namespace netprof::fastdds_parts {

namespace {

using eprosima::fastcdr::Cdr;
using eprosima::fastcdr::FastBuffer;
using eprosima::fastrtps::rtps::SerializedPayload_t;

} // namespace

MessageType::MessageType(std::size_t max_bytes) : m_max_bytes(max_bytes)
{
  setName(type_name);
  // The largest serialized sample, which Fast DDS uses to size preallocated payloads; the
  // endpoints' history memory policy is dynamic (fastdds_qos.cpp), so nothing is reserved at it.
  m_typeSize = static_cast<std::uint32_t>(max_bytes + framing_bytes);
  m_isGetKeyDefined = false;
  // No TypeObject: matching is by type name, as between Cyclone and a type without one.
  auto_fill_type_object(false);
  auto_fill_type_information(false);
}

bool MessageType::serialize(void* data, SerializedPayload_t* payload)
{
  const auto& sample = *static_cast<const MessageSample*>(data);
  FastBuffer buffer(reinterpret_cast<char*>(payload->data), payload->max_size);
  Cdr cdr(buffer, Cdr::DEFAULT_ENDIAN, Cdr::DDS_CDR);
  try {
    cdr.serialize_encapsulation();
    cdr.serialize(static_cast<std::uint32_t>(sample.bytes.size()));
    cdr.serializeArray(reinterpret_cast<const std::uint8_t*>(sample.bytes.data()),
                       sample.bytes.size());
  } catch (const eprosima::fastcdr::exception::Exception&) {
    return false; // the payload Fast DDS gave is too small
  }
  payload->encapsulation = cdr.endianness() == Cdr::BIG_ENDIANNESS ? CDR_BE : CDR_LE;
  payload->length = static_cast<std::uint32_t>(cdr.getSerializedDataLength());
  return true;
}

bool MessageType::deserialize(SerializedPayload_t* payload, void* data)
{
  auto& sample = *static_cast<MessageSample*>(data);
  FastBuffer buffer(reinterpret_cast<char*>(payload->data), payload->length);
  Cdr cdr(buffer, Cdr::DEFAULT_ENDIAN, Cdr::DDS_CDR);
  try {
    cdr.read_encapsulation();
    std::uint32_t length = 0;
    cdr.deserialize(length);
    // A stranger's length beyond what the payload holds is refused before anything is sized.
    if (length > m_max_bytes || length > payload->length - cdr.getSerializedDataLength())
      return false;
    sample.received.resize(length);
    cdr.deserializeArray(reinterpret_cast<std::uint8_t*>(sample.received.data()), length);
  } catch (const eprosima::fastcdr::exception::Exception&) {
    return false; // shorter than its header says, or an encapsulation that is not plain CDR
  }
  sample.bytes = std::span<const std::byte>(sample.received.data(), sample.received.size());
  return true;
}

std::function<std::uint32_t()> MessageType::getSerializedSizeProvider(void* data)
{
  return [data]() {
    return static_cast<std::uint32_t>(framing_bytes +
                                      static_cast<const MessageSample*>(data)->bytes.size());
  };
}

void* MessageType::createData()
{
  return new MessageSample();
}

void MessageType::deleteData(void* data)
{
  delete static_cast<MessageSample*>(data);
}

bool MessageType::getKey(void*, eprosima::fastrtps::rtps::InstanceHandle_t*, bool)
{
  return false;
}

} // namespace netprof::fastdds_parts
