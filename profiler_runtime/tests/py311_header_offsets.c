/* Offsets of the CPython 3.11 structures the runtime reads, computed by the compiler from the
   installed headers, for test_py_offsets.cpp to compare with the hard-coded table. */
#define Py_BUILD_CORE 1
#include <Python.h>
#include <internal/pycore_frame.h>
#include <stddef.h>
#include <stdint.h>

void strata_py311_header_offsets(uint32_t* o) {
  int i = 0;
  o[i++] = PY_MINOR_VERSION;
  o[i++] = offsetof(PyThreadState, cframe);
  o[i++] = offsetof(_PyCFrame, current_frame);
  o[i++] = offsetof(_PyInterpreterFrame, f_code);
  o[i++] = offsetof(_PyInterpreterFrame, previous);
  o[i++] = offsetof(_PyInterpreterFrame, prev_instr);
  o[i++] = offsetof(_PyInterpreterFrame, is_entry);
  o[i++] = offsetof(_PyInterpreterFrame, owner);
  o[i++] = offsetof(PyObject, ob_type);
  o[i++] = offsetof(PyCodeObject, co_firstlineno);
  o[i++] = offsetof(PyCodeObject, co_filename);
  o[i++] = offsetof(PyCodeObject, co_qualname);
  o[i++] = offsetof(PyCodeObject, co_linetable);
  o[i++] = offsetof(PyCodeObject, _co_firsttraceable);
  o[i++] = offsetof(PyCodeObject, co_code_adaptive);
  o[i++] = offsetof(PyVarObject, ob_size);
  o[i++] = offsetof(PyBytesObject, ob_sval);
  o[i++] = offsetof(PyASCIIObject, length);
  o[i++] = offsetof(PyASCIIObject, state);
  o[i++] = sizeof(PyASCIIObject);
  o[i++] = offsetof(PyCompactUnicodeObject, utf8_length);
  o[i++] = offsetof(PyCompactUnicodeObject, utf8);
  o[i++] = FRAME_OWNED_BY_GENERATOR;
  /* State bits: build a state with only compact=1 / only ascii=1 and read the raw word. */
  PyASCIIObject a;
  memset(&a, 0, sizeof(a));
  a.state.compact = 1;
  memcpy(&o[i++], &a.state, 4);
  memset(&a, 0, sizeof(a));
  a.state.ascii = 1;
  memcpy(&o[i++], &a.state, 4);
}
