// Adds/replaces meta entries (and, for EmbedSassListings, the blobs section) of an existing
// profile by byte-level section rewriting: the strings section gets the new strings appended
// (existing indices stay valid), the meta section is rebuilt, every other section (unknown
// kinds, and blobs unless replaced, too) is copied verbatim.
#include "strata/format/byte_append.h"
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <unordered_map>

#include "rewrite.h"
#include "strata/core/api.h"
#include "strata/format/layout.h"
#include "strata/format/reader.h"

namespace strata::core {

namespace fmt = strata::format;

using fmt::Align8;
using fmt::Append;

std::vector<unsigned char> detail::ReadProfileBytes(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(std::string("cannot open: ") + std::strerror(errno));
  std::vector<unsigned char> bytes;
  unsigned char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) { int e = errno; ::close(fd); throw Error(std::string("cannot read: ") + std::strerror(e)); }
    if (n == 0) break;
    bytes.insert(bytes.end(), buf, buf + n);
  }
  ::close(fd);
  return bytes;
}

namespace {

void WriteAtomically(const std::string& path, const std::vector<unsigned char>& bytes, mode_t mode) {
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode & 0777);
  if (fd < 0) throw Error("cannot write profile " + path + ": " + std::strerror(errno));
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int e = n < 0 ? errno : ENOSPC;
      ::close(fd);
      ::unlink(tmp.c_str());
      throw Error("cannot write profile " + path + ": " + std::strerror(e));
    }
    done += size_t(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    throw Error("cannot write profile " + path + ": " + std::strerror(e));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    throw Error("cannot write profile " + path + ": " + std::strerror(e));
  }
}

}  // namespace

void RewriteProfileMeta(const std::string& path,
                        const std::vector<std::pair<std::string, std::string>>& entries) {
  detail::RewriteProfile(path, entries, nullptr);
}

void detail::RewriteProfile(const std::string& path,
                            const std::vector<std::pair<std::string, std::string>>& entries,
                            const std::vector<unsigned char>* blobs_section) {
  std::vector<unsigned char> in = ReadProfileBytes(path);
  fmt::ProfileReader r;
  try {
    r = fmt::ProfileReader::Parse(in.data(), in.size());
  } catch (const fmt::ReadError& e) {
    throw Error(e.what());
  }
  struct stat st;
  mode_t mode = ::stat(path.c_str(), &st) == 0 ? st.st_mode : 0644;

  // Strings: existing ones keep their index; new ones are appended.
  std::vector<std::string_view> strings;
  std::unordered_map<std::string_view, uint32_t> index;
  for (uint32_t i = 0; i < r.string_count(); ++i) {
    strings.push_back(r.string(i));
    index.emplace(r.string(i), i);
  }
  std::vector<std::string> owned;  // storage for new strings (stable: reserved)
  owned.reserve(entries.size() * 2);
  auto intern = [&](const std::string& s) -> uint32_t {
    auto it = index.find(s);
    if (it != index.end()) return it->second;
    owned.push_back(s);
    uint32_t id = uint32_t(strings.size());
    strings.push_back(owned.back());
    index.emplace(owned.back(), id);
    return id;
  };
  std::vector<fmt::MetaEntry> meta(r.meta().begin(), r.meta().end());
  for (const auto& [k, v] : entries) {
    uint32_t key = intern(k), value = intern(v);
    bool replaced = false;
    for (auto& e : meta) if (e.key == key) { e.value = value; replaced = true; }
    if (!replaced) meta.push_back(fmt::MetaEntry{key, value});
  }
  uint64_t blob = 0;
  for (auto s : strings) blob += s.size();
  if (blob > 0xFFFFFFFFull || strings.size() >= fmt::kNone) throw Error("string table too large");

  // Sections in their stored order; a meta section is added when there was none.
  std::vector<fmt::SectionEntry> old(r.sections().begin(), r.sections().end());
  std::stable_sort(old.begin(), old.end(), [](const auto& a, const auto& b) { return a.offset < b.offset; });
  bool has_meta = std::any_of(old.begin(), old.end(),
                              [](const auto& s) { return s.kind == uint32_t(fmt::SectionKind::kMeta); });
  if (!has_meta) old.push_back(fmt::SectionEntry{uint32_t(fmt::SectionKind::kMeta), sizeof(fmt::MetaEntry), 0, 0, 0});
  const uint32_t kBlobs = uint32_t(fmt::SectionKind::kBlobs);
  if (blobs_section && std::none_of(old.begin(), old.end(), [&](const auto& s) { return s.kind == kBlobs; }))
    old.push_back(fmt::SectionEntry{kBlobs, 0, 0, 0, 0});

  std::vector<unsigned char> out(sizeof(fmt::FileHeader), 0);
  std::vector<fmt::SectionEntry> table;
  for (const auto& s : old) {
    Align8(out);
    fmt::SectionEntry e = s;
    e.offset = out.size();
    if (s.kind == uint32_t(fmt::SectionKind::kStrings)) {
      Append(out, fmt::StringsHeader{uint32_t(strings.size()), 0});
      uint32_t off = 0;
      for (auto str : strings) { Append(out, off); off += uint32_t(str.size()); }
      Append(out, off);
      for (auto str : strings) out.insert(out.end(), str.begin(), str.end());
      e.count = strings.size();
    } else if (s.kind == uint32_t(fmt::SectionKind::kMeta)) {
      for (const auto& m : meta) Append(out, m);
      e.count = meta.size();
    } else if (s.kind == kBlobs && blobs_section) {
      out.insert(out.end(), blobs_section->begin(), blobs_section->end());
      e.count = reinterpret_cast<const fmt::BlobsHeader*>(blobs_section->data())->count;
    } else {
      out.insert(out.end(), in.begin() + long(s.offset), in.begin() + long(s.offset + s.size));
    }
    e.size = out.size() - e.offset;
    table.push_back(e);
  }
  Align8(out);
  uint64_t table_offset = out.size();
  for (const auto& e : table) Append(out, e);

  fmt::FileHeader h = r.header();
  h.file_size = out.size();
  h.section_table_offset = table_offset;
  h.section_count = uint32_t(table.size());
  h.checksum = fmt::Fnv1a(out.data() + sizeof(fmt::FileHeader), out.size() - sizeof(fmt::FileHeader));
  std::memcpy(out.data(), &h, sizeof h);
  WriteAtomically(path, out, mode);
}

}  // namespace strata::core
