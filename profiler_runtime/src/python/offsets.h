// Hard-coded CPython struct offsets, per minor version. Taken from CPython's
// Include/cpython/pystate.h, Include/internal/pycore_frame.h, Include/cpython/code.h and
// Include/cpython/unicodeobject.h (x86-64 / LP64). 3.11 is checked against the installed
// headers by tests/py311_header_offsets.c; 3.12 follows the v3.12 headers.
#pragma once

#include <cstdint>

namespace strata::rt::python {

struct Offsets {
  int minor;
  // PyThreadState
  uint32_t tstate_cframe;          // _PyCFrame* cframe
  uint32_t cframe_current_frame;   // _PyInterpreterFrame* current_frame
  // _PyInterpreterFrame
  uint32_t frame_code;             // PyCodeObject* f_code
  uint32_t frame_previous;         // _PyInterpreterFrame* previous
  uint32_t frame_prev_instr;       // _Py_CODEUNIT* prev_instr
  int32_t frame_is_entry;          // bool is_entry (3.11), -1 when absent (3.12)
  uint32_t frame_owner;            // char owner
  // PyObject
  uint32_t ob_type;
  // PyCodeObject
  uint32_t code_firstlineno;       // int
  uint32_t code_filename;          // PyObject*
  uint32_t code_qualname;          // PyObject*
  uint32_t code_linetable;         // PyBytesObject*
  uint32_t code_firsttraceable;    // int _co_firsttraceable
  uint32_t code_code_adaptive;     // _PyCode_CODE(co) = (char*)co + this
  // PyBytesObject / PyVarObject
  uint32_t var_size;               // ob_size
  uint32_t bytes_sval;             // ob_sval
  // PyUnicode (compact forms)
  uint32_t unicode_length;         // PyASCIIObject.length
  uint32_t unicode_state;          // PyASCIIObject.state (bitfield word)
  uint32_t ascii_data;             // sizeof(PyASCIIObject): compact ASCII data follows
  uint32_t compact_utf8_length;    // PyCompactUnicodeObject.utf8_length
  uint32_t compact_utf8;           // PyCompactUnicodeObject.utf8
};

// _PyInterpreterFrame.owner values.
inline constexpr int kOwnedByThread = 0;
inline constexpr int kOwnedByGenerator = 1;
inline constexpr int kOwnedByFrameObject = 2;
inline constexpr int kOwnedByCStack = 3;  // 3.12+: the eval loop's entry frame

// PyASCIIObject.state bits (same in 3.11 and 3.12): interned:2 kind:3 compact:1 ascii:1.
inline constexpr uint32_t kStateCompact = 1u << 5;
inline constexpr uint32_t kStateAscii = 1u << 6;

inline constexpr Offsets kPy311 = {
    11,
    56, 8,            // tstate->cframe, cframe->current_frame (after uint8_t use_tracing)
    32, 48, 56, 68, 69,
    8,
    72, 112, 128, 136, 168, 184,
    16, 32,
    16, 32, 48, 48, 56,  // PyASCIIObject has wchar_t* wstr in 3.11 (sizeof 48)
};

inline constexpr Offsets kPy312 = {
    12,
    56, 0,            // use_tracing left _PyCFrame in 3.12
    0, 8, 56, -1, 70,
    8,
    68, 112, 128, 136, 176, 192,
    16, 32,
    16, 32, 40, 40, 48,  // no wstr in 3.12 (sizeof PyASCIIObject 40)
};

inline const Offsets* OffsetsFor(int major, int minor) {
  if (major != 3) return nullptr;
  if (minor == 11) return &kPy311;
  if (minor == 12) return &kPy312;
  return nullptr;
}

}  // namespace strata::rt::python
