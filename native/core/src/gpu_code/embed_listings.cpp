// EmbedSassListings: disassembles the cubins a profile carries (nvdisasm -c -gi) so that the
// profile shows SASS on machines without the CUDA toolkit, then rewrites the profile atomically.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../rewrite.h"
#include "nvdisasm.h"
#include "strata/core/api.h"
#include "strata/format/reader.h"
#include "strata/format/writer.h"

namespace strata::core {

namespace fmt = strata::format;

namespace {

// The cubin bytes in a private temporary file for nvdisasm; removed by the destructor.
class TempCubin {
 public:
  explicit TempCubin(std::string_view bytes) {
    const char* tmp = std::getenv("TMPDIR");
    std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/strata-cubin-XXXXXX";
    std::vector<char> name(tmpl.begin(), tmpl.end());
    name.push_back('\0');
    int fd = ::mkstemp(name.data());
    if (fd < 0) { error_ = std::string("cannot create a temporary file: ") + std::strerror(errno); return; }
    path_ = name.data();
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) { error_ = std::string("cannot write a temporary file: ") + std::strerror(errno); break; }
      done += size_t(n);
    }
    ::close(fd);
  }
  ~TempCubin() { if (!path_.empty()) ::unlink(path_.c_str()); }
  const std::string& path() const { return path_; }
  const std::string& error() const { return error_; }
 private:
  std::string path_, error_;
};

}  // namespace

bool EmbedSassListings(const std::string& profile_path, const std::string& nvdisasm, std::string* status) {
  std::vector<unsigned char> bytes = detail::ReadProfileBytes(profile_path);
  fmt::ProfileReader r;
  try {
    r = fmt::ProfileReader::Parse(bytes.data(), bytes.size());
  } catch (const fmt::ReadError& e) {
    throw Error(e.what());
  }
  std::vector<fmt::BlobView> blobs;
  std::vector<bool> has_listing(r.modules().size, false);
  for (size_t i = 0; i < r.blob_count(); ++i) {
    blobs.push_back(r.blob(i));
    if (blobs.back().kind == fmt::BlobKind::kSassListing) has_listing[blobs.back().module] = true;
  }
  auto fail = [&](const std::string& why) {
    *status = "not embedded: " + why;
    RewriteProfileMeta(profile_path, {{"sass", *status}});
    return false;
  };
  if (nvdisasm.empty()) return fail("nvdisasm not found");

  std::vector<std::string> listings;  // owned text of the new blobs
  std::vector<uint32_t> listing_module;
  std::string first_failure;
  size_t failures = 0;
  for (size_t i = 0; i < r.blob_count(); ++i) {
    const fmt::BlobView b = r.blob(i);
    if (b.kind != fmt::BlobKind::kCubin || has_listing[b.module]) continue;
    TempCubin cubin(b.bytes);
    gpu::ToolRun run;
    if (cubin.error().empty()) run = gpu::RunNvdisasm(nvdisasm, cubin.path());
    else run.error = cubin.error();
    if (!run.ok || run.out.empty()) {
      if (failures++ == 0)
        first_failure = std::string(r.string(r.modules()[b.module].path)) + ": " +
                        (run.ok ? "nvdisasm printed nothing" : "nvdisasm " + run.error);
      continue;
    }
    listings.push_back(std::move(run.out));
    listing_module.push_back(b.module);
  }
  if (listings.empty() && failures > 0) return fail(first_failure);
  for (size_t k = 0; k < listings.size(); ++k)
    blobs.push_back(fmt::BlobView{listing_module[k], fmt::BlobKind::kSassListing, listings[k]});

  std::string version = gpu::NvdisasmVersion(nvdisasm);
  *status = "embedded: " + std::to_string(listings.size()) + " listing" + (listings.size() == 1 ? "" : "s") +
            " (nvdisasm" + (version.empty() ? "" : " " + version) + ")";
  if (failures > 0) *status += "; " + std::to_string(failures) + " failed, first: " + first_failure;
  const std::vector<unsigned char> section = fmt::SerializeBlobsSection(blobs);
  detail::RewriteProfile(profile_path, {{"sass", *status}}, &section);
  return true;
}

std::string FindNvdisasm() { return gpu::FindNvdisasm(); }

bool ProfileHasCubins(const std::string& profile_path) {
  std::vector<unsigned char> bytes = detail::ReadProfileBytes(profile_path);
  try {
    fmt::ProfileReader r = fmt::ProfileReader::Parse(bytes.data(), bytes.size());
    for (size_t i = 0; i < r.blob_count(); ++i)
      if (r.blob(i).kind == fmt::BlobKind::kCubin) return true;
  } catch (const fmt::ReadError& e) {
    throw Error(e.what());
  }
  return false;
}

}  // namespace strata::core
