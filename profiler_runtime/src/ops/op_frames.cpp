#include "ops/op_frames.h"

#include <string>

#include "ops/op_registry.h"
#include "sampler/sample.h"

namespace strata::rt {

uint32_t SpecialFrame(uint64_t word, Cct::Unlocked& u) {
  uint32_t id;
  std::string name, file;
  switch (SpecialKindOf(word)) {
    case kSpecialOp:
      if (!ops::NameOf(OpWordName(word), &name)) name = "<operator>";
      id = u.Frame(Cct::FrameKind::kOperator, strata::format::kNone, 0, name, "", 0);
      break;
    case kSpecialThread:
      if (!ops::NameOf(OpWordName(word), &name)) name = "<thread>";
      id = u.Frame(Cct::FrameKind::kThread, strata::format::kNone, 0, name, "", 0);
      break;
    case kSpecialPy:
      if (!ops::CodeOf(GlobalPyCode(word), &file, &name)) file = name = "<?>";
      id = u.Frame(Cct::FrameKind::kPython, strata::format::kNone, 0, name, file, PyWordLine(word));
      break;
    default:
      id = u.Frame(Cct::FrameKind::kNative, strata::format::kNone, 0, "<unknown frame>", "", 0);
      break;
  }
  return id;
}

}  // namespace strata::rt
