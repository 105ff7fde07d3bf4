// Parses the text of `nvdisasm -c -gi CUBIN`: per function, each instruction's offset, its SASS
// text and the source location nvdisasm printed for it (with -gi: the inlining chain).
//
// How the listing reads (checked against test/fixtures/h100/stalls/stall_kernels.sass):
//   .section .text._Z10math_chainPffi,...      starts a function (so does the label
//   .text._Z10math_chainPffi:                   of that name)
//   //## File "/x.cu", line 14 inlined at "/x.cu", line 26
//   //## File "/x.cu", line 26
//           /*0140*/    FFMA R5, R5, R2, 0.5 ;
// A run of consecutive `//##` lines is one location: the first is the innermost source line
// (line 14 of the inlined helper), each following line is the next caller out (line 26 of the
// kernel, where the helper was inlined; it repeats the first line's "inlined at"). The location
// applies to the instructions that follow until the next run. No plain-C++ dependencies.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace strata::core::gpu {

struct SourceLine {
  std::string file;   // as printed (absolute path at compile time)
  uint32_t line = 0;
  bool operator==(const SourceLine& o) const { return line == o.line && file == o.file; }
};

struct SassLocation {
  SourceLine innermost;
  std::vector<SourceLine> inlined_at;  // callers, innermost caller first; empty: not inlined
};

struct SassInstruction {
  uint64_t offset = 0;     // pc offset inside the function
  std::string text;        // "FFMA R5, R5, R2, 0.5", "@!P0 BRA `(.L_x_0)" (no trailing ';')
  int32_t location = -1;   // index into SassListing::locations, -1 when none was printed
};

struct SassListing {
  std::map<std::string, std::vector<SassInstruction>> functions;  // by mangled name, by offset
  std::vector<SassLocation> locations;
  // Branch targets per function: ".L_x_1" -> the offset of the instruction after the label
  // (what "BRA `(.L_x_1)" jumps to).
  std::map<std::string, std::map<std::string, uint64_t>> labels;

  // The instruction at exactly `pc` in `function`, nullptr when there is none.
  const SassInstruction* Find(const std::string& function, uint64_t pc) const;
  const SassLocation* LocationOf(const SassInstruction& i) const {
    return i.location < 0 ? nullptr : &locations[size_t(i.location)];
  }
};

// Throws strata::core::Error with one line ("SASS listing: ...") when the text holds no
// function with instructions. Lines it does not understand (directives, labels) are skipped.
SassListing ParseSassListing(std::string_view text);

}  // namespace strata::core::gpu
