/* Offsets of the CPython structures the runtime reads, computed by the compiler from one
   version's headers, for test_py_offsets.cpp to compare with that version's hard-coded table
   (src/python/offsets.h). Built once per CPython found (tests/CMakeLists.txt), the function
   named by STRATA_OFFSETS_FN. Order = the fields of struct Offsets; -1 = absent in this version. */
#define Py_BUILD_CORE 1
#include <Python.h>
#if PY_VERSION_HEX >= 0x030B0000
#include <internal/pycore_frame.h>
#else
#include <frameobject.h>
#endif
#include <stddef.h>
#include <stdint.h>
#include <string.h>

void STRATA_OFFSETS_FN(int32_t* o) {
  int i = 0;
  o[i++] = PY_MINOR_VERSION;
#if PY_VERSION_HEX < 0x030B0000
  o[i++] = offsetof(PyThreadState, frame);
  o[i++] = -1;
  o[i++] = offsetof(PyFrameObject, f_code);
  o[i++] = offsetof(PyFrameObject, f_back);
  o[i++] = offsetof(PyFrameObject, f_lasti);
  o[i++] = -1;                                   /* is_entry */
  o[i++] = -1;                                   /* owner */
#if PY_VERSION_HEX >= 0x030A0000
  o[i++] = offsetof(PyFrameObject, f_lineno);
#else
  o[i++] = -1;
#endif
#else
#if PY_VERSION_HEX >= 0x030D0000
  o[i++] = offsetof(PyThreadState, current_frame);
  o[i++] = -1;
  o[i++] = offsetof(_PyInterpreterFrame, f_executable);
  o[i++] = offsetof(_PyInterpreterFrame, previous);
  o[i++] = offsetof(_PyInterpreterFrame, instr_ptr);
#else
  o[i++] = offsetof(PyThreadState, cframe);
  o[i++] = offsetof(_PyCFrame, current_frame);
  o[i++] = offsetof(_PyInterpreterFrame, f_code);
  o[i++] = offsetof(_PyInterpreterFrame, previous);
  o[i++] = offsetof(_PyInterpreterFrame, prev_instr);
#endif
#if PY_VERSION_HEX < 0x030C0000
  o[i++] = offsetof(_PyInterpreterFrame, is_entry);
#else
  o[i++] = -1;
#endif
  o[i++] = offsetof(_PyInterpreterFrame, owner);
  o[i++] = -1;                                   /* f_lineno */
#endif
  o[i++] = offsetof(PyObject, ob_type);
  o[i++] = offsetof(PyCodeObject, co_firstlineno);
  o[i++] = offsetof(PyCodeObject, co_filename);
#if PY_VERSION_HEX >= 0x030B0000
  o[i++] = offsetof(PyCodeObject, co_qualname);
  o[i++] = offsetof(PyCodeObject, co_linetable);
  o[i++] = offsetof(PyCodeObject, _co_firsttraceable);
  o[i++] = offsetof(PyCodeObject, co_code_adaptive);
#else
  o[i++] = offsetof(PyCodeObject, co_name);
#if PY_VERSION_HEX >= 0x030A0000
  o[i++] = offsetof(PyCodeObject, co_linetable);
#else
  o[i++] = offsetof(PyCodeObject, co_lnotab);
#endif
  o[i++] = -1;
  o[i++] = -1;
#endif
  o[i++] = offsetof(PyVarObject, ob_size);
  o[i++] = offsetof(PyBytesObject, ob_sval);
  o[i++] = offsetof(PyASCIIObject, length);
  o[i++] = offsetof(PyASCIIObject, state);
  o[i++] = sizeof(PyASCIIObject);
  o[i++] = offsetof(PyCompactUnicodeObject, utf8_length);
  o[i++] = offsetof(PyCompactUnicodeObject, utf8);
  o[i++] = sizeof(PyCompactUnicodeObject);
#if PY_VERSION_HEX >= 0x030B0000
  o[i++] = FRAME_OWNED_BY_GENERATOR;
#if PY_VERSION_HEX >= 0x030C0000
  o[i++] = FRAME_OWNED_BY_CSTACK;
#else
  o[i++] = -1;
#endif
#else
  o[i++] = -1;
  o[i++] = -1;
#endif
  /* State bits: build a state with only compact / ascii / kind set and read the raw word. */
  PyASCIIObject a;
  memset(&a, 0, sizeof(a));
  a.state.compact = 1;
  memcpy(&o[i++], &a.state, 4);
  memset(&a, 0, sizeof(a));
  a.state.ascii = 1;
  memcpy(&o[i++], &a.state, 4);
  memset(&a, 0, sizeof(a));
  a.state.kind = 7;
  memcpy(&o[i++], &a.state, 4);
}
