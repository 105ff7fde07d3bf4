// Hard-coded CPython struct offsets, per minor version (x86-64 / LP64, default build: not
// free-threaded, not debug). Taken from each version's Include/cpython/pystate.h,
// Include/cpython/frameobject.h (3.9, 3.10), Include/internal/pycore_frame.h (3.11+),
// Include/cpython/code.h and Include/cpython/unicodeobject.h. Every table is checked against the
// headers of the pyenv versions found at build time by tests/py_header_offsets.c.
#pragma once

#include <cstdint>

namespace strata::rt::python {

// How a thread's frames are chained.
enum class FrameLayout : uint8_t {
  kFrameObject,       // 3.9, 3.10: PyFrameObject, f_back; one evaluation call per frame
  kInterpreterFrame,  // 3.11+: _PyInterpreterFrame, previous; several frames per call
};

// Which location table a code object carries.
enum class LineTable : uint8_t {
  kLnotab,     // 3.9: co_lnotab, (byte delta, signed line delta) pairs over byte offsets
  kLinetable,  // 3.10: co_linetable, (byte delta, signed line delta, -128 = none) ranges
  kLocations,  // 3.11+: PEP 626 location table over 2-byte code units
};

inline constexpr int32_t kAbsent = -1;

struct Offsets {
  int minor;
  FrameLayout layout;
  LineTable lines;
  // PyThreadState -> innermost frame: *(tstate + tstate_frame), then, unless
  // cframe_current_frame is kAbsent, *(that + cframe_current_frame) (3.11/3.12's _PyCFrame).
  uint32_t tstate_frame;
  int32_t cframe_current_frame;
  // The frame.
  uint32_t frame_code;             // f_code (3.9-3.12), f_executable (3.13)
  uint32_t frame_previous;         // f_back (3.9, 3.10), previous (3.11+)
  uint32_t frame_instr;            // int f_lasti (3.9, 3.10), prev_instr (3.11, 3.12), instr_ptr (3.13)
  int32_t frame_is_entry;          // bool is_entry (3.11 only)
  int32_t frame_owner;             // char owner (3.11+)
  int32_t frame_lineno;            // int f_lineno (3.10: set while tracing; else kAbsent)
  // PyObject
  uint32_t ob_type;
  // PyCodeObject
  uint32_t code_firstlineno;       // int
  uint32_t code_filename;          // PyObject*
  uint32_t code_name;              // co_qualname (3.11+); co_name before (no qualname there)
  uint32_t code_linetable;         // PyBytesObject*: co_lnotab (3.9), co_linetable (3.10+)
  int32_t code_firsttraceable;     // int _co_firsttraceable (3.11+)
  int32_t code_code_adaptive;      // _PyCode_CODE(co) = (char*)co + this (3.11+)
  // PyBytesObject / PyVarObject
  uint32_t var_size;               // ob_size
  uint32_t bytes_sval;             // ob_sval
  // PyUnicode (compact forms)
  uint32_t unicode_length;         // PyASCIIObject.length (code points)
  uint32_t unicode_state;          // PyASCIIObject.state (bitfield word)
  uint32_t ascii_data;             // sizeof(PyASCIIObject): compact ASCII data follows
  uint32_t compact_utf8_length;    // PyCompactUnicodeObject.utf8_length
  uint32_t compact_utf8;           // PyCompactUnicodeObject.utf8
  uint32_t compact_data;           // sizeof(PyCompactUnicodeObject): compact non-ASCII data
};

// _PyInterpreterFrame.owner values (3.11+).
inline constexpr int kOwnedByThread = 0;
inline constexpr int kOwnedByGenerator = 1;
inline constexpr int kOwnedByFrameObject = 2;
inline constexpr int kOwnedByCStack = 3;  // 3.12+: the eval loop's entry frame

// PyASCIIObject.state bits (3.9-3.13): interned:2 kind:3 compact:1 ascii:1.
inline constexpr uint32_t kStateKindShift = 2;
inline constexpr uint32_t kStateKindMask = 7u << kStateKindShift;
inline constexpr uint32_t kStateCompact = 1u << 5;
inline constexpr uint32_t kStateAscii = 1u << 6;

inline constexpr Offsets kPy39 = {
    9, FrameLayout::kFrameObject, LineTable::kLnotab,
    24, kAbsent,                  // tstate->frame
    32, 24, 104, kAbsent, kAbsent, kAbsent,
    8,
    40, 104, 112, 120, kAbsent, kAbsent,
    16, 32,
    16, 32, 48, 48, 56, 72,
};

inline constexpr Offsets kPy310 = {
    10, FrameLayout::kFrameObject, LineTable::kLinetable,
    24, kAbsent,
    32, 24, 96, kAbsent, kAbsent, 100,
    8,
    40, 104, 112, 120, kAbsent, kAbsent,
    16, 32,
    16, 32, 48, 48, 56, 72,
};

inline constexpr Offsets kPy311 = {
    11, FrameLayout::kInterpreterFrame, LineTable::kLocations,
    56, 8,                        // tstate->cframe, cframe->current_frame (after use_tracing)
    32, 48, 56, 68, 69, kAbsent,
    8,
    72, 112, 128, 136, 168, 184,
    16, 32,
    16, 32, 48, 48, 56, 72,       // PyASCIIObject has wchar_t* wstr up to 3.11 (sizeof 48)
};

inline constexpr Offsets kPy312 = {
    12, FrameLayout::kInterpreterFrame, LineTable::kLocations,
    56, 0,                        // use_tracing left _PyCFrame in 3.12
    0, 8, 56, kAbsent, 70, kAbsent,
    8,
    68, 112, 128, 136, 176, 192,
    16, 32,
    16, 32, 40, 40, 48, 56,       // no wstr from 3.12 (sizeof PyASCIIObject 40)
};

inline constexpr Offsets kPy313 = {
    13, FrameLayout::kInterpreterFrame, LineTable::kLocations,
    72, kAbsent,                  // _PyCFrame is gone: tstate->current_frame
    0, 8, 56, kAbsent, 70, kAbsent,
    8,
    68, 112, 128, 136, 184, 200,
    16, 32,
    16, 32, 40, 40, 48, 56,
};

inline const Offsets* OffsetsFor(int major, int minor) {
  if (major != 3) return nullptr;
  switch (minor) {
    case 9: return &kPy39;
    case 10: return &kPy310;
    case 11: return &kPy311;
    case 12: return &kPy312;
    case 13: return &kPy313;
    default: return nullptr;
  }
}

}  // namespace strata::rt::python
