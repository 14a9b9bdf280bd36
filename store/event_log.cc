// Event log writer and reader (format in event_log.h and docs/formats/event-log.md).
#include "store/event_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <cstring>

#include "store/event_codec.h"
#include "store/format.h"
#include "store/fs_util.h"

namespace slsdbg::store {

namespace {

constexpr size_t kHeaderSize = 32;
constexpr size_t kTrailerSize = 40;
constexpr size_t kFlushThreshold = 1 << 20;
constexpr uint32_t kMaxRecord = 1u << 30;

struct Header {
  char magic[8];
  uint32_t version;
  uint32_t reserved;
  uint64_t segment;
  uint64_t checksum;  // xxh3-64 of the first 24 bytes
};
static_assert(sizeof(Header) == kHeaderSize);

struct Trailer {
  char magic[8];
  uint64_t count;
  uint64_t index_offset;
  uint64_t index_checksum;  // xxh3-64 of the offsets array
  uint64_t checksum;        // xxh3-64 of the first 32 bytes
};
static_assert(sizeof(Trailer) == kTrailerSize);

uint32_t record_checksum(const uint8_t* p, size_t n, uint64_t index) { return uint32_t(XXH3_64bits_withSeed(p, n, index)); }

}  // namespace

Status EventLogWriter::open_if_needed() {
  if (fd_.valid()) return ok_status();
  fd_ = TRY(open_file(path_, O_WRONLY | O_CREAT | O_TRUNC));
  Header h{};
  std::memcpy(h.magic, kEventLogMagic, 8);
  h.version = kEventLogVersion;
  h.segment = segment_;
  h.checksum = XXH3_64bits(&h, 24);
  buffer_.insert(buffer_.begin(), reinterpret_cast<uint8_t*>(&h), reinterpret_cast<uint8_t*>(&h) + sizeof h);
  return ok_status();
}

Status EventLogWriter::flush_buffer() {
  if (buffer_.empty()) return ok_status();
  TRY_CTX(write_all(fd_.get(), buffer_.data(), buffer_.size(), file_offset_), path_);
  file_offset_ += buffer_.size();
  buffer_.clear();
  return ok_status();
}

Status EventLogWriter::append(const Event& event) {
  TRY(open_if_needed());
  // Encoded in place after room for its length and checksum (no copy).
  const size_t at = buffer_.size();
  buffer_.resize(at + 8);
  encode_event(event, buffer_);
  const size_t size = buffer_.size() - at - 8;
  if (size > kMaxRecord) {
    buffer_.resize(at);
    return Error::msg("event too large for the event log");
  }
  const uint64_t index = offsets_.size();
  offsets_.push_back(file_offset_ + at);
  const uint32_t len = uint32_t(size);
  const uint32_t sum = record_checksum(buffer_.data() + at + 8, size, index);
  std::memcpy(buffer_.data() + at, &len, 4);
  std::memcpy(buffer_.data() + at + 4, &sum, 4);
  if (buffer_.size() >= kFlushThreshold) TRY(flush_buffer());
  return ok_status();
}

Status EventLogWriter::seal(bool sync) {
  TRY(open_if_needed());
  Trailer t{};
  std::memcpy(t.magic, kEventIndexMagic, 8);
  t.count = offsets_.size();
  t.index_offset = file_offset_ + buffer_.size();
  t.index_checksum = XXH3_64bits(offsets_.data(), offsets_.size() * 8);
  t.checksum = XXH3_64bits(&t, 32);
  const uint8_t* ip = reinterpret_cast<const uint8_t*>(offsets_.data());
  buffer_.insert(buffer_.end(), ip, ip + offsets_.size() * 8);
  const uint8_t* tp = reinterpret_cast<const uint8_t*>(&t);
  buffer_.insert(buffer_.end(), tp, tp + sizeof t);
  TRY(flush_buffer());
  if (sync && ::fdatasync(fd_.get()) != 0) return Error::from_errno("fdatasync " + path_);
  fd_.reset();
  return ok_status();
}

Result<EventLogReader> EventLogReader::open(const std::string& path, uint64_t segment, LogExpect expect) {
  EventLogReader r;
  r.path_ = path;
  UniqueFd fd = TRY(open_file(path, O_RDONLY));
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return Error::from_errno("fstat " + path);
  r.data_.resize(size_t(st.st_size));
  TRY(read_exact(fd.get(), r.data_.data(), r.data_.size(), 0, path));
  Header h{};
  if (r.data_.size() >= kHeaderSize) std::memcpy(&h, r.data_.data(), sizeof h);
  bool header_ok = r.data_.size() >= kHeaderSize && std::memcmp(h.magic, kEventLogMagic, 8) == 0 && h.checksum == XXH3_64bits(&h, 24);
  if (!header_ok && expect == LogExpect::MaybeTorn) {
    r.data_.clear();  // the writer died (or is) before the header reached the disk
    return r;
  }
  if (r.data_.size() < kHeaderSize) return Error::msg(path + ": event log is truncated (no header)");
  if (!header_ok) return Error::msg(path + ": not an event log (bad magic or header checksum)");
  if (h.version != kEventLogVersion)
    return Error::msg(path + ": event log version " + std::to_string(h.version) + " is not supported (this build reads " +
                      std::to_string(kEventLogVersion) + ")");
  if (h.segment != segment) return Error::msg(path + ": holds segment " + std::to_string(h.segment) + ", expected " + std::to_string(segment));

  // Sealed: a valid trailer whose index checksum matches.
  if (r.data_.size() >= kHeaderSize + kTrailerSize) {
    Trailer t;
    std::memcpy(&t, r.data_.data() + r.data_.size() - kTrailerSize, sizeof t);
    if (std::memcmp(t.magic, kEventIndexMagic, 8) == 0 && t.checksum == XXH3_64bits(&t, 32)) {
      uint64_t index_end = r.data_.size() - kTrailerSize;
      if (t.index_offset > index_end || (index_end - t.index_offset) != t.count * 8)
        return Error::msg(path + ": event log index does not fit the file");
      r.offsets_.resize(t.count);
      std::memcpy(r.offsets_.data(), r.data_.data() + t.index_offset, t.count * 8);
      if (XXH3_64bits(r.offsets_.data(), t.count * 8) != t.index_checksum) return Error::msg(path + ": event log index checksum mismatch");
      for (uint64_t off : r.offsets_)
        if (off < kHeaderSize || off + 8 > t.index_offset) return Error::msg(path + ": event log index points outside the records");
      r.state_ = LogState::Sealed;
      return r;
    }
  }
  // Unsealed: scan the valid prefix.
  uint64_t off = kHeaderSize;
  while (off + 8 <= r.data_.size()) {
    uint32_t len, sum;
    std::memcpy(&len, r.data_.data() + off, 4);
    std::memcpy(&sum, r.data_.data() + off + 4, 4);
    if (len == 0 || len > r.data_.size() - off - 8) break;
    if (record_checksum(r.data_.data() + off + 8, len, r.offsets_.size()) != sum) break;
    r.offsets_.push_back(off);
    off += 8 + len;
  }
  return r;
}

Result<Event> EventLogReader::event(uint64_t index) const {
  if (index >= offsets_.size())
    return Error::msg(path_ + ": event " + std::to_string(index) + " out of range (" + std::to_string(offsets_.size()) + " events)");
  uint64_t off = offsets_[index];
  uint32_t len, sum;
  std::memcpy(&len, data_.data() + off, 4);
  std::memcpy(&sum, data_.data() + off + 4, 4);
  if (len > data_.size() - off - 8) return Error::msg(path_ + ": event " + std::to_string(index) + " runs past the end of the log");
  if (record_checksum(data_.data() + off + 8, len, index) != sum)
    return Error::msg(path_ + ": event " + std::to_string(index) + " checksum mismatch");
  auto e = decode_event(data_.data() + off + 8, len);
  if (!e.ok()) return e.error().context(path_ + ": event " + std::to_string(index));
  return e;
}

Result<std::vector<Event>> EventLogReader::all() const {
  std::vector<Event> out;
  out.reserve(offsets_.size());
  for (uint64_t i = 0; i < offsets_.size(); i++) out.push_back(TRY(event(i)));
  return out;
}

}  // namespace slsdbg::store
