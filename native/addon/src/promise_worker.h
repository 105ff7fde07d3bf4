// What every call of the addon shares: promise-returning workers on the libuv thread pool whose
// failures reject with the core's one-line message, and typed-array columns copied out of
// std::vectors.
#pragma once

#include <napi.h>

#include <cstring>
#include <exception>
#include <initializer_list>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "strata/core/api.h"

namespace strata::addon {

inline std::string CurrentExceptionMessage() {
  try {
    throw;
  } catch (const strata::core::Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("internal error: ") + e.what();
  } catch (...) {
    return "internal error: unknown exception";
  }
}

// Base for promise-returning workers: Execute() fills the result or throws; the exception's
// one-line message becomes the rejection's Error message.
class PromiseWorker : public Napi::AsyncWorker {
 public:
  explicit PromiseWorker(Napi::Env env, const char* name)
      : Napi::AsyncWorker(env, name), deferred_(Napi::Promise::Deferred::New(env)) {}
  Napi::Promise Promise() const { return deferred_.Promise(); }

 protected:
  void Execute() final {
    try {
      Run();
    } catch (...) {
      SetError(CurrentExceptionMessage());
    }
  }
  virtual void Run() = 0;
  virtual Napi::Value Result(Napi::Env env) = 0;
  void OnOK() final {
    Napi::Env env = Env();
    Napi::HandleScope scope(env);
    try {
      deferred_.Resolve(Result(env));
    } catch (const Napi::Error& e) {
      deferred_.Reject(e.Value());
    }
  }
  void OnError(const Napi::Error& e) final { deferred_.Reject(e.Value()); }

 private:
  Napi::Promise::Deferred deferred_;
};

// Queues a worker made with `new` (it deletes itself when done) and returns its promise.
inline Napi::Promise Queue(PromiseWorker* worker) {
  Napi::Promise p = worker->Promise();
  worker->Queue();
  return p;
}

inline Napi::ArrayBuffer CopyToArrayBuffer(Napi::Env env, const void* data, size_t bytes) {
  Napi::ArrayBuffer buf = Napi::ArrayBuffer::New(env, bytes);
  if (bytes) std::memcpy(buf.Data(), data, bytes);
  return buf;
}

template <typename T, typename TA>
inline Napi::Value Column(Napi::Env env, const std::vector<T>& v, napi_typedarray_type type) {
  Napi::ArrayBuffer buf = CopyToArrayBuffer(env, v.data(), v.size() * sizeof(T));
  return TA::New(env, v.size(), buf, 0, type);
}

// Columns of the common element types.
inline Napi::Value U32Column(Napi::Env env, const std::vector<uint32_t>& v) {
  return Column<uint32_t, Napi::Uint32Array>(env, v, napi_uint32_array);
}
inline Napi::Value I32Column(Napi::Env env, const std::vector<int32_t>& v) {
  return Column<int32_t, Napi::Int32Array>(env, v, napi_int32_array);
}
inline Napi::Value U8Column(Napi::Env env, const std::vector<uint8_t>& v) {
  return Column<uint8_t, Napi::Uint8Array>(env, v, napi_uint8_array);
}
inline Napi::Value F64Column(Napi::Env env, const std::vector<double>& v) {
  return Column<double, Napi::Float64Array>(env, v, napi_float64_array);
}
inline Napi::Array StringArray(Napi::Env env, const std::vector<std::string>& strings) {
  Napi::Array out = Napi::Array::New(env, strings.size());
  for (size_t i = 0; i < strings.size(); ++i) out.Set(static_cast<uint32_t>(i), strings[i]);
  return out;
}

// An object of named columns.
inline Napi::Object Columns(Napi::Env env, std::initializer_list<std::pair<const char*, Napi::Value>> columns) {
  Napi::Object o = Napi::Object::New(env);
  for (const auto& [name, column] : columns) o.Set(name, column);
  return o;
}

// Strings interned into one table (index 0 = ""), as the columns refer to them.
class StringTable {
 public:
  StringTable() { Intern(""); }
  uint32_t Intern(const std::string& s) {
    auto [it, inserted] = ids_.emplace(s, static_cast<uint32_t>(strings_.size()));
    if (inserted) strings_.push_back(s);
    return it->second;
  }
  const std::vector<std::string>& strings() const { return strings_; }

 private:
  std::unordered_map<std::string, uint32_t> ids_;
  std::vector<std::string> strings_;
};

}  // namespace strata::addon
