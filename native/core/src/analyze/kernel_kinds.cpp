#include "kernel_kinds.h"

namespace strata::core::detail {

namespace {
bool Has(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }
bool Starts(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }
}  // namespace

KernelKind ClassifyKernel(const std::string& n) {
  if (Starts(n, "memcpy") || Starts(n, "memset") || Starts(n, "[CUDA memcpy") || Starts(n, "[CUDA memset"))
    return KernelKind::kCopy;
  if (Has(n, "nchwToNhwc") || Has(n, "nhwcToNchw") || Has(n, "nchw2nhwc") || Has(n, "nhwc2nchw"))
    return KernelKind::kLayout;
  if (Has(n, "direct_copy_kernel") || Has(n, "copy_kernel_cuda")) return KernelKind::kTensorCopy;
  if (Has(n, "gemv")) return KernelKind::kGemv;
  if (Has(n, "fmha") || Has(n, "flash_fwd") || Has(n, "flash_bwd") || Has(n, "FlashAttn") || Has(n, "attention_kernel"))
    return KernelKind::kAttention;
  if (Has(n, "fprop") || Has(n, "dgrad") || Has(n, "wgrad") || Has(n, "conv2d") || Has(n, "convolve") ||
      (Has(n, "cudnn") && Has(n, "conv")))
    return KernelKind::kConv;
  if (Has(n, "bn_fw") || Has(n, "bn_bw") || Has(n, "batch_norm") || Has(n, "layer_norm") || Has(n, "LayerNorm") ||
      Has(n, "BatchNorm"))
    return KernelKind::kNorm;
  if (Starts(n, "triton_") || Starts(n, "triton_poi") || Starts(n, "triton_red") || Starts(n, "triton_per"))
    return KernelKind::kCompiled;
  if (Has(n, "gemm") || Has(n, "cutlass") || Has(n, "cublas") || Has(n, "nvjet") || Has(n, "xmma") ||
      Has(n, "_sgemm") || Has(n, "_hgemm") || Has(n, "matmul"))
    return KernelKind::kGemm;
  if (Has(n, "index_put") || Has(n, "indexing_backward") || Has(n, "scatter") || Has(n, "embedding_backward") ||
      Has(n, "index_elementwise"))
    return KernelKind::kIndexing;
  if (Has(n, "at::native::") || Has(n, "at_cuda_detail") || Has(n, "cub::")) return KernelKind::kElementwise;
  if (Has(n, "stream_executor::") || Starts(n, "loop_") || Starts(n, "input_") || Has(n, "_fusion") ||
      Starts(n, "wrapped_") || Starts(n, "xla::"))
    return KernelKind::kXla;
  return KernelKind::kUser;
}

std::string ShortKernelName(const std::string& name) {
  if (name.size() <= 90) return name;
  std::string out;
  int depth = 0;
  for (char c : name) {
    if (c == '<' || c == '(') {
      if (depth++ == 0) out += c == '<' ? "<...>" : "(...)";
      continue;
    }
    if (c == '>' || c == ')') {
      if (depth > 0) --depth;
      continue;
    }
    if (depth == 0) out += c;
  }
  return out.size() > 120 ? out.substr(0, 117) + "..." : out;
}

bool IsLibraryKernel(KernelKind k) { return k != KernelKind::kUser; }

const char* KernelKindName(KernelKind k) {
  switch (k) {
    case KernelKind::kUser: return "kernel";
    case KernelKind::kGemm: return "cuBLAS/CUTLASS matrix multiply";
    case KernelKind::kGemv: return "cuBLAS matrix-vector product";
    case KernelKind::kAttention: return "attention kernel";
    case KernelKind::kConv: return "cuDNN convolution";
    case KernelKind::kLayout: return "cuDNN layout conversion";
    case KernelKind::kTensorCopy: return "tensor copy";
    case KernelKind::kNorm: return "normalization kernel";
    case KernelKind::kElementwise: return "elementwise library kernel";
    case KernelKind::kIndexing: return "indexing kernel";
    case KernelKind::kCompiled: return "torch.compile (Triton) kernel";
    case KernelKind::kXla: return "XLA kernel";
    case KernelKind::kCopy: return "copy";
  }
  return "kernel";
}

const char* KernelKindPlural(KernelKind k) {
  switch (k) {
    case KernelKind::kUser: return "kernels";
    case KernelKind::kGemm: return "cuBLAS/CUTLASS matrix multiplies";
    case KernelKind::kGemv: return "cuBLAS matrix-vector products";
    case KernelKind::kAttention: return "attention kernels";
    case KernelKind::kConv: return "cuDNN convolutions";
    case KernelKind::kLayout: return "cuDNN layout conversions";
    case KernelKind::kTensorCopy: return "tensor copies";
    case KernelKind::kNorm: return "normalization kernels";
    case KernelKind::kElementwise: return "elementwise library kernels";
    case KernelKind::kIndexing: return "indexing kernels";
    case KernelKind::kCompiled: return "torch.compile (Triton) kernels";
    case KernelKind::kXla: return "XLA kernels";
    case KernelKind::kCopy: return "copies";
  }
  return "kernels";
}

std::string KernelAdvice(KernelKind k, const std::string& n, Frameworks fw) {
  const bool tf32 = Has(n, "tf32");
  const bool fp32 = !tf32 && (Has(n, "f32f32") || Has(n, "<float") || Has(n, "float, float") || Has(n, "sgemm"));
  switch (k) {
    case KernelKind::kUser:
      return "Make the kernel itself faster: check its occupancy and memory traffic (strata record --pc-sampling "
             "shows where its warps stall), or launch it less often.";
    case KernelKind::kGemm:
      return std::string("It is a library GEMM: change the call, not the kernel: ") +
             (fp32 ? (fw.torch ? "it runs in fp32; use bf16/fp16 (torch.autocast) or TF32 "
                                 "(torch.set_float32_matmul_precision(\"high\")), "
                               : "it runs in fp32; use bf16/fp16 or TF32 inputs, ")
                   : tf32 ? "it runs in TF32; bf16/fp16 inputs double its throughput, " : "") +
             "keep dimensions multiples of 16, pass contiguous operands (no transposed copies), and batch small "
             "products into one larger one.";
    case KernelKind::kGemv:
      return "It is a matrix-vector product (one row at a time): batch more rows per call (more sequences or "
             "tokens per step) so that it becomes a matrix multiply the tensor cores run" +
             std::string(fp32 ? ", and use bf16/fp16 weights." : ".");
    case KernelKind::kAttention:
      return std::string("It is a fused attention kernel") +
             (Has(n, "f32") ? " running in fp32 (no FlashAttention in fp32)" : "") +
             (fw.torch ? ": run attention in bf16/fp16 (torch.autocast) so scaled_dot_product_attention picks "
                         "FlashAttention, and keep the head dimension a multiple of 8."
                       : ": run it in bf16/fp16 and keep the head dimension a multiple of 8.");
    case KernelKind::kConv:
      return fw.torch ? "It is a cuDNN convolution: use channels_last tensors (model and inputs "
                        ".to(memory_format=torch.channels_last)), bf16/fp16 (torch.autocast), "
                        "torch.backends.cudnn.benchmark = True, and channel counts that are multiples of 8."
                      : "It is a cuDNN convolution: use NHWC tensors, fp16/bf16 data and channel counts that are "
                        "multiples of 8, and let cuDNN pick the algorithm by benchmarking.";
    case KernelKind::kLayout:
      return fw.torch ? "cuDNN converts between NCHW and NHWC around each convolution: convert the model and the "
                        "inputs to channels_last once (.to(memory_format=torch.channels_last)) so that the "
                        "conversions disappear."
                      : "cuDNN converts between NCHW and NHWC around each convolution: keep the tensors in NHWC.";
    case KernelKind::kTensorCopy:
      return "Copies of tensors on the GPU (.contiguous(), .to(memory_format=...), .clone(), x[...] = y): keep "
             "tensors in the layout the next operation wants (convert the model and the inputs once, before the "
             "loop) and drop copies whose result is not needed.";
    case KernelKind::kNorm:
      return fw.torch ? "It is a normalization kernel: use channels_last and bf16/fp16 (torch.autocast), or let "
                        "torch.compile fuse it with its neighbours."
                      : "It is a normalization kernel: run it in bf16/fp16 and fuse it with its neighbours.";
    case KernelKind::kElementwise:
      return fw.torch ? "It is a PyTorch elementwise or reduction kernel: fuse the operations around it "
                        "(torch.compile), do them in place, or avoid them (a fill of a tensor that is overwritten)."
                      : "It is a library elementwise kernel: fuse it with its neighbours or avoid it.";
    case KernelKind::kIndexing:
      return fw.torch ? "It is an indexing or scatter kernel (atomics on repeated indices): use index_select / "
                        "embedding instead of advanced indexing, or sort and deduplicate the indices."
                      : "It is an indexing or scatter kernel (atomics on repeated indices): gather instead of "
                        "scatter, or deduplicate the indices.";
    case KernelKind::kCompiled:
      return "It is generated by torch.compile from the operations in its name: change those operations in the "
             "model (fewer, larger ones; no layout copies), or try mode=\"max-autotune\".";
    case KernelKind::kXla:
      return "It is generated by XLA: change the jitted function (shapes, dtype, fewer small operations), not the "
             "kernel.";
    case KernelKind::kCopy: {
      const bool h2d = Has(n, "HtoD"), d2h = Has(n, "DtoH");
      if (fw.torch && (h2d || d2h))
        return std::string("Copies between host and device: keep the data on the GPU (create tensors with "
                           "device=\"cuda\"), copy once outside the loop, and use pinned memory with "
                           "non_blocking=True") + (d2h ? "; a .item() / .cpu() each step also waits for the GPU." : ".");
      if (fw.jax) return "Copies between host and device: keep the arrays on the device (jax.device_put once).";
      return "Copies: keep the data where it is used, copy once and in large pieces, from pinned host memory "
             "(cudaMallocHost) with cudaMemcpyAsync.";
    }
  }
  return "";
}

}  // namespace strata::core::detail
