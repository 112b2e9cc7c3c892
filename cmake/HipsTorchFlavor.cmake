# Which LibTorch this build trains with, as `hips run`, the About box and the history say it:
# "LibTorch 1.13.0 (CPU)" or "LibTorch 2.11.0 (CUDA 13.0)".
if(TORCH_CUDA_LIBRARIES)
  set(_hips_cuda_version "${CUDAToolkit_VERSION}")
  if(NOT _hips_cuda_version)
    set(_hips_cuda_version "${CUDA_VERSION}")
  endif()
  set(HIPS_TORCH_KIND "CUDA ${_hips_cuda_version}")
  # Nothing in a trainer names libtorch_cuda's symbols: a linker that drops unneeded libraries
  # (Ubuntu's default) would leave CUDA unregistered and torch::cuda::is_available() false.
  add_link_options(LINKER:--no-as-needed)
else()
  set(HIPS_TORCH_KIND "CPU")
endif()
set(HIPS_TORCH_FLAVOR "LibTorch ${Torch_VERSION} (${HIPS_TORCH_KIND})")
target_compile_definitions(hips_options INTERFACE HIPS_TORCH_FLAVOR="${HIPS_TORCH_FLAVOR}")
